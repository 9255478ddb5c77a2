import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisRateLimiter, type RateLimiter } from '../../auth/rate-limiter.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

let t: TestApp;
let root: string;
let alice: string;

async function setUp(env: Record<string, string> = {}) {
  t = await createTestApp(env);
  root = await t.login('root', '123456');
  await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'alice', password: 'password123' } });
  alice = await t.login('alice', 'password123');
}
afterEach(async () => {
  await t?.close();
});

const call = (cookie: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => t.call({ method, url, cookie, payload });
const create = (payload: object) => call(root, 'POST', '/api/redemption/', payload);
const redeem = (cookie: string, key: unknown) => call(cookie, 'POST', '/api/user/topup', { key });
const self = async (cookie: string) => (await call(cookie, 'GET', '/api/user/self')).body.data;

describe('/api/redemption', () => {
  beforeEach(() => setUp());

  // covers S7-API-65, S3-ENTITY-25, S5-VALID-55, S5-VALID-56
  it('creates count codes of 32 hex digits and returns them; defaults quota 100000 and count 1', async () => {
    const res = await create({ name: 'launch', quota: 250000, count: 3 });
    expect(res.body.success).toBe(true);
    expect(res.body.data).toHaveLength(3);
    for (const key of res.body.data) expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(res.body.data).size).toBe(3);
    const one = await create({ name: 'plain' });
    expect(one.body.data).toHaveLength(1);
    const listed = (await call(root, 'GET', '/api/redemption/?p=0')).body.data;
    expect(listed[0]).toMatchObject({ name: 'plain', quota: 100000, status: 1, redeemed_time: 0, used_user_id: 0, key: one.body.data[0] });
    expect(Object.keys(listed[0]).sort()).toEqual(['created_time', 'id', 'key', 'name', 'quota', 'redeemed_time', 'status', 'used_user_id', 'user_id']);
    expect(listed[0].created_time).toBeGreaterThan(0);
  });

  // covers S5-VALID-52, S5-VALID-53, S5-VALID-54
  it('refuses a missing name, a non-integer or non-positive quota, and a count outside 1..100, creating nothing', async () => {
    expect((await create({ name: '  ', quota: 10, count: 1 })).body).toMatchObject({ success: false, message: '请输入兑换码名称' });
    expect((await create({ name: 'x'.repeat(21) })).body).toMatchObject({ success: false, message: '兑换码名称不得超过 20 个字符' });
    expect((await create({ name: 'a', quota: 1.5 })).body).toMatchObject({ success: false, message: '额度必须是正整数' });
    expect((await create({ name: 'a', quota: 0 })).body).toMatchObject({ success: false, message: '额度必须是正整数' });
    expect((await create({ name: 'a', quota: 'many' })).body).toMatchObject({ success: false, message: '额度必须是正整数' });
    expect((await create({ name: 'a', count: 101 })).body).toMatchObject({ success: false, message: '生成数量必须是 1 到 100 之间的整数' });
    expect((await create({ name: 'a', count: 0 })).body.success).toBe(false);
    // Numbers sent as text are parsed (the form sends integers, scripts may send strings).
    expect((await create({ name: 'text', quota: '300', count: '2' })).body.data).toHaveLength(2);
    expect((await call(root, 'GET', '/api/redemption/?p=0')).body.data.map((r: { name: string }) => r.name)).toEqual(['text', 'text']);
  });

  // covers S7-API-62, S7-API-63, S7-API-64
  it('lists ten per page newest first, searches by exact id or name prefix, reads one', async () => {
    for (let i = 0; i < 12; i++) await create({ name: `batch-${i}` });
    await create({ name: 'other' });
    const page0 = (await call(root, 'GET', '/api/redemption/?p=0')).body.data;
    expect(page0).toHaveLength(10);
    expect(page0[0].name).toBe('other');
    expect((await call(root, 'GET', '/api/redemption/?p=1')).body.data).toHaveLength(3);
    const byName = (await call(root, 'GET', '/api/redemption/search?keyword=batch-1')).body.data.map((r: { name: string }) => r.name);
    expect(byName.sort()).toEqual(['batch-1', 'batch-10', 'batch-11']);
    const id = page0[3].id;
    expect((await call(root, 'GET', `/api/redemption/search?keyword=${id}`)).body.data.map((r: { id: number }) => r.id)).toEqual([id]);
    expect((await call(root, 'GET', '/api/redemption/search?keyword=b%25')).body.data).toEqual([]);
    expect((await call(root, 'GET', `/api/redemption/${id}`)).body.data).toMatchObject({ id, name: page0[3].name });
    expect((await call(root, 'GET', '/api/redemption/99999')).body).toMatchObject({ success: false, message: '兑换码不存在' });
  });

  // covers S7-API-67, S7-API-68, S7-API-69, S4-STATES-22, S4-STATES-23
  it('updates name and quota, toggles 1 <-> 2 with the status-only update, freezes used codes, deletes', async () => {
    const [key] = (await create({ name: 'edit-me', quota: 1000 })).body.data;
    const { id } = (await call(root, 'GET', '/api/redemption/?p=0')).body.data[0];
    const updated = await call(root, 'PUT', '/api/redemption/', { id, name: 'renamed', quota: 2000 });
    expect(updated.body.data).toMatchObject({ id, name: 'renamed', quota: 2000, status: 1, key });
    expect((await call(root, 'PUT', '/api/redemption/', { id, name: '', quota: 5 })).body).toMatchObject({ success: false, message: '请输入兑换码名称' });
    expect((await call(root, 'PUT', '/api/redemption/?status_only=true', { id, status: 2 })).body.data.status).toBe(2);
    expect((await redeem(alice, key)).body).toMatchObject({ success: false, message: '该兑换码已被禁用' });
    expect((await call(root, 'PUT', '/api/redemption/?status_only=true', { id, status: 3 })).body).toMatchObject({ success: false, message: '兑换码状态只能在未使用与已禁用之间切换' });
    expect((await call(root, 'PUT', '/api/redemption/?status_only=true', { id, status: 1 })).body.data.status).toBe(1);
    expect((await redeem(alice, key)).body).toEqual({ success: true, message: '', data: 2000 });
    // A used code is history: no toggle, no edit.
    expect((await call(root, 'PUT', '/api/redemption/?status_only=true', { id, status: 2 })).body).toMatchObject({ success: false, message: '兑换码已被使用，不能再修改' });
    expect((await call(root, 'PUT', '/api/redemption/', { id, name: 'again', quota: 1 })).body).toMatchObject({ success: false, message: '兑换码已被使用，不能再修改' });
    const used = (await call(root, 'GET', `/api/redemption/${id}`)).body.data;
    expect(used).toMatchObject({ status: 3, name: 'renamed', quota: 2000, used_user_id: (await self(alice)).id });
    expect(used.redeemed_time).toBeGreaterThan(0);
    expect((await call(root, 'DELETE', `/api/redemption/${id}/`)).body.success).toBe(true);
    expect((await call(root, 'GET', `/api/redemption/${id}`)).body.success).toBe(false);
    expect((await call(root, 'DELETE', `/api/redemption/${id}/`)).body).toMatchObject({ success: false, message: '兑换码不存在' });
  });

  it('is for admins only, enforced by the server: ordinary users are refused and visitors get 401', async () => {
    const [key] = (await create({ name: 'guarded' })).body.data;
    const { id } = (await call(root, 'GET', '/api/redemption/?p=0')).body.data[0];
    const requests = [
      ['GET', '/api/redemption/?p=0'], ['GET', '/api/redemption/search?keyword=g'], ['GET', `/api/redemption/${id}`],
      ['POST', '/api/redemption/'], ['PUT', '/api/redemption/'], ['PUT', '/api/redemption/?status_only=true'], ['DELETE', `/api/redemption/${id}/`],
    ] as const;
    for (const [method, url] of requests) {
      const asUser = await call(alice, method, url, { id, name: 'mine', quota: 1, status: 2 });
      expect(asUser.body, `${method} ${url}`).toMatchObject({ success: false, message: '无权进行此操作，权限不足' });
      expect((await t.call({ method, url })).status, `${method} ${url}`).toBe(401);
    }
    // Nothing changed: the code is still there, unused, and redeemable.
    expect((await call(root, 'GET', `/api/redemption/${id}`)).body.data).toMatchObject({ name: 'guarded', status: 1 });
    expect((await redeem(alice, key)).body.success).toBe(true);
  });
});

describe('POST /api/user/topup', () => {
  beforeEach(() => setUp());

  // covers S7-API-20, S6-ROLES-06
  it('credits the caller once, answers the quota added and writes a top-up log row the user sees', async () => {
    const [key] = (await create({ name: 'gift', quota: 1_500_000 })).body.data;
    const before = (await self(alice)).quota;
    expect((await redeem(alice, `  ${key}  `)).body).toEqual({ success: true, message: '', data: 1_500_000 });
    expect((await self(alice)).quota).toBe(before + 1_500_000);
    expect((await redeem(alice, key)).body).toMatchObject({ success: false, message: '该兑换码已被使用' });
    expect((await self(alice)).quota).toBe(before + 1_500_000);
    const logs = (await call(alice, 'GET', '/api/log/self/?p=0&type=1')).body.data;
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ type: 1, quota: 1_500_000, username: 'alice' });
    expect(logs[0].content).toMatch(/^通过兑换码充值 \$3\.00，兑换码 ID \d+$/);
  });

  it('refuses an empty, unknown or malformed code with a clear message and credits nothing', async () => {
    const before = (await self(alice)).quota;
    expect((await redeem(alice, '')).body).toMatchObject({ success: false, message: '请输入兑换码！' });
    expect((await call(alice, 'POST', '/api/user/topup', {})).body).toMatchObject({ success: false, message: '请输入兑换码！' });
    expect((await redeem(alice, 'nope')).body).toMatchObject({ success: false, message: '无效的兑换码' });
    expect((await redeem(alice, 'x'.repeat(500))).body).toMatchObject({ success: false, message: '无效的兑换码' });
    expect((await redeem(alice, 42)).body.success).toBe(false);
    expect((await self(alice)).quota).toBe(before);
    expect((await t.call({ method: 'POST', url: '/api/user/topup', payload: { key: 'x' } })).status).toBe(401);
  });
});

describe('guessing codes is rate-limited', () => {
  const redisUrl = process.env.TEST_REDIS_URL;
  const redis = redisUrl ? new Redis(redisUrl) : undefined;
  afterAll(() => redis?.disconnect());

  const attempts = async (cookie: string, n: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) statuses.push((await redeem(cookie, `guess-${i}`)).status);
    return statuses;
  };

  it('per user: after REDEEM_RATE_LIMIT attempts a minute the user gets 429, even with a valid code', async () => {
    await setUp({ REDEEM_RATE_LIMIT: '3' });
    const [key] = (await create({ name: 'real' })).body.data;
    expect(await attempts(alice, 3)).toEqual([200, 200, 200]);
    const limited = await redeem(alice, key);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, message: '兑换过于频繁，请稍后再试' });
    // The code was not touched: another user can still redeem it.
    await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'bob', password: 'password123' } });
    const bob = await t.login('bob', 'password123');
    expect((await redeem(bob, key)).body.success).toBe(true);
  });

  it('per IP: many accounts from one address share three times the per-user limit', async () => {
    await setUp({ REDEEM_RATE_LIMIT: '2' });
    const cookies = [alice];
    for (const name of ['bob', 'carol', 'dave']) {
      await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: name, password: 'password123' } });
      cookies.push(await t.login(name, 'password123'));
    }
    const statuses = [...(await attempts(cookies[0], 2)), ...(await attempts(cookies[1], 2)), ...(await attempts(cookies[2], 2)), ...(await attempts(cookies[3], 2))];
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });

  it.runIf(Boolean(redis))('with Redis the limit is the cluster\'s: two instances count the same attempts', async () => {
    await setUp({ REDEEM_RATE_LIMIT: '4' });
    const first = t;
    const prefix = `test-redeem:${Date.now()}:${Math.random()}:`;
    // Each instance has its own limiter on the one Redis, as in production; the prefix keeps test runs apart.
    const limiter = (): RateLimiter => {
      const inner = new RedisRateLimiter(redis!);
      return { hit: (key, limit, window) => inner.hit(prefix + key, limit, window) };
    };
    first.ctx.rateLimiter = limiter();
    expect(await attempts(alice, 2)).toEqual([200, 200]);
    // A second instance: its own app and limiter, where alice has the same user id (the first user after root).
    // Together the two may allow 4 attempts a minute, not 4 each.
    const second = await createTestApp({ REDEEM_RATE_LIMIT: '4' });
    try {
      second.ctx.rateLimiter = limiter();
      const rootB = await second.login('root', '123456');
      await second.call({ method: 'POST', url: '/api/user/', cookie: rootB, payload: { username: 'alice', password: 'password123' } });
      const aliceB = await second.login('alice', 'password123');
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await second.call({ method: 'POST', url: '/api/user/topup', cookie: aliceB, payload: { key: `g${i}` } })).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await second.close();
    }
  });
});
