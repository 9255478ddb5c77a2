import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { PREPARED_NAMES, stopNamingStatements } from './raw-sql.js';
import { readWorkerDialect, SqliteReadWorker } from './read-worker.js';
import { SQLITE_CACHE_KIB } from './sqlite-cache.js';
import { Kysely, Migrator, MysqlDialect, PostgresDialect, SqliteDialect, type Migration } from 'kysely';
import type pg from 'pg';
import { loadPg, optional } from '../lib/optional-modules.js';
import { initialMigration } from './migrations/001-initial.js';
import { channelTestErrorMigration } from './migrations/002-channel-test-error.js';
import { sessionVersionMigration } from './migrations/004-session-version.js';
import { clusterMigration } from './migrations/005-cluster.js';
import { usageMigration } from './migrations/006-usage.js';
import { usageChecksMigration } from './migrations/007-usage-checks.js';
import { routingMigration } from './migrations/008-routing.js';
import type { Database } from './schema.js';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.js';

export type Dialect = 'sqlite' | 'postgres' | 'mysql';

export interface Storage {
  db: Kysely<Database>;
  /**
   * For long read-only queries (dashboard sums, log searches): on an SQLite file they run on a worker thread
   * (read-worker.ts) so they cannot stop the event loop; otherwise the same as `db`.
   */
  reader: Kysely<Database>;
  dialect: Dialect;
  /**
   * MySQL and MariaDB: a pool of its own (two connections at most, opened when first used) whose connections take
   * several statements in one text, for the ledger's batch in one round trip (billing/ledger-alone.ts). Only the
   * ledger's texts go to it; every other query uses `db`, where a text is one statement.
   */
  multiStatement?: Kysely<Database>;
  close(): Promise<void>;
  /** SQLite on a file only: the worker that checkpoints the WAL. */
  checkpointer?: WalCheckpointer;
}

export interface StorageOptions {
  /** postgres://... or mysql://...; empty means embedded SQLite. */
  dsn?: string;
  sqlitePath?: string;
  /** How often the WAL checkpointer runs (SQLite file only); 1 s unless told. */
  checkpointIntervalMs?: number;
  /** How large the WAL may grow before it is started over, even under steady writes (SQLite file only); 4 MiB unless told. */
  walRestartBytes?: number;
  /** Bring the schema up to date (default). Off for a look that must write nothing (the import's dry run). */
  migrate?: boolean;
}

/** Picks the dialect from the DSN (spec: SQL_DSN selects PostgreSQL or MySQL, SQLite otherwise). */
export function dialectOf(dsn: string | undefined): Dialect {
  if (!dsn) return 'sqlite';
  if (/^postgres(ql)?:\/\//i.test(dsn)) return 'postgres';
  if (/^(mysql|mariadb):\/\//i.test(dsn)) return 'mysql';
  throw new Error(`SQL_DSN must start with postgres:// or mysql:// (got "${dsn.split(':')[0]}:")`);
}

/**
 * Kysely's SQLite driver prepares every statement anew; preparing costs more than running a small indexed
 * query. Keep prepared statements by SQL text (the relay issues the same few statements over and over).
 */
function withStatementCache(sqlite: SQLite.Database, limit = 500): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property !== 'prepare') return Reflect.get(target, property, receiver);
      return (source: string) => {
        let statement = cache.get(source);
        if (!statement) {
          statement = prepare(source);
          if (cache.size >= limit) cache.delete(cache.keys().next().value as string);
          cache.set(source, statement);
        }
        return statement;
      };
    },
  });
}

/**
 * Sends the statements RawSql named (PREPARED_NAMES) as named statements on every connection of the pool: node-postgres
 * parses a named statement once per connection and then only binds and executes it. Kysely passes a query's text
 * and parameters to `client.query`, which is where the name is added. Measured at 300 relay requests a second: a
 * ledger commit 2.1 ms instead of 2.5-3.5, PostgreSQL's CPU per request 0.83 ms instead of 1.07 (bench/README.md).
 */
function namePreparedStatements(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (config: unknown, values?: unknown, callback?: unknown) => {
      const name = typeof config === 'string' && Array.isArray(values) && callback === undefined ? PREPARED_NAMES.get(config) : undefined;
      if (!name) return query(config, values, callback);
      return (query({ name, text: config, values }) as Promise<unknown>).catch((error: unknown) => {
        // 26000: the server has no such prepared statement (see stopNamingStatements).
        if ((error as { code?: string } | null)?.code === '26000') stopNamingStatements();
        throw error;
      });
    };
  });
}

/**
 * The WAL's size after which it is started over under steady writes (each time costs the main connection's queries a
 * short pause, at most once per checkpoint interval). A WAL started over sooner keeps SQLite's index of its frames
 * shorter: 6 % fewer instructions per request than at 64 MiB (bench/README.md, 2026-11-28 afternoon).
 */
const WAL_RESTART_BYTES = 4 * 1024 * 1024;
/** What a WAL file larger than that (a burst) is cut back to once it is started over. */
const WAL_FILE_LIMIT_BYTES = 64 * 1024 * 1024;

/** Opens the configured database and brings its schema up to date. */
export async function openStorage(options: StorageOptions): Promise<Storage> {
  const dialect = dialectOf(options.dsn);
  let db: Kysely<Database>;
  let checkpointer: WalCheckpointer | undefined;
  let sqlite: SQLite.Database | undefined;
  let multiStatement: Kysely<Database> | undefined;
  if (dialect === 'sqlite') {
    const path = options.sqlitePath ?? './data/gateway.db';
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    sqlite = new SQLite(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`cache_size = -${SQLITE_CACHE_KIB.writer}`);
    if (path !== ':memory:') {
      // Checkpoints run on a worker thread (see wal-checkpointer.ts); the WAL file is cut back after each reset.
      sqlite.pragma('wal_autocheckpoint = 0');
      sqlite.pragma(`journal_size_limit = ${WAL_FILE_LIMIT_BYTES}`);
      checkpointer = startWalCheckpointer(path, {
        intervalMs: options.checkpointIntervalMs,
        restartBytes: options.walRestartBytes ?? WAL_RESTART_BYTES,
        // The main connection's queries all go through Kysely's driver, one at a time: holding its connection holds them.
        hold: (whileHeld) => db.connection().execute(() => whileHeld()),
        onFailure: () => sqlite?.open && sqlite.pragma('wal_autocheckpoint = 1000'),
      });
    }
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  } else if (dialect === 'postgres') {
    const pool = new (loadPg().Pool)({ connectionString: options.dsn, max: 20 });
    namePreparedStatements(pool);
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  } else {
    const url = options.dsn!.replace(/^mariadb:/i, 'mysql:');
    const settings = { uri: url, supportBigNumbers: true, bigNumberStrings: false, decimalNumbers: true };
    const createMysqlPool = optional.mysql().createPool;
    db = new Kysely<Database>({ dialect: new MysqlDialect({ pool: createMysqlPool({ ...settings, connectionLimit: 20 }) }) });
    multiStatement = new Kysely<Database>({ dialect: new MysqlDialect({ pool: createMysqlPool({ ...settings, connectionLimit: 2, multipleStatements: true }) }) });
  }
  try {
    if (options.migrate !== false) await migrate(db, dialect);
  } catch (error) {
    await checkpointer?.stop();
    await db.destroy();
    await multiStatement?.destroy();
    if (sqlite?.open) sqlite.close();
    throw error;
  }
  // Started after the migrations: the worker's connection is read-only and needs the file and its schema.
  const sqliteFile = dialect === 'sqlite' && (options.sqlitePath ?? './data/gateway.db') !== ':memory:';
  // Two workers: a dashboard report's two scans run side by side.
  const readers = sqliteFile ? [0, 1].map(() => new SqliteReadWorker(options.sqlitePath ?? './data/gateway.db')) : [];
  const reader = sqliteFile ? new Kysely<Database>({ dialect: readWorkerDialect(readers, db) }) : db;
  return {
    db,
    reader,
    dialect,
    multiStatement,
    checkpointer,
    async close() {
      // The workers' connections close first, so the main one is the last and checkpoints the WAL away (SQLite
      // removes the WAL only when the connection closing is the last one to the file). The read workers are
      // stopped here and not left to `reader.destroy()`: Kysely destroys a driver only once it has run a query, so
      // the workers of a reader never used (a server whose dashboard nobody opened) kept their read-only
      // connections open, and the WAL stayed after a clean stop.
      await Promise.all(readers.map((worker) => worker.stop()));
      if (reader !== db) await reader.destroy();
      await checkpointer?.stop();
      await db.destroy();
      await multiStatement?.destroy();
      // The same holds for the main connection when nothing ran on it (opened with `migrate: false` and never queried).
      if (sqlite?.open) sqlite.close();
    },
  };
}

/** Every schema migration by name (numbered by the change that needed it). */
export function schemaMigrations(dialect: Dialect): Record<string, Migration> {
  return {
    '001-initial': initialMigration(dialect),
    '002-channel-test-error': channelTestErrorMigration(),
    '004-session-version': sessionVersionMigration,
    '005-cluster': clusterMigration,
    '006-usage': usageMigration(dialect),
    '007-usage-checks': usageChecksMigration(dialect),
    '008-routing': routingMigration,
  };
}

async function migrate(db: Kysely<Database>, dialect: Dialect): Promise<void> {
  const migrations = schemaMigrations(dialect);
  // Migrations are numbered by the change that needed them, and changes land in any order.
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Database migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`);
  }
}
