import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

let t: TestApp;
let root: string;
let amy: string;
let amyId: number;

beforeAll(async () => {
  t = await createTestApp();
  root = await t.login('root', '123456');
  for (const username of ['amy', 'boss']) await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username, password: 'password123' } });
  amyId = (await t.ctx.repositories.users.findByUsername('amy'))!.id;
  await t.call({ method: 'POST', url: '/api/user/manage', cookie: root, payload: { username: 'boss', action: 'promote' } });
  amy = await t.login('amy', 'password123');
});
afterAll(async () => {
  await t.close();
});

const limits = { rpm_limit: 30, tpm_limit: 100_000, daily_quota_limit: 1_000_000, monthly_quota_limit: 20_000_000 };
const update = (cookie: string, payload: Record<string, unknown>) => t.call({ method: 'PUT', url: '/api/user/', cookie, payload });
const read = async (id: number) => (await t.call({ method: 'GET', url: `/api/user/${id}`, cookie: root })).body.data;

describe('per-user limits on PUT /api/user/ (admin)', () => {
  it('users start without limits; an admin sets them, and every read returns them', async () => {
    expect(await read(amyId)).toMatchObject({ rpm_limit: 0, tpm_limit: 0, daily_quota_limit: 0, monthly_quota_limit: 0 });
    expect((await update(root, { id: amyId, ...limits })).body.success).toBe(true);
    expect(await read(amyId)).toMatchObject(limits);
    expect((await t.call({ method: 'GET', url: '/api/user/self', cookie: amy })).body.data).toMatchObject(limits);
  });

  it('a partial update leaves absent limits as they are; 0 clears one', async () => {
    await update(root, { id: amyId, ...limits });
    expect((await update(root, { id: amyId, display_name: 'Amy', rpm_limit: 0 })).body.success).toBe(true);
    expect(await read(amyId)).toMatchObject({ ...limits, rpm_limit: 0, display_name: 'Amy' });
  });

  it('refuses bad values with a clear message and changes nothing', async () => {
    await update(root, { id: amyId, ...limits });
    for (const [payload, message] of [
      [{ rpm_limit: -1 }, '每分钟请求数限制必须是非负整数（0 表示不限制）'],
      [{ tpm_limit: 'many' }, '每分钟 tokens 数限制必须是非负整数（0 表示不限制）'],
      [{ daily_quota_limit: 0.5 }, '每日额度限制必须是非负整数（0 表示不限制）'],
      [{ monthly_quota_limit: -7 }, '每月额度限制必须是非负整数（0 表示不限制）'],
      [{ rpm_limit: 3_000_000_000 }, '每分钟请求数限制过大'],
    ] as const) {
      expect((await update(root, { id: amyId, display_name: 'changed', ...payload })).body).toMatchObject({ success: false, message });
    }
    expect(await read(amyId)).toMatchObject({ ...limits, display_name: 'Amy' });
  });

  it('users cannot set their own limits; admins cannot set an equal admin\'s', async () => {
    expect((await update(amy, { id: amyId, rpm_limit: 0 })).body).toMatchObject({ success: false, message: '无权进行此操作，权限不足' });
    // PUT /api/user/self takes no limits: they are dropped, not applied
    expect((await t.call({ method: 'PUT', url: '/api/user/self', cookie: amy, payload: { display_name: 'Amy', rpm_limit: 0, daily_quota_limit: 0 } })).body.success).toBe(true);
    expect(await read(amyId)).toMatchObject(limits);
    const boss = await t.login('boss', 'password123');
    await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'boss2', password: 'password123' } });
    await t.call({ method: 'POST', url: '/api/user/manage', cookie: root, payload: { username: 'boss2', action: 'promote' } });
    const boss2Id = (await t.ctx.repositories.users.findByUsername('boss2'))!.id;
    expect((await update(boss, { id: boss2Id, rpm_limit: 1 })).body.success).toBe(false);
    expect((await update(boss, { id: amyId, rpm_limit: 7 })).body.success).toBe(true);
    expect((await read(amyId)).rpm_limit).toBe(7);
  });
});

describe('GroupLimits (运营设置): per-group defaults, validated as JSON of non-negative integer limits', () => {
  const save = (value: string) => t.call({ method: 'PUT', url: '/api/option/', cookie: root, payload: { key: 'GroupLimits', value } });
  const stored = async () => (await t.call({ method: 'GET', url: '/api/option/', cookie: root })).body.data.find((o: { key: string }) => o.key === 'GroupLimits').value;

  it('takes a valid map and refuses anything else, keeping the last good value', async () => {
    expect(await stored()).toBe('{}');
    const good = '{"default":{"rpm":60,"daily":500000},"vip":{"tpm":1000000,"monthly":0}}';
    expect((await save(good)).body.success).toBe(true);
    expect(await stored()).toBe(good);
    const message = '分组限额不是合法的 JSON：每个分组的 rpm、tpm、daily、monthly 必须是非负整数';
    for (const bad of ['{', '[]', '{"default":5}', '{"default":{"rpm":-1}}', '{"default":{"rpm":1.5}}', '{"default":{"burst":3}}', '{"default":{"rpm":"60"}}']) {
      expect((await save(bad)).body, bad).toMatchObject({ success: false, message });
    }
    expect(await stored()).toBe(good);
    expect((await t.call({ method: 'PUT', url: '/api/option/', cookie: amy, payload: { key: 'GroupLimits', value: '{}' } })).body.success).toBe(false);
  });
});
