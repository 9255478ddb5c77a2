import { Redis, type RedisOptions } from 'ioredis';
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

  it('a request refused by its user\'s tokens per minute counts nothing, so the key\'s next request is admitted', async () => {
    const limits = make();
    const key = subject({ rpm: 1, tpm: 10_000 });
    const user = subject({ id: `user:${Math.random()}`, label: '用户', rpm: 5, tpm: 100 });
    await expect(limits.admit([key, user], 1_000)).rejects.toMatchObject({ message: '用户每分钟 token 数已达上限（100）' });
    const admitted = await limits.admit([key, user], 10);
    expect(admitted.tokens).toBe(10);
    await expect(limits.admit([key, user], 10)).rejects.toMatchObject({ message: '令牌每分钟请求次数已达上限（1）' });
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

describe.each(stores.map(([name]) => name))('usage limits in %s, across midnight', (name) => {
  it('a request held before midnight and settled after it corrects the day it was held on, not the new one', async () => {
    let now = new Date(2026, 10, 27, 23, 59, 50);
    const limits = new UsageLimits(name === 'redis' ? redis : undefined, undefined, () => now);
    const key = subject({ daily: 1_000 });
    const late = await limits.admit([key], 0);
    await limits.hold(late, 900);
    now = new Date(2026, 10, 28, 0, 0, 10);
    // It cost 100 of the 900 held: yesterday's counter goes down to 100, today's is untouched.
    await limits.settle(late, { tokens: 0, charged: 100 });
    const today = await limits.admit([key], 0);
    await limits.hold(today, 1_000);
    await expect(limits.hold(await limits.admit([key], 0), 1)).rejects.toMatchObject({ message: '令牌每日额度已达上限' });
    now = new Date(2026, 10, 27, 23, 59, 55);
    await limits.hold(await limits.admit([key], 0), 900);
    await expect(limits.hold(await limits.admit([key], 0), 1)).rejects.toBeInstanceOf(LimitExceeded);
  });
});

describe.each(stores.map(([name]) => name))('usage limits in %s, a minute window that ended', (name) => {
  it('a settlement taking back an estimate after its minute ended leaves the next minute alone', async () => {
    let now = new Date(2026, 10, 28, 10, 0, 0);
    const limits = new UsageLimits(name === 'redis' ? redis : undefined, undefined, () => now);
    const key = subject({ tpm: 1_000 });
    if (redis && name === 'redis') {
      // A window with 1.5 s left (Redis keeps the real time): the estimate below is counted in it, then it ends.
      await redis.set(`mr:limit:tpm:minute:${key.id}`, 0, 'PX', 1_500);
    }
    const early = await limits.admit([key], 800);
    if (redis && name === 'redis') await expect.poll(() => redis.exists(`mr:limit:tpm:minute:${key.id}`), { timeout: 10_000 }).toBe(0);
    now = new Date(now.getTime() + 61_000);
    await limits.admit([key], 900);
    // It used 100 of the 800 estimated, in a minute that has ended: the 900 of the running minute stay counted.
    await limits.settle(early, { tokens: 100, charged: 0 });
    await expect(limits.admit([key], 200)).rejects.toMatchObject({ message: '令牌每分钟 token 数已达上限（1000）' });
    await limits.admit([key], 100);
  });

  it('within its minute the same settlement takes the estimate back', async () => {
    const limits = name === 'redis' ? new UsageLimits(redis) : new UsageLimits(undefined);
    const key = subject({ tpm: 1_000 });
    const early = await limits.admit([key], 800);
    await limits.admit([key], 200);
    await limits.settle(early, { tokens: 100, charged: 0 });
    await limits.admit([key], 700);
    await expect(limits.admit([key], 1)).rejects.toMatchObject({ message: '令牌每分钟 token 数已达上限（1000）' });
  });
});

describe('usage limits without Redis at hand', () => {
  it('a store that cannot be reached lets every step through and reports it', async () => {
    const errors: unknown[] = [];
    const unreachable = new Redis({ port: 1, lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    const limits = new UsageLimits(unreachable, (error) => errors.push(error));
    const key = subject({ rpm: 1, tpm: 10, daily: 10, monthly: 10 });
    for (let i = 0; i < 3; i++) {
      const admission = await limits.admit([key], 100);
      await limits.hold(admission, 100);
      await limits.settle(admission, { tokens: 200, charged: 200 });
    }
    expect(errors).toHaveLength(9);
    unreachable.disconnect();
  });

  it('in memory, a minute window ends a minute after its first request and a day counter with its day', async () => {
    let now = new Date(2026, 10, 27, 23, 59, 0);
    const limits = new UsageLimits(undefined, undefined, () => now);
    const key = subject({ rpm: 1, daily: 100 });
    const first = await limits.admit([key], 0);
    await limits.hold(first, 100);
    now = new Date(now.getTime() + 20_000);
    await expect(limits.admit([key], 0)).rejects.toMatchObject({ retryAfter: 40 });
    now = new Date(now.getTime() + 40_000);
    const next = await limits.admit([key], 0);
    // a new day: the quota spent yesterday does not count
    await limits.hold(next, 100);
    await expect(limits.hold(await limits.admit([subject({ id: key.id, daily: 100 })], 0), 1)).rejects.toMatchObject({ message: '令牌每日额度已达上限', retryAfter: 86_400 });
  });
});

describe.skipIf(!redis)('usage limits in Redis, several instances', () => {
  // Two instances of the gateway, each with its own connection to the shared Redis.
  const clients: Redis[] = [];
  const connect = (options: RedisOptions = {}) => {
    const client = new Redis(redisUrl!, options);
    clients.push(client);
    return client;
  };
  afterAll(() => clients.forEach((c) => c.disconnect()));

  it('a burst of 40 over two instances against a key and its user (10 per minute each) admits exactly 10', async () => {
    const instances = [new UsageLimits(connect()), new UsageLimits(connect())];
    const key = subject({ rpm: 10, tpm: 100_000 });
    const user = subject({ id: `user:${Math.random()}`, label: '用户', rpm: 10, tpm: 100_000 });
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => instances[i % 2].admit([key, user], 100)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    expect(results.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason instanceof LimitExceeded)).toBe(true);
  });

  it('tokens per minute over two instances: 30 requests of 100 tokens against 1,000 admit exactly 10', async () => {
    const instances = [new UsageLimits(connect()), new UsageLimits(connect())];
    const user = subject({ id: `user:${Math.random()}`, label: '用户', tpm: 1_000 });
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => instances[i % 2].admit([user], 100)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
  });

  it('a request another instance is refusing never makes a limit look full: the small request always passes', async () => {
    const [a, b] = [new UsageLimits(connect()), new UsageLimits(connect())];
    // Each round: one instance asks for more tokens than the user may have (refused), the other for a few, at
    // once, on a key that admits one request a minute. Counting the refused request even for a moment would
    // refuse the small one on the key's limit.
    for (let round = 0; round < 30; round++) {
      const key = subject({ rpm: 1 });
      const user = subject({ id: `user:${Math.random()}`, label: '用户', rpm: 100, tpm: 100 });
      const [big, small] = await Promise.allSettled([a.admit([key, user], 1_000), b.admit([key, user], 10)]);
      expect(big.status).toBe('rejected');
      expect(small.status).toBe('fulfilled');
    }
  });

  it('the counters keep their key names and lifetimes, so instances of the previous release count along during an upgrade', async () => {
    // The gateway's client names every key with its deployment's prefix; the script's keys get it too.
    const client = connect({ keyPrefix: 'mr-test:' });
    const now = new Date();
    const limits = new UsageLimits(client, undefined, () => now);
    const key = subject({ rpm: 10, tpm: 1_000, daily: 1_000, monthly: 5_000 });
    const admission = await limits.admit([key], 40);
    await limits.hold(admission, 300);
    const day = `${now.getFullYear()}-${now.getMonth() + 1}-${now.getDate()}`;
    const month = `${now.getFullYear()}-${now.getMonth() + 1}`;
    const counters = [
      [`mr:limit:rpm:minute:${key.id}`, '1', 60],
      [`mr:limit:tpm:minute:${key.id}`, '40', 60],
      [`mr:limit:quota:day:${key.id}:${day}`, '300', 2 * 86_400],
      [`mr:limit:quota:month:${key.id}:${month}`, '300', 32 * 86_400],
    ] as const;
    for (const [name, value, seconds] of counters) {
      expect(await redis!.get(`mr-test:${name}`)).toBe(value);
      const ttl = await redis!.ttl(`mr-test:${name}`);
      expect(ttl).toBeGreaterThan(seconds - 5);
      expect(ttl).toBeLessThanOrEqual(seconds);
    }
  });

  it('an admission of a key and its user, both with requests and tokens per minute, is one command to Redis', async () => {
    const client = connect();
    const limits = new UsageLimits(client);
    const subjects = [subject({ rpm: 100, tpm: 100_000 }), subject({ id: `user:${Math.random()}`, label: '用户', rpm: 100, tpm: 100_000 })];
    // The first use of a script on a connection sends its text; what is measured is every admission after it.
    await limits.admit(subjects, 10);
    const commands = await commandsDuring(client, () => limits.admit(subjects, 10));
    expect(commands.map((c) => c[0].toLowerCase())).toEqual(['evalsha']);
    const refused = await commandsDuring(client, () => limits.admit([subject({ rpm: 1 }), subjects[1]], 1_000_000).catch(() => undefined));
    expect(refused).toHaveLength(1);
  });
});

/** The commands Redis received on `client`'s connection while `step` ran, as MONITOR reports them. */
async function commandsDuring(client: Redis, step: () => Promise<unknown>): Promise<string[][]> {
  const monitor = await client.monitor();
  try {
    const address = /addr=(\S+)/.exec(String(await client.client('INFO')))![1];
    const marker = `end-${Math.random()}`;
    const seen: string[][] = [];
    const ended = new Promise<void>((resolve) => {
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (source !== address) return;
        if (args[0].toLowerCase() === 'echo' && args[1] === marker) resolve();
        else seen.push(args);
      });
    });
    await step();
    await client.echo(marker);
    await ended;
    return seen;
  } finally {
    monitor.disconnect();
  }
}
