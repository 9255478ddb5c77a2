import { Pool } from 'undici';

/** One keep-alive pool per upstream origin (undici Pool, never fetch: docs/architecture.md, the request path). */
export class UpstreamPools {
  private readonly pools = new Map<string, Pool>();
  constructor(
    /** Headers and body timeout of every upstream call (RELAY_TIMEOUT_SECONDS). */
    readonly timeoutMs: number,
    /** Concurrent connections per upstream origin: each in-flight stream holds one. */
    private readonly maxConnections = 4096,
  ) {}

  get(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, { connections: this.maxConnections, pipelining: 1, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs, keepAliveTimeout: 30_000 });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
    this.pools.clear();
  }
}
