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

/** Sums of one bucket and model. */
export interface Cell extends UsageTotals {
  time: number;
  model: string;
}

/** Sums of one user x key (x channel). */
export interface OwnerCell extends UsageTotals {
  user_id: number;
  token_id: number;
  channel_id: number;
}

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
export function totalsOf(row: Record<string, unknown> | undefined): UsageTotals {
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

  /**
   * Sums per time bucket and model (empty buckets absent): the series, the breakdown by model and the totals
   * are all folded from these rows, so a report scans the range once for them.
   */
  async byBucketAndModel(filter: RollupFilter, bucketing: Bucketing): Promise<Cell[]> {
    const bucket = bucketOf(bucketing);
    const rows = await this.filtered(filter)
      .select((eb) => [bucket.as('time'), 'model', ...sums(eb)])
      .groupBy([bucket, 'model'])
      .execute();
    return rows.map((row) => ({ time: Number(row.time), model: row.model, ...totalsOf(row) }));
  }

  /**
   * Sums per user x key (x channel when `byChannel`): the top keys, users and channels are folded from these
   * rows (one scan instead of one per table).
   */
  async byOwner(filter: RollupFilter, byChannel: boolean): Promise<OwnerCell[]> {
    let query = this.filtered(filter)
      .select((eb) => ['user_id', 'token_id', ...(byChannel ? (['channel_id'] as const) : []), ...sums(eb)])
      .groupBy(['user_id', 'token_id']);
    if (byChannel) query = query.groupBy('channel_id');
    const rows = (await query.execute()) as Array<Record<string, unknown> & { user_id: number; token_id: number; channel_id?: number }>;
    return rows.map((row) => ({ user_id: Number(row.user_id), token_id: Number(row.token_id), channel_id: Number(row.channel_id ?? 0), ...totalsOf(row) }));
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
