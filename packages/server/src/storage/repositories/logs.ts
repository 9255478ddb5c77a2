import type { Kysely } from 'kysely';
import { PAGE_SIZE } from '@model-relay/contract';
import type { Dialect } from '../database.js';
import { insertRows, RawSql, type Executor, type Statement } from '../raw-sql.js';
import type { Database, LogRow, LogsTable, NewLog } from '../schema.js';

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

/**
 * Every column a log insert writes, each with what a row that leaves it out gets (the table's default): the one
 * column list of the logs table. `created_at` and `type` have no default; every row names them.
 */
const LOG_COLUMNS = {
  user_id: 0,
  created_at: 0,
  type: 0,
  content: null,
  username: '',
  token_name: '',
  token_id: 0,
  model_name: '',
  quota: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  channel_id: 0,
  request_id: '',
  elapsed_time: 0,
  is_stream: 0,
  first_byte_ms: 0,
  channel_name: '',
  dialect: '',
  cached_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  error: null,
  attempts: null,
  routing: null,
} satisfies Record<Exclude<keyof LogsTable, 'id'>, unknown>;
const COLUMN_NAMES = Object.keys(LOG_COLUMNS) as Array<keyof typeof LOG_COLUMNS>;
/** The columns with how PostgreSQL reads them (insertRows): the numbers' as whole numbers, the others' as text. */
const INSERT_COLUMNS = COLUMN_NAMES.map((name) => [name, typeof LOG_COLUMNS[name] === 'number' ? 'bigint' : 'text'] as const);

/**
 * The logs table: its one writer (`insert`, `insertMany`, used by the ledger, the account and redemption code,
 * the notices and the import alike; only migrations write rows of their own) and its searches.
 */
export class LogsRepository {
  private readonly sql: RawSql;

  /** `reader` runs the searches and sums (Storage.reader: off the event loop on SQLite); writes go to `db`. */
  constructor(
    private readonly db: Kysely<Database>,
    dialect: Dialect,
    private readonly reader: Kysely<Database> = db,
  ) {
    this.sql = new RawSql(dialect);
  }

  /** Writes one row, in `executor` (the caller's transaction) or on its own. */
  insert(log: NewLog, executor: Executor = this.db): Promise<void> {
    return this.insertMany([log], executor);
  }

  /**
   * Writes the rows in multi-row statements of up to ROWS_PER_STATEMENT rows (the ledger writes a whole batch's
   * logs this way, inside its transaction). Hand-written SQL (raw-sql.ts): it runs on every relay request.
   */
  async insertMany(logs: readonly NewLog[], executor: Executor = this.db): Promise<void> {
    for (const statement of this.insertStatements(logs)) await this.sql.run(executor, statement.text, statement.parameters);
  }

  /** The multi-row INSERTs that write `logs` (the ledger runs them together with its other rows: RawSql.runAll). */
  insertStatements(logs: readonly NewLog[]): Statement[] {
    return insertRows(
      this.sql.dialect,
      'logs',
      INSERT_COLUMNS,
      logs.map((log) => COLUMN_NAMES.map((column) => log[column] ?? LOG_COLUMNS[column])),
    );
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
