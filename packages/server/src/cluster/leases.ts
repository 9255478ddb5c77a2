import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';

/**
 * Named leases that expire unless renewed: "instance X is alive" and "this instance runs job Y for the whole
 * cluster". In Redis when it is configured, else in the database (cluster_leases), so a cluster without Redis
 * still has them. Time is each instance's clock (keep them in sync with NTP, as any cluster must).
 */
export interface LeaseStore {
  /** Takes `name` for `holder`, or renews it when `holder` already has it; true when `holder` holds it now. */
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives `name` up, if `holder` has it. */
  release(name: string, holder: string): Promise<void>;
  /** Whether anyone holds `name` now. */
  isHeld(name: string): Promise<boolean>;
  /** How many instances hold their instance lease (`instance:<id>`, taken with acquire) now. */
  liveInstances(): Promise<number>;
}

const PREFIX = 'mr:lease:';

/** Take-or-renew, atomic in Redis: renew when the holder has it, take when it is free. */
const ACQUIRE = `
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if current then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
/** Instance leases are also scored by their expiry in one sorted set, so that the live ones can be counted. */
const INSTANCES = 'instances';
const INSTANCE = 'instance:';

export class RedisLeaseStore implements LeaseStore {
  constructor(private readonly redis: Redis) {}

  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const ttl = Math.max(1, Math.round(ttlMs));
    const taken = (await this.redis.eval(ACQUIRE, 1, PREFIX + name, holder, String(ttl))) === 1;
    if (taken && name.startsWith(INSTANCE)) await this.redis.zadd(PREFIX + INSTANCES, Date.now() + ttl, name);
    return taken;
  }

  async release(name: string, holder: string): Promise<void> {
    const released = (await this.redis.eval(RELEASE, 1, PREFIX + name, holder)) === 1;
    if (released && name.startsWith(INSTANCE)) await this.redis.zrem(PREFIX + INSTANCES, name);
  }

  async isHeld(name: string): Promise<boolean> {
    return (await this.redis.exists(PREFIX + name)) === 1;
  }

  async liveInstances(): Promise<number> {
    const now = Date.now();
    await this.redis.zremrangebyscore(PREFIX + INSTANCES, '-inf', now);
    return this.redis.zcount(PREFIX + INSTANCES, `(${now}`, '+inf');
  }
}

/**
 * The same in SQL: a conditional update takes an expired lease or renews one's own; an insert takes a new
 * name, and the primary key lets only one of several simultaneous inserts win.
 */
export class SqlLeaseStore implements LeaseStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const updated = await this.db
      .updateTable('cluster_leases')
      .set({ holder, expires_at: now + ttlMs })
      .where('name', '=', name)
      .where((eb) => eb.or([eb('holder', '=', holder), eb('expires_at', '<=', now)]))
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) return true;
    try {
      await this.db.insertInto('cluster_leases').values({ name, holder, expires_at: now + ttlMs }).execute();
      return true;
    } catch {
      return false; // someone else holds it (or took it a moment ago)
    }
  }

  async release(name: string, holder: string): Promise<void> {
    await this.db.deleteFrom('cluster_leases').where('name', '=', name).where('holder', '=', holder).execute();
  }

  async isHeld(name: string): Promise<boolean> {
    const row = await this.db.selectFrom('cluster_leases').select('expires_at').where('name', '=', name).executeTakeFirst();
    return row !== undefined && Number(row.expires_at) > this.now();
  }

  async liveInstances(): Promise<number> {
    const row = await this.db
      .selectFrom('cluster_leases')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('name', 'like', `${INSTANCE}%`)
      .where('expires_at', '>', this.now())
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
