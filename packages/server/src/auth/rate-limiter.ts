import type { Redis } from 'ioredis';

/** Counts hits per key in a fixed window; `hit` answers whether this hit is still within the limit. */
export interface RateLimiter {
  hit(key: string, limit: number, windowSeconds: number): Promise<boolean>;
}

/** Single-instance limiter. Windows are dropped once they expire so memory stays bounded by active keys. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private lastSweep = 0;

  async hit(key: string, limit: number, windowSeconds: number): Promise<boolean> {
    if (limit <= 0) return true;
    const now = Date.now();
    if (now - this.lastSweep > 60_000) this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + windowSeconds * 1000 };
      this.windows.set(key, window);
    }
    window.count += 1;
    return window.count <= limit;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}

/** Shared limiter for several instances behind one load balancer (REDIS_CONN_STRING). */
export class RedisRateLimiter implements RateLimiter {
  constructor(private readonly redis: Redis) {}

  async hit(key: string, limit: number, windowSeconds: number): Promise<boolean> {
    if (limit <= 0) return true;
    const redisKey = `rl:${key}`;
    const [[, count]] = (await this.redis.multi().incr(redisKey).expire(redisKey, windowSeconds, 'NX').exec()) as [
      [Error | null, number],
      unknown,
    ];
    return count <= limit;
  }
}
