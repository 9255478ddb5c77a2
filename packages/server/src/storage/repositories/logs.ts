import type { Kysely } from 'kysely';
import { PAGE_SIZE } from '@model-relay/contract';
import type { Database, LogRow, NewLog } from '../schema.js';

export interface LogFilter {
  type?: number;
  userId?: number;
  username?: string;
  tokenName?: string;
  modelName?: string;
  channelId?: number;
  startTimestamp?: number;
  endTimestamp?: number;
  /** The relay's X-Request-Id of the request the row is about. */
  requestId?: string;
}

/** Rows per statement of a cleanup (see deleteBefore). */
export const DELETE_BATCH = 2_000;

export class LogsRepository {
  /** `reader` runs the searches and sums (Storage.reader: off the event loop on SQLite); writes go to `db`. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly reader: Kysely<Database> = db,
  ) {}

  async insert(log: NewLog, db: Kysely<Database> = this.db): Promise<void> {
    await db.insertInto('logs').values(log).execute();
  }

  private filtered(filter: LogFilter) {
    let query = this.reader.selectFrom('logs');
    if (filter.type) query = query.where('type', '=', filter.type);
    if (filter.userId) query = query.where('user_id', '=', filter.userId);
    if (filter.username) query = query.where('username', '=', filter.username);
    if (filter.tokenName) query = query.where('token_name', '=', filter.tokenName);
    if (filter.modelName) query = query.where('model_name', '=', filter.modelName);
    if (filter.channelId) query = query.where('channel_id', '=', filter.channelId);
    if (filter.startTimestamp) query = query.where('created_at', '>=', filter.startTimestamp);
    if (filter.endTimestamp) query = query.where('created_at', '<=', filter.endTimestamp);
    if (filter.requestId) query = query.where('request_id', '=', filter.requestId);
    return query;
  }

  list(filter: LogFilter, page: number): Promise<LogRow[]> {
    return this.filtered(filter)
      .selectAll()
      .orderBy('id', 'desc')
      .limit(PAGE_SIZE)
      .offset(Math.max(0, page) * PAGE_SIZE)
      .execute();
  }

  /** Sum of consumed quota (type 2 rows) under the filter. */
  async sumQuota(filter: LogFilter): Promise<number> {
    const row = await this.filtered({ ...filter, type: 2 })
      .select((eb) => eb.fn.sum<number>('quota').as('total'))
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  }

  /**
   * Deletes the rows older than `timestamp`, oldest first, DELETE_BATCH rows per statement with a turn of the event
   * loop between: a first cleanup of a large table is many short statements, not one that holds the database (and,
   * on SQLite, the event loop and every request with it) for seconds. Returns how many rows went.
   */
  async deleteBefore(timestamp: number): Promise<number> {
    let total = 0;
    for (;;) {
      const ids = (await this.db.selectFrom('logs').select('id').where('created_at', '<', timestamp).orderBy('created_at').limit(DELETE_BATCH).execute()).map((r) => r.id);
      if (ids.length === 0) return total;
      const result = await this.db.deleteFrom('logs').where('id', 'in', ids).executeTakeFirst();
      total += Number(result.numDeletedRows ?? 0);
      if (ids.length < DELETE_BATCH) return total;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
