import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { MemorySharedStore, RedisSharedStore, type SharedStore } from './shared-store.js';

const redisUrl = process.env.TEST_REDIS_URL;
const redis = redisUrl ? new Redis(redisUrl) : undefined;
afterAll(() => redis?.disconnect());

const stores: Array<[string, () => SharedStore]> = [['memory', () => new MemorySharedStore()]];
if (redis) stores.push(['redis', () => new RedisSharedStore(redis)]);
const unique = () => `test:${Date.now()}:${Math.random()}`;

describe.each(stores)('%s shared store', (_name, make) => {
  it('keeps a value until it expires', async () => {
    const store = make();
    const key = unique();
    await store.set(key, 'v', 1);
    expect(await store.get(key)).toBe('v');
    await new Promise((r) => setTimeout(r, 1100));
    expect(await store.get(key)).toBeUndefined();
  });

  it('take hands a value to exactly one of many concurrent takers', async () => {
    const store = make();
    const key = unique();
    await store.set(key, 'code', 60);
    const taken = await Promise.all(Array.from({ length: 20 }, () => store.take(key)));
    expect(taken.filter((v) => v === 'code')).toHaveLength(1);
    expect(await store.get(key)).toBeUndefined();
  });

  it('setIfAbsent lets the first writer win', async () => {
    const store = make();
    const key = unique();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store.setIfAbsent(key, String(i), 60)));
    expect(results.filter(Boolean)).toHaveLength(1);
    await store.delete(key);
    expect(await store.setIfAbsent(key, 'again', 60)).toBe(true);
  });
});

it('two redis stores (two instances) see each other', async () => {
  if (!redis) return;
  const a = new RedisSharedStore(redis);
  const second = new Redis(redisUrl!);
  const b = new RedisSharedStore(second);
  const key = unique();
  await a.set(key, 'from-a', 60);
  expect(await b.take(key)).toBe('from-a');
  expect(await a.get(key)).toBeUndefined();
  second.disconnect();
});
