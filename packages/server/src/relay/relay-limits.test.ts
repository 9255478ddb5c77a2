import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';

/** Limits on /v1 (issue 11): OpenAI-style 429 with Retry-After, per key, per user and per group default. */
let t: TestApp;
let mock: MockUpstream;
let serial = 0;

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp();
  await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini', group: 'default,vip' });
});
afterAll(async () => {
  await t.close();
  await mock.close();
});

async function user(group = 'default', limits: Partial<Record<'rpm_limit' | 'daily_quota_limit', number>> = {}) {
  serial++;
  const id = await seedUser(t.ctx.storage, `lim${serial}`, 1_000_000, `LIM${serial}`, { group });
  if (Object.keys(limits).length) await t.ctx.storage.db.updateTable('users').set(limits).where('id', '=', id).execute();
  return id;
}

const call = (key: string) =>
  t.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { authorization: `Bearer sk-${key}` }, payload: { model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } });

describe('limits on /v1', () => {
  it('a key with 3 requests per minute: the fourth is refused with 429, rate_limit_exceeded and Retry-After', async () => {
    const token = await seedToken(t.ctx.storage, await user(), { remain_quota: 100_000 });
    await t.ctx.storage.db.updateTable('tokens').set({ rpm_limit: 3 }).where('id', '=', token.id).execute();
    for (let i = 0; i < 3; i++) expect((await call(token.key)).statusCode).toBe(200);
    const refused = await call(token.key);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded', message: expect.stringContaining('令牌每分钟请求次数已达上限') });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // another key of the same user is not limited by it
    const other = await seedToken(t.ctx.storage, token.id ? (await t.ctx.storage.db.selectFrom('tokens').select('user_id').where('id', '=', token.id).executeTakeFirstOrThrow()).user_id : 0, { remain_quota: 100_000 });
    expect((await call(other.key)).statusCode).toBe(200);
  });

  it("a user without limits of their own gets their group's (GroupLimits), across all their keys", async () => {
    await t.ctx.options.set('GroupLimits', JSON.stringify({ vip: { rpm: 2 } }));
    const owner = await user('vip');
    const a = await seedToken(t.ctx.storage, owner, { remain_quota: 100_000 });
    const b = await seedToken(t.ctx.storage, owner, { remain_quota: 100_000 });
    expect((await call(a.key)).statusCode).toBe(200);
    expect((await call(b.key)).statusCode).toBe(200);
    const refused = await call(a.key);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.message).toContain('用户每分钟请求次数已达上限');
    await t.ctx.options.set('GroupLimits', '{}');
  });

  it('quota per day: a request whose hold would pass it is refused and its reservation given back', async () => {
    // Each request holds PreConsumedQuota (500) and costs 4: a second hold would pass 503 until the day ends.
    const owner = await user('default', { daily_quota_limit: 503 });
    const token = await seedToken(t.ctx.storage, owner, { remain_quota: 100_000 });
    expect((await call(token.key)).statusCode).toBe(200);
    for (let i = 0; i < 100 && (await t.ctx.storage.db.selectFrom('quota_reservations').select('id').where('token_id', '=', token.id).execute()).length > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const before = await t.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', owner).executeTakeFirstOrThrow();
    expect(1_000_000 - Number(before.quota)).toBe(4);
    const refused = await call(token.key);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.message).toContain('用户每日额度已达上限');
    const untilMidnight = (new Date(new Date().getFullYear(), new Date().getMonth(), new Date().getDate() + 1).getTime() - Date.now()) / 1000;
    expect(Math.abs(Number(refused.headers['retry-after']) - untilMidnight)).toBeLessThan(5);
    await new Promise((r) => setTimeout(r, 50));
    const after = await t.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', owner).executeTakeFirstOrThrow();
    expect(after.quota).toBe(before.quota);
    expect(await t.ctx.storage.db.selectFrom('quota_reservations').selectAll().where('token_id', '=', token.id).execute()).toEqual([]);
  });
});
