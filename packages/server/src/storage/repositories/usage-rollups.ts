import type { DashboardGranularity, UsageTotals } from '@model-relay/contract';
import { sql, type ExpressionBuilder, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../schema.js';

/** Which rollup rows a dashboard query sums: hours in [start, end), optionally one user, key, model, channel. */
export interface RollupFilter {
  /** unix seconds at an hour's start (inclusive) */
  start: number;
  /** unix seconds at an hour's start (exclusive) */
  end: number;
  userId?: number;
  tokenId?: number;
  model?: string;
  channelId?: number;
}

/** How rows are grouped in time: by the rollup's own hour, or by day starting at the viewer's midnight. */
export interface Bucketing {
  granularity: DashboardGranularity;
  /** the viewer's offset from UTC in minutes (east positive) */
  tz: number;
}

export type Dimension = 'user_id' | 'channel_id';

export interface ExportRow extends UsageTotals {
  time: number;
  user_id: number;
  token_id: number;
  model: string;
  channel_id: number;
}

const TOTAL_COLUMNS = ['requests', 'failures', 'quota', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'reasoning_tokens', 'latency_ms'] as const;

/** The sums of every counter (one row per instance and hour is summed away). */
const sums = (eb: ExpressionBuilder<Database, 'usage_rollups'>) => TOTAL_COLUMNS.map((column) => eb.fn.sum<number | string | null>(column).as(column));

/** PostgreSQL and MariaDB return SUM() of a bigint as a decimal string; SQLite as a number; none when no row. */
export function totalsOf(row: Partial<Record<(typeof TOTAL_COLUMNS)[number], unknown>> | undefined): UsageTotals {
  const n = (value: unknown) => Number(value ?? 0) || 0;
  return {
    requests: n(row?.requests),
    failures: n(row?.failures),
    quota: n(row?.quota),
    prompt_tokens: n(row?.prompt_tokens),
    completion_tokens: n(row?.completion_tokens),
    cached_tokens: n(row?.cached_tokens),
    reasoning_tokens: n(row?.reasoning_tokens),
    latency_ms: n(row?.latency_ms),
  };
}

/**
 * The bucket of a rollup row as SQL. A day starts at the viewer's midnight: hour - ((hour + offset) mod 86400),
 * with the offset a validated integer written as a literal (no division, so every dialect computes it alike).
 */
function bucketOf(bucketing: Bucketing): RawBuilder<number> {
  if (bucketing.granularity === 'hour') return sql<number>`hour`;
  const offset = Math.trunc(bucketing.tz) * 60;
  return sql<number>`(hour - ((hour + ${sql.lit(offset)}) % 86400))`;
}

/**
 * Reads of usage_rollups for the dashboard: sums over indexed hour ranges ((hour) and (user_id, hour)), so the
 * cost follows the number of rollup rows in the range, never the size of the log table.
 */
export class UsageRollupsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private filtered(filter: RollupFilter) {
    let query = this.db.selectFrom('usage_rollups').where('hour', '>=', filter.start).where('hour', '<', filter.end);
    if (filter.userId) query = query.where('user_id', '=', filter.userId);
    if (filter.tokenId) query = query.where('token_id', '=', filter.tokenId);
    if (filter.model) query = query.where('model', '=', filter.model);
    if (filter.channelId) query = query.where('channel_id', '=', filter.channelId);
    return query;
  }

  async totals(filter: RollupFilter): Promise<UsageTotals> {
    return totalsOf(await this.filtered(filter).select(sums).executeTakeFirst());
  }

  /** Sums per time bucket (buckets without rows are absent). */
  async byBucket(filter: RollupFilter, bucketing: Bucketing): Promise<Array<UsageTotals & { time: number }>> {
    const bucket = bucketOf(bucketing);
    const rows = await this.filtered(filter)
      .select((eb) => [bucket.as('time'), ...sums(eb)])
      .groupBy(bucket)
      .orderBy(bucket)
      .execute();
    return rows.map((row) => ({ time: Number(row.time), ...totalsOf(row) }));
  }

  /** Sums per model, most spent first (then most requested). */
  async byModel(filter: RollupFilter): Promise<Array<UsageTotals & { model: string }>> {
    const rows = await this.filtered(filter)
      .select((eb) => ['model', ...sums(eb)])
      .groupBy('model')
      .orderBy(sql`sum(quota)`, 'desc')
      .orderBy(sql`sum(requests)`, 'desc')
      .orderBy('model')
      .execute();
    return rows.map((row) => ({ model: row.model, ...totalsOf(row) }));
  }

  /** Spending and requests per bucket of the given models only. */
  async byModelAndBucket(filter: RollupFilter, bucketing: Bucketing, models: string[]): Promise<Array<{ time: number; model: string; quota: number; requests: number }>> {
    if (models.length === 0) return [];
    const bucket = bucketOf(bucketing);
    const rows = await this.filtered(filter)
      .where('model', 'in', models)
      .select((eb) => [bucket.as('time'), 'model', eb.fn.sum<number | string>('quota').as('quota'), eb.fn.sum<number | string>('requests').as('requests')])
      .groupBy([bucket, 'model'])
      .orderBy(bucket)
      .orderBy('model')
      .execute();
    return rows.map((row) => ({ time: Number(row.time), model: row.model, quota: Number(row.quota) || 0, requests: Number(row.requests) || 0 }));
  }

  /** The `limit` users, keys or channels spent most on (then most requested). */
  async top<D extends Dimension>(filter: RollupFilter, dimension: D, limit: number): Promise<Array<UsageTotals & Record<D, number>>> {
    const rows = await this.filtered(filter)
      .select((eb) => [eb.ref(dimension).as('id'), ...sums(eb)])
      .groupBy(dimension)
      .orderBy(sql`sum(quota)`, 'desc')
      .orderBy(sql`sum(requests)`, 'desc')
      .orderBy(dimension)
      .limit(limit)
      .execute();
    return rows.map((row) => ({ [dimension]: Number(row.id), ...totalsOf(row) }) as UsageTotals & Record<D, number>);
  }

  /**
   * Rows for a CSV export: sums per bucket x user x key x model (x channel when `byChannel`), in time order; at most
   * `limit` rows (the caller asks for one more than it accepts to tell a complete export from a cut one).
   */
  async exportRows(filter: RollupFilter, bucketing: Bucketing, limit: number, byChannel: boolean): Promise<ExportRow[]> {
    const bucket = bucketOf(bucketing);
    const channel = byChannel ? sql<number>`channel_id` : sql<number>`0`;
    let query = this.filtered(filter)
      .select((eb) => [bucket.as('time'), 'user_id', 'token_id', 'model', channel.as('channel_id'), ...sums(eb)])
      .groupBy([bucket, 'user_id', 'token_id', 'model']);
    query = query.orderBy(bucket).orderBy('user_id').orderBy('token_id').orderBy('model');
    // (ORDER BY a bare 0 would name a column position, so the constant is not ordered by.)
    if (byChannel) query = query.groupBy('channel_id').orderBy('channel_id');
    const rows = await query.limit(limit).execute();
    return rows.map((row) => ({
      time: Number(row.time),
      user_id: Number(row.user_id),
      token_id: Number(row.token_id),
      model: row.model,
      channel_id: Number(row.channel_id),
      ...totalsOf(row),
    }));
  }

  /** Keys spent most on, each with its owner. */
  async topTokens(filter: RollupFilter, limit: number): Promise<Array<UsageTotals & { token_id: number; user_id: number }>> {
    const rows = await this.filtered(filter)
      .select((eb) => ['token_id', 'user_id', ...sums(eb)])
      .groupBy(['token_id', 'user_id'])
      .orderBy(sql`sum(quota)`, 'desc')
      .orderBy(sql`sum(requests)`, 'desc')
      .orderBy('token_id')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ token_id: Number(row.token_id), user_id: Number(row.user_id), ...totalsOf(row) }));
  }

  /** Names of users, keys and channels by id (for the tables and exports; rollups keep ids only). */
  async names(ids: { users?: Iterable<number>; tokens?: Iterable<number>; channels?: Iterable<number> }) {
    const [users, tokens, channels] = await Promise.all([
      this.lookUp(ids.users, (chunk) => this.db.selectFrom('users').select(['id', 'username as name']).where('id', 'in', chunk).execute()),
      this.lookUp(ids.tokens, (chunk) => this.db.selectFrom('tokens').select(['id', 'name']).where('id', 'in', chunk).execute()),
      this.lookUp(ids.channels, (chunk) => this.db.selectFrom('channels').select(['id', 'name']).where('id', 'in', chunk).execute()),
    ]);
    return { users, tokens, channels };
  }

  /** In chunks: an export may name tens of thousands of ids, more than one statement may bind (PostgreSQL: 65,535). */
  private async lookUp(ids: Iterable<number> | undefined, read: (chunk: number[]) => Promise<Array<{ id: number; name: string }>>): Promise<Map<number, string>> {
    const unique = [...new Set(ids ?? [])].filter((id) => id > 0);
    const names = new Map<number, string>();
    for (let i = 0; i < unique.length; i += 1000) {
      for (const row of await read(unique.slice(i, i + 1000))) names.set(Number(row.id), row.name);
    }
    return names;
  }
}
