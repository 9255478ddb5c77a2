import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

let t: TestApp;
let alice: string;
let bob: string;

beforeAll(async () => {
  t = await createTestApp();
  const root = await t.login('root', '123456');
  for (const name of ['alice', 'bob']) await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: name, password: 'password123' } });
  alice = await t.login('alice', 'password123');
  bob = await t.login('bob', 'password123');
});
afterAll(async () => {
  await t.close();
});

const create = (cookie: string, payload: Record<string, unknown>) => t.call({ method: 'POST', url: '/api/token/', cookie, payload });
const limits = { rpm_limit: 10, tpm_limit: 20_000, daily_quota_limit: 500_000, monthly_quota_limit: 9_000_000 };

describe('/api/token limits (requests / tokens per minute, quota per day / month)', () => {
  it('a new key has no limits unless given; given ones are stored and returned by every read', async () => {
    const plain = await create(alice, { name: 'plain' });
    expect(plain.body.data).toMatchObject({ rpm_limit: 0, tpm_limit: 0, daily_quota_limit: 0, monthly_quota_limit: 0 });
    const capped = await create(alice, { name: 'capped', ...limits });
    expect(capped.body.data).toMatchObject(limits);
    const id = capped.body.data.id;
    expect((await t.call({ method: 'GET', url: `/api/token/${id}`, cookie: alice })).body.data).toMatchObject(limits);
    expect((await t.call({ method: 'GET', url: '/api/token/?p=0', cookie: alice })).body.data.find((k: { id: number }) => k.id === id)).toMatchObject(limits);
    // strings from a form are numbers too
    expect((await create(alice, { name: 'text', rpm_limit: '5', daily_quota_limit: '100' })).body.data).toMatchObject({ rpm_limit: 5, daily_quota_limit: 100 });
  });

  it('a full update sets, changes and clears them (0 = none); the status toggle leaves them alone', async () => {
    const id = (await create(alice, { name: 'changing', ...limits })).body.data.id;
    const update = (payload: Record<string, unknown>) => t.call({ method: 'PUT', url: '/api/token/', cookie: alice, payload: { id, name: 'changing', ...payload } });
    expect((await update({ ...limits, rpm_limit: 60 })).body.data).toMatchObject({ ...limits, rpm_limit: 60 });
    expect((await t.call({ method: 'PUT', url: '/api/token/?status_only=true', cookie: alice, payload: { id, status: 2 } })).body.data).toMatchObject({ status: 2, rpm_limit: 60 });
    expect((await update({ rpm_limit: 0, tpm_limit: 0, daily_quota_limit: 0, monthly_quota_limit: 0 })).body.data).toMatchObject({ rpm_limit: 0, tpm_limit: 0, daily_quota_limit: 0, monthly_quota_limit: 0 });
    // another user cannot change them
    expect((await t.call({ method: 'PUT', url: '/api/token/', cookie: bob, payload: { id, name: 'x', rpm_limit: 1 } })).body).toMatchObject({ success: false, message: '令牌不存在' });
  });

  it('refuses negative, fractional, non-numeric and oversized limits with a clear message, storing nothing', async () => {
    const before = (await t.call({ method: 'GET', url: '/api/token/?p=0', cookie: alice })).body.data.length;
    const refusal = async (payload: Record<string, unknown>) => (await create(alice, { name: 'bad', ...payload })).body;
    expect(await refusal({ rpm_limit: -1 })).toMatchObject({ success: false, message: '每分钟请求数限制必须是非负整数（0 表示不限制）' });
    expect(await refusal({ tpm_limit: 1.5 })).toMatchObject({ success: false, message: '每分钟 tokens 数限制必须是非负整数（0 表示不限制）' });
    expect(await refusal({ daily_quota_limit: 'lots' })).toMatchObject({ success: false, message: '每日额度限制必须是非负整数（0 表示不限制）' });
    expect(await refusal({ monthly_quota_limit: -100 })).toMatchObject({ success: false, message: '每月额度限制必须是非负整数（0 表示不限制）' });
    expect(await refusal({ rpm_limit: 2 ** 31 })).toMatchObject({ success: false, message: '每分钟请求数限制过大' });
    // beyond 2^53 a double is not an exact integer any more
    expect(await refusal({ daily_quota_limit: 2 ** 60 })).toMatchObject({ success: false, message: '每日额度限制必须是非负整数（0 表示不限制）' });
    expect((await t.call({ method: 'GET', url: '/api/token/?p=0', cookie: alice })).body.data).toHaveLength(before);
  });
});
