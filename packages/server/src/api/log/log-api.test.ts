import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

let t: TestApp;
let root: string;
let amy: string;
let amyId: number;

beforeAll(async () => {
  t = await createTestApp();
  root = await t.login('root', '123456');
  await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'amy', password: 'password123' } });
  amy = await t.login('amy', 'password123');
  amyId = (await t.ctx.repositories.users.findByUsername('amy'))!.id;
  const logs = t.ctx.repositories.logs;
  await logs.insert({ user_id: amyId, username: 'amy', type: 2, created_at: 1000, quota: 40, model_name: 'gpt-4o', token_name: 'k1', channel_id: 3, prompt_tokens: 10, completion_tokens: 5, is_stream: 1 });
  await logs.insert({ user_id: amyId, username: 'amy', type: 2, created_at: 2000, quota: 60, model_name: 'gpt-4o-mini', token_name: 'k2', channel_id: 4 });
  await logs.insert({ user_id: amyId, username: 'amy', type: 1, created_at: 2500, quota: 999, content: '充值' });
  await logs.insert({ user_id: 1, username: 'root', type: 2, created_at: 3000, quota: 7, model_name: 'gpt-4o', token_name: 'k1', channel_id: 3 });
});
afterAll(async () => {
  await t.close();
});

describe('/api/log', () => {
  // covers S7-API-70, S6-ROLES-18, S3-ENTITY-26
  it('admins list every log with each filter', async () => {
    const all = await t.call({ method: 'GET', url: '/api/log/?p=0', cookie: root });
    expect(all.body.data).toHaveLength(4);
    expect(all.body.data[0]).toMatchObject({ username: 'root', channel: 3, type: 2 });
    const q = (query: string) => t.call({ method: 'GET', url: `/api/log/?p=0&${query}`, cookie: root }).then((r) => r.body.data.length);
    expect(await q('type=2')).toBe(3);
    expect(await q('username=amy')).toBe(3);
    expect(await q('token_name=k1')).toBe(2);
    expect(await q('model_name=gpt-4o')).toBe(2);
    expect(await q('channel=4')).toBe(1);
    expect(await q('start_timestamp=1500&end_timestamp=2600')).toBe(2);
    const first = (await t.call({ method: 'GET', url: '/api/log/?p=0&username=amy&type=2&model_name=gpt-4o', cookie: root })).body.data[0];
    expect(first).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, quota: 40, is_stream: true, token_name: 'k1' });
  });

  // covers S7-API-72
  it('the stat sums consumed quota under the filters', async () => {
    expect((await t.call({ method: 'GET', url: '/api/log/stat?username=amy', cookie: root })).body.data).toEqual({ quota: 100 });
    expect((await t.call({ method: 'GET', url: '/api/log/stat', cookie: root })).body.data).toEqual({ quota: 107 });
  });

  // covers S7-API-71, S7-API-73, S6-ROLES-07
  it('users see only their own logs and stats; username and channel filters do not widen them', async () => {
    const own = await t.call({ method: 'GET', url: '/api/log/self/?p=0&username=root&channel=3', cookie: amy });
    expect(own.body.data.every((l: { username: string }) => l.username === 'amy')).toBe(true);
    expect(own.body.data).toHaveLength(3);
    expect((await t.call({ method: 'GET', url: '/api/log/self/stat?model_name=gpt-4o-mini', cookie: amy })).body.data).toEqual({ quota: 60 });
    expect((await t.call({ method: 'GET', url: '/api/log/?p=0', cookie: amy })).body.success).toBe(false);
    expect((await t.call({ method: 'GET', url: '/api/log/stat', cookie: amy })).body.success).toBe(false);
  });

  // covers S4-STATES-24
  it('type 0 means all types', async () => {
    const all = await t.call({ method: 'GET', url: '/api/log/?p=0&type=0', cookie: root });
    expect(all.body.data.map((l: { type: number }) => l.type).sort()).toEqual([1, 2, 2, 2]);
    expect((await t.call({ method: 'GET', url: '/api/log/self/?p=0&type=0', cookie: amy })).body.data).toHaveLength(3);
    expect((await t.call({ method: 'GET', url: '/api/log/?p=0&type=1', cookie: root })).body.data.map((l: { content: string }) => l.content)).toEqual(['充值']);
  });

  // covers S7-API-34
  it('admins clear every log (any type) created before the time; data is the count cleared', async () => {
    const logs = t.ctx.repositories.logs;
    await logs.insert({ user_id: 0, username: '', type: 4, created_at: 1500, quota: 0, content: 'system note' });
    await logs.insert({ user_id: amyId, username: 'amy', type: 3, created_at: 2100, quota: 0, content: 'at the boundary' });
    const times = async () => (await t.ctx.storage.db.selectFrom('logs').select('created_at').orderBy('created_at').execute()).map((r) => Number(r.created_at));
    expect(await times()).toEqual([1000, 1500, 2000, 2100, 2500, 3000]);
    expect((await t.call({ method: 'DELETE', url: '/api/log/?target_timestamp=2100', cookie: amy })).body.success).toBe(false);
    expect((await t.call({ method: 'DELETE', url: '/api/log/?target_timestamp=abc', cookie: root })).body.success).toBe(false);
    expect(await times()).toHaveLength(6);
    expect((await t.call({ method: 'DELETE', url: '/api/log/?target_timestamp=2100', cookie: root })).body).toMatchObject({ success: true, data: 3 });
    expect(await times()).toEqual([2100, 2500, 3000]);
    expect((await t.call({ method: 'DELETE', url: '/api/log/?target_timestamp=2100', cookie: root })).body).toMatchObject({ success: true, data: 0 });
  });
});
