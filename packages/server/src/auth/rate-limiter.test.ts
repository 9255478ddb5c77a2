import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './rate-limiter.js';

const redisUrl = process.env.TEST_REDIS_URL;
const redis = redisUrl ? new Redis(redisUrl) : undefined;
afterAll(() => redis?.disconnect());

const limiters: Array<[string, () => RateLimiter]> = [['memory', () => new MemoryRateLimiter()]];
if (redis) limiters.push(['redis', () => new RedisRateLimiter(redis)]);

describe.each(limiters)('%s rate limiter', (_name, make) => {
  it('allows up to the limit per key in a window, then refuses', async () => {
    const limiter = make();
    const key = `test:${Date.now()}:${Math.random()}`;
    const results: boolean[] = [];
    for (let i = 0; i < 5; i++) results.push(await limiter.hit(key, 3, 60));
    expect(results).toEqual([true, true, true, false, false]);
    expect(await limiter.hit(`${key}:other`, 3, 60)).toBe(true);
  });

  it('opens a new window once the old one expires', async () => {
    const limiter = make();
    const key = `test:${Date.now()}:${Math.random()}`;
    expect(await limiter.hit(key, 1, 1)).toBe(true);
    expect(await limiter.hit(key, 1, 1)).toBe(false);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await limiter.hit(key, 1, 1)).toBe(true);
  });

  it('a limit of 0 turns the limiter off', async () => {
    const limiter = make();
    for (let i = 0; i < 10; i++) expect(await limiter.hit('off', 0, 60)).toBe(true);
  });
});

it('the redis limiter is shared between instances', async () => {
  if (!redis) return;
  const a = new RedisRateLimiter(redis);
  const b = new RedisRateLimiter(redis);
  const key = `shared:${Date.now()}:${Math.random()}`;
  expect(await a.hit(key, 2, 60)).toBe(true);
  expect(await b.hit(key, 2, 60)).toBe(true);
  expect(await a.hit(key, 2, 60)).toBe(false);
});
