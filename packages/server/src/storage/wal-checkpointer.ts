import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SQLITE_CACHE_KIB } from './sqlite-cache.js';

/** What one checkpoint did: frames in the WAL and frames copied back into the database file. */
export interface CheckpointResult {
  log: number;
  checkpointed: number;
}

export interface WalCheckpointer {
  /** Checkpoints done so far that copied at least one frame. */
  readonly checkpoints: number;
  /** Resolves after the next checkpoint that copied something (for tests and diagnostics). */
  nextCheckpoint(): Promise<CheckpointResult>;
  /** Stops the worker and closes its connection; the main connection can then close (and checkpoint) last. */
  stop(): Promise<void>;
}

/*
 * The worker's code, as a CommonJS script (an eval worker, so it runs the same from the TypeScript sources
 * under the tests and from the built files). It opens its own connection to the same file and runs a PASSIVE
 * checkpoint every `intervalMs`: PASSIVE never waits for, nor blocks, the main connection's readers and writer.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 0');
db.pragma('cache_size = -' + workerData.cacheKib);
const timer = setInterval(() => {
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    if (row && row.checkpointed > 0) parentPort.postMessage({ log: row.log, checkpointed: row.checkpointed });
  } catch (error) {
    // Busy or locked: the next tick tries again.
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Moves SQLite's WAL checkpoints off the event loop. With the default auto-checkpoint, the commit that
 * crosses 1,000 WAL pages copies them into the database file and fsyncs it, on the main thread, while
 * every relay request waits: it showed as the slowest 1% of requests. The main connection turns
 * auto-checkpoint off and this worker thread checkpoints instead.
 */
export function startWalCheckpointer(path: string, options: { intervalMs?: number; onFailure?: (error: unknown) => void } = {}): WalCheckpointer {
  const intervalMs = options.intervalMs ?? 1000;
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver, intervalMs, cacheKib: SQLITE_CACHE_KIB.checkpointer } });
  worker.unref();
  let checkpoints = 0;
  let waiters: Array<(result: CheckpointResult) => void> = [];
  worker.on('message', (result: CheckpointResult) => {
    checkpoints++;
    const current = waiters;
    waiters = [];
    for (const resolve of current) resolve(result);
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // A worker that dies (it cannot open the file, say) must not take the process down; the caller then turns
  // the main connection's auto-checkpoint back on, so the WAL cannot grow without bound.
  worker.on('error', (error) => options.onFailure?.(error));
  return {
    get checkpoints() {
      return checkpoints;
    },
    nextCheckpoint: () => new Promise((resolve) => waiters.push(resolve)),
    async stop() {
      worker.postMessage('stop');
      const timeout = setTimeout(() => void worker.terminate(), 2000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
