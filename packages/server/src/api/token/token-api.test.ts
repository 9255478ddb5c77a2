import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

let t: TestApp;
let alice: string;
let bob: string;

beforeEach(async () => {
  t = await createTestApp();
  const root = await t.login('root', '123456');
  for (const name of ['alice', 'bob']) await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: name, password: 'password123' } });
  alice = await t.login('alice', 'password123');
  bob = await t.login('bob', 'password123');
});
afterEach(async () => {
  await t.close();
});

const create = (cookie: string, payload: Record<string, unknown>) => t.call({ method: 'POST', url: '/api/token/', cookie, payload });

describe('/api/token', () => {
  // covers S7-API-58, S3-ENTITY-20
  it('creates a key of 48 alphanumerics with the defaults and returns it', async () => {
    const res = await create(alice, { name: 'first' });
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatchObject({ name: 'first', status: 1, remain_quota: 500000, unlimited_quota: false, expired_time: -1, used_quota: 0 });
    expect(res.body.data.key).toMatch(/^[A-Za-z0-9]{48}$/);
  });

  it('validates name, expiry, quota and the IP list with clear messages', async () => {
    expect((await create(alice, { name: '' })).body).toMatchObject({ success: false, message: '请输入令牌名称' });
    expect((await create(alice, { name: 'x'.repeat(31) })).body).toMatchObject({ success: false, message: '令牌名称过长' });
    expect((await create(alice, { name: 'a', expired_time: 1000 })).body).toMatchObject({ success: false, message: '过期时间不能早于当前时间' });
    expect((await create(alice, { name: 'a', remain_quota: -5 })).body.success).toBe(false);
    expect((await create(alice, { name: 'a', subnet: '10.0.0.0/40' })).body.message).toContain('IP 限制格式错误');
    expect((await create(alice, { name: 'a', subnet: '10.0.0.0/8,::1' })).body.success).toBe(true);
  });

  // covers S7-API-55, S7-API-56, S7-API-57
  it('lists ten per page with order, searches by name prefix and reads one — only the caller\'s own', async () => {
    for (let i = 0; i < 12; i++) await create(alice, { name: `key-${i}`, remain_quota: i * 100 });
    await create(bob, { name: 'key-bob' });
    const page0 = await t.call({ method: 'GET', url: '/api/token/?p=0', cookie: alice });
    expect(page0.body.data).toHaveLength(10);
    expect(page0.body.data[0].name).toBe('key-11');
    expect((await t.call({ method: 'GET', url: '/api/token/?p=1', cookie: alice })).body.data).toHaveLength(2);
    const byRemain = await t.call({ method: 'GET', url: '/api/token/?p=0&order=remain_quota', cookie: alice });
    expect(byRemain.body.data[0].name).toBe('key-11');
    const search = await t.call({ method: 'GET', url: '/api/token/search?keyword=key-1', cookie: alice });
    expect(search.body.data.map((k: { name: string }) => k.name).sort()).toEqual(['key-1', 'key-10', 'key-11']);
    const bobs = await t.call({ method: 'GET', url: '/api/token/search?keyword=key', cookie: bob });
    expect(bobs.body.data.map((k: { name: string }) => k.name)).toEqual(['key-bob']);
  });

  it('a user can never read, change or delete another user\'s key', async () => {
    const bobKey = (await create(bob, { name: 'secret' })).body.data;
    expect((await t.call({ method: 'GET', url: `/api/token/${bobKey.id}`, cookie: alice })).body).toMatchObject({ success: false, message: '令牌不存在' });
    expect((await t.call({ method: 'PUT', url: '/api/token/', cookie: alice, payload: { ...bobKey, name: 'mine' } })).body.success).toBe(false);
    expect((await t.call({ method: 'PUT', url: '/api/token/?status_only=true', cookie: alice, payload: { id: bobKey.id, status: 2 } })).body.success).toBe(false);
    expect((await t.call({ method: 'DELETE', url: `/api/token/${bobKey.id}/`, cookie: alice })).body.success).toBe(false);
    const still = await t.call({ method: 'GET', url: `/api/token/${bobKey.id}`, cookie: bob });
    expect(still.body.data).toMatchObject({ name: 'secret', status: 1 });
  });

  // covers S7-API-59, S7-API-60, S7-API-61
  it('updates fully, toggles status 1 <-> 2 only, refuses to enable an expired or exhausted key, deletes', async () => {
    const key = (await create(alice, { name: 'k', remain_quota: 10 })).body.data;
    const updated = await t.call({ method: 'PUT', url: '/api/token/', cookie: alice, payload: { ...key, name: 'renamed', remain_quota: 0, unlimited_quota: false, models: 'gpt-4o', subnet: '' } });
    expect(updated.body.data).toMatchObject({ name: 'renamed', remain_quota: 0, models: 'gpt-4o', key: `${key.key.slice(0, 4)}****${key.key.slice(-4)}` });
    expect((await t.call({ method: 'POST', url: `/api/token/${key.id}/key`, cookie: alice })).body.data).toEqual({ key: key.key });
    expect((await t.call({ method: 'PUT', url: '/api/token/?status_only=true', cookie: alice, payload: { id: key.id, status: 2 } })).body.data.status).toBe(2);
    expect((await t.call({ method: 'PUT', url: '/api/token/?status_only=true', cookie: alice, payload: { id: key.id, status: 1 } })).body.message).toContain('额度已用尽');
    expect((await t.call({ method: 'PUT', url: '/api/token/?status_only=true', cookie: alice, payload: { id: key.id, status: 4 } })).body.success).toBe(false);
    await t.ctx.storage.db.updateTable('tokens').set({ expired_time: 1000, remain_quota: 5 }).where('id', '=', key.id).execute();
    expect((await t.call({ method: 'PUT', url: '/api/token/?status_only=true', cookie: alice, payload: { id: key.id, status: 1 } })).body.message).toContain('已过期');
    expect((await t.call({ method: 'DELETE', url: `/api/token/${key.id}/`, cookie: alice })).body.success).toBe(true);
    expect((await t.call({ method: 'GET', url: `/api/token/${key.id}`, cookie: alice })).body.success).toBe(false);
  });

  it('a key whose expiry passed shows status 3 in the list; extending it re-enables it', async () => {
    const key = (await create(alice, { name: 'old' })).body.data;
    await t.ctx.storage.db.updateTable('tokens').set({ expired_time: 1000 }).where('id', '=', key.id).execute();
    expect((await t.call({ method: 'GET', url: '/api/token/?p=0', cookie: alice })).body.data[0].status).toBe(3);
    const extended = await t.call({ method: 'PUT', url: '/api/token/', cookie: alice, payload: { ...key, expired_time: -1 } });
    expect(extended.body.data.status).toBe(1);
  });

  it('lists, searches and reads show the key masked as abcd****wxyz; only the owner\'s explicit key request returns it whole', async () => {
    const created = (await create(alice, { name: 'secret-key' })).body.data;
    const masked = `${created.key.slice(0, 4)}****${created.key.slice(-4)}`;
    for (const url of ['/api/token/?p=0', '/api/token/search?keyword=secret']) {
      const rows = (await t.call({ method: 'GET', url, cookie: alice })).body.data;
      expect(rows.map((r: { key: string }) => r.key)).toEqual([masked]);
      expect(JSON.stringify(rows)).not.toContain(created.key);
    }
    expect((await t.call({ method: 'GET', url: `/api/token/${created.id}`, cookie: alice })).body.data.key).toBe(masked);
    expect((await t.call({ method: 'PUT', url: '/api/token/?status_only=true', cookie: alice, payload: { id: created.id, status: 2 } })).body.data.key).toBe(masked);
    expect((await t.call({ method: 'POST', url: `/api/token/${created.id}/key`, cookie: alice })).body).toEqual({ success: true, message: '', data: { key: created.key } });
    // Another user, a GET, or nobody: no key.
    expect((await t.call({ method: 'POST', url: `/api/token/${created.id}/key`, cookie: bob })).body).toMatchObject({ success: false, message: '令牌不存在' });
    expect((await t.call({ method: 'GET', url: `/api/token/${created.id}/key`, cookie: alice })).status).toBe(404);
    expect((await t.call({ method: 'POST', url: `/api/token/${created.id}/key` })).status).toBe(401);
  });

  it('anonymous callers get 401', async () => {
    expect((await t.call({ method: 'GET', url: '/api/token/?p=0' })).status).toBe(401);
  });
});
