import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { LimitExceeded, UsageLimits, type LimitSubject } from './usage-limits.js';

const redisUrl = process.env.TEST_REDIS_URL;
const redis = redisUrl ? new Redis(redisUrl) : undefined;
afterAll(() => redis?.disconnect());

const stores: Array<[string, () => UsageLimits]> = [['memory', () => new UsageLimits(undefined)]];
if (redis) stores.push(['redis', () => new UsageLimits(redis)]);
const subject = (over: Partial<LimitSubject>): LimitSubject => ({ id: `key:${Math.random()}`, label: '令牌', rpm: 0, tpm: 0, daily: 0, monthly: 0, ...over });

describe.each(stores)('usage limits in %s', (_name, make) => {
  it('a burst of 30 against 10 requests per minute: exactly 10 admitted, the rest told when to retry', async () => {
    const limits = make();
    const key = subject({ rpm: 10 });
    const results = await Promise.allSettled(Array.from({ length: 30 }, () => limits.admit([key], 0)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    for (const r of results.filter((r) => r.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(LimitExceeded);
      expect((r as PromiseRejectedResult).reason.retryAfter).toBeGreaterThan(0);
      expect((r as PromiseRejectedResult).reason.retryAfter).toBeLessThanOrEqual(60);
    }
  });

  it('a refusal by the user limit takes back what the key limit had counted', async () => {
    const limits = make();
    const key = subject({ rpm: 5 });
    const user = subject({ id: `user:${Math.random()}`, label: '用户', rpm: 2 });
    await limits.admit([key, user], 0);
    await limits.admit([key, user], 0);
    await expect(limits.admit([key, user], 0)).rejects.toBeInstanceOf(LimitExceeded);
    // the key has 3 of 5 left: its own count was given back
    for (let i = 0; i < 3; i++) await limits.admit([key], 0);
    await expect(limits.admit([key], 0)).rejects.toBeInstanceOf(LimitExceeded);
  });

  it('tokens per minute: admission counts the estimate, settlement the real tokens', async () => {
    const limits = make();
    const key = subject({ tpm: 1_000 });
    const first = await limits.admit([key], 100);
    await limits.settle(first, { tokens: 900, charged: 0 });
    await expect(limits.admit([key], 200)).rejects.toThrow(/token/);
    const small = await limits.admit([key], 100);
    await limits.settle(small, { tokens: 50, charged: 0 });
    await limits.admit([key], 50);
  });

  it('quota per day: held at reservation, corrected at settlement, refused once spent', async () => {
    const limits = make();
    const key = subject({ daily: 1_000 });
    const a = await limits.admit([key], 0);
    await limits.hold(a, 800);
    const b = await limits.admit([key], 0);
    await expect(limits.hold(b, 300)).rejects.toBeInstanceOf(LimitExceeded);
    await limits.settle(a, { tokens: 0, charged: 100 });
    await limits.hold(b, 300);
    await limits.settle(b, { tokens: 0, charged: 300 });
    const c = await limits.admit([key], 0);
    await expect(limits.hold(c, 700)).rejects.toMatchObject({ message: expect.stringContaining('每日额度') });
    await limits.hold(c, 600);
  });
});
