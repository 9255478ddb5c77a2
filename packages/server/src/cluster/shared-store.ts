import type { Redis } from 'ioredis';

/**
 * Short-lived state that every instance of a cluster must see the same way: one-time codes (e-mail, WeChat),
 * OAuth `state` values, revoked sessions, de-duplication marks. With Redis configured it lives in Redis, so
 * whichever instance answers the next request finds it; without Redis (one instance) it lives in memory.
 *
 * Every value has a time to live: nothing here is meant to be kept, and nothing grows without bound.
 * Keys are namespaced by the caller (`email-code:alice@example.com`); this store adds its own prefix.
 */
export interface SharedStore {
  get(key: string): Promise<string | undefined>;
  /** Stores `value` for `ttlSeconds` (overwriting). */
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Stores only when the key is absent; answers whether it stored. The cluster-wide "first one wins". */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  /** Reads and deletes in one step: a single-use code can be taken by one request only, on any instance. */
  take(key: string): Promise<string | undefined>;
  delete(key: string): Promise<void>;
}

const PREFIX = 'mr:';

/** One instance: a map with expiry times, swept as it is used. */
export class MemorySharedStore implements SharedStore {
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async get(key: string): Promise<string | undefined> {
    return this.live(key)?.value;
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    this.sweep();
    this.entries.set(key, { value, expiresAt: this.now() + ttlSeconds * 1000 });
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    if (this.live(key)) return false;
    await this.set(key, value, ttlSeconds);
    return true;
  }

  async take(key: string): Promise<string | undefined> {
    const entry = this.live(key);
    this.entries.delete(key);
    return entry?.value;
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  private live(key: string) {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    const now = this.now();
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}

/** Several instances: the same operations on Redis, each one atomic there. */
export class RedisSharedStore implements SharedStore {
  constructor(private readonly redis: Redis) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.redis.get(PREFIX + key)) ?? undefined;
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(PREFIX + key, value, 'EX', Math.max(1, Math.ceil(ttlSeconds)));
  }

  async setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean> {
    return (await this.redis.set(PREFIX + key, value, 'EX', Math.max(1, Math.ceil(ttlSeconds)), 'NX')) === 'OK';
  }

  async take(key: string): Promise<string | undefined> {
    return (await this.redis.getdel(PREFIX + key)) ?? undefined;
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(PREFIX + key);
  }
}
