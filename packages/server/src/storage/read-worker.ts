import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SQLITE_CACHE_KIB } from './sqlite-cache.js';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';

/*
 * The worker's code, as a CommonJS script (an eval worker, like the WAL checkpointer's, so it runs the same from
 * the TypeScript sources under the tests and from the built files). It opens its own read-only connection to the
 * same file and answers one query at a time: { id, sql, parameters } -> { id, rows } or { id, error }.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -' + workerData.cacheKib);
const statements = new Map();
parentPort.on('message', (message) => {
  if (message === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    let statement = statements.get(message.sql);
    if (!statement) {
      statement = db.prepare(message.sql);
      if (statements.size >= 200) statements.delete(statements.keys().next().value);
      statements.set(message.sql, statement);
    }
    if (!statement.reader) throw new Error('the read worker runs queries that return rows only');
    parentPort.postMessage({ id: message.id, rows: statement.all(message.parameters) });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: { message: String(error && error.message || error), code: error && error.code } });
  }
});
`;

interface Pending {
  resolve(rows: unknown[]): void;
  reject(error: Error): void;
}

/**
 * Long reads of an SQLite file (the dashboard's sums over a month of rollups, a filtered search through a million
 * log rows) on a worker thread with its own read-only connection. SQLite runs a query on the thread that calls
 * it, so on the main connection such a read stops the event loop, and every relay request and stream with it,
 * for as long as it takes (up to two seconds for an admin's month at a million logs). In WAL mode the worker's
 * reads see every commit of the main connection and neither blocks the other.
 */
export class SqliteReadWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure: Error | undefined;
  private readonly exited: Promise<void>;
  private stopping: Promise<void> | undefined;

  constructor(path: string) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver, cacheKib: SQLITE_CACHE_KIB.reader } });
    this.worker.unref();
    this.worker.on('message', (message: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }) => {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.error) waiting.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else waiting.resolve(message.rows ?? []);
    });
    // A worker that cannot start or dies leaves the reads to the main connection (see readerFor): slower for
    // everyone else while they run, but answered.
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.exited = new Promise((resolve) => this.worker.once('exit', () => (fail(new Error('the read worker stopped')), resolve())));
  }

  /** False once the worker failed or stopped: its callers then read on the main connection. */
  get alive(): boolean {
    return this.failure === undefined;
  }

  /** Queries sent and not yet answered. */
  get busy(): number {
    return this.pending.size;
  }

  /** Rows of one query, on the worker thread. While a query runs the worker is ref'd, so it is not cut short. */
  all(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    if (this.pending.size === 0) this.worker.ref();
    return new Promise<unknown[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, sql, parameters });
    }).finally(() => {
      if (this.pending.size === 0) this.worker.unref();
    });
  }

  /** Closes the worker's connection and ends it; safe to call more than once (the storage and its dialect both do). */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.failure) return;
      this.worker.postMessage('stop');
      const timeout = setTimeout(() => void this.worker.terminate(), 2000);
      await this.exited;
      clearTimeout(timeout);
    })();
    return this.stopping;
  }
}

/**
 * A Kysely dialect whose queries run on the least busy of `workers` (several, so the two scans of a dashboard report
 * run side by side on two cores), falling back to `main` (the same database) when none is left. Read-only: no
 * transactions, and the workers refuse statements that do not return rows.
 */
export function readWorkerDialect<DB>(workers: SqliteReadWorker[], main: Kysely<DB>): Dialect {
  const connection: DatabaseConnection = {
    async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
      const worker = workers.filter((w) => w.alive).sort((a, b) => a.busy - b.busy)[0];
      if (!worker) return main.executeQuery<R>(CompiledQuery.raw(compiled.sql, [...compiled.parameters]));
      return { rows: (await worker.all(compiled.sql, compiled.parameters)) as R[] };
    },
    // eslint-disable-next-line require-yield
    async *streamQuery() {
      throw new Error('the read worker does not stream');
    },
  };
  const driver: Driver = {
    init: async () => undefined,
    acquireConnection: async () => connection,
    beginTransaction: async () => {
      throw new Error('the read worker does not run transactions');
    },
    commitTransaction: async () => undefined,
    rollbackTransaction: async () => undefined,
    releaseConnection: async () => undefined,
    // Kysely calls this only if the instance ran a query: whoever starts the workers stops them too (openStorage's
    // close does); this covers a dialect made on its own.
    destroy: async () => {
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => driver,
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
