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
  /** Times the main thread held its queries so that the WAL, past its limit, could be started over. */
  readonly restarts: number;
  /** Resolves after the next checkpoint that copied something (for tests and diagnostics). */
  nextCheckpoint(): Promise<CheckpointResult>;
  /** Stops the worker and closes its connection; the main connection can then close (and checkpoint) last. */
  stop(): Promise<void>;
}

/*
 * The worker's code, as a CommonJS script (an eval worker, so it runs the same from the TypeScript sources
 * under the tests and from the built files). It opens its own connection to the same file and runs a PASSIVE
 * checkpoint every `intervalMs`: PASSIVE never waits for, nor blocks, the main connection's readers and writer.
 *
 * The writer starts the WAL over (from its first frame) only when a checkpoint has copied all of it before the
 * writer's next transaction begins. Under steady writes that never happens: commits land while this worker copies,
 * so each checkpoint ends a few commits short and the WAL grows for as long as the writes go on (1.2 GB in 6 s of
 * back-to-back commits). Once the WAL holds more than `restartFrames`, has grown since the last checkpoint (a writer
 * idle since then starts it over by itself) and a checkpoint found no reader in its way, the worker asks the main
 * thread to hold its queries ('hold'); when the main thread answers 'held', it copies the few frames left, which lets
 * the next write start the WAL over, and answers 'released'.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 0');
db.pragma('cache_size = -' + workerData.cacheKib);
const restartFrames = workerData.restartBytes > 0 ? Math.max(1, Math.floor(workerData.restartBytes / (db.pragma('page_size', { simple: true }) + 24))) : 0;
let holding = false;
let lastLog = 0;
function checkpoint() {
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    return row;
  } catch (error) {
    return undefined; // busy or locked: the next tick tries again
  }
}
const timer = setInterval(() => {
  if (holding) return;
  const row = checkpoint();
  if (!row) return;
  if (row.checkpointed > 0) parentPort.postMessage({ log: row.log, checkpointed: row.checkpointed });
  const growing = row.log > lastLog;
  lastLog = row.log;
  if (restartFrames > 0 && growing && row.log > restartFrames && row.checkpointed === row.log) {
    holding = true;
    parentPort.postMessage('hold');
  }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'held') {
    const row = checkpoint();
    holding = false;
    if (row) lastLog = row.log;
    parentPort.postMessage({ log: row ? row.log : 0, checkpointed: row ? row.checkpointed : 0, released: true });
    return;
  }
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
export interface WalCheckpointerOptions {
  intervalMs?: number;
  /**
   * Past this size the WAL is started over even under steady writes: `hold` runs the function it is given while no
   * query of the main connection runs (its transactions ended, the next waiting). Without `hold` the WAL is left to
   * restart by itself, when the writes pause.
   */
  restartBytes?: number;
  hold?: (whileHeld: () => Promise<void>) => Promise<void>;
  onFailure?: (error: unknown) => void;
}

export function startWalCheckpointer(path: string, options: WalCheckpointerOptions = {}): WalCheckpointer {
  const intervalMs = options.intervalMs ?? 1000;
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const restartBytes = options.hold ? (options.restartBytes ?? 0) : 0;
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver, intervalMs, restartBytes, cacheKib: SQLITE_CACHE_KIB.checkpointer } });
  worker.unref();
  let checkpoints = 0;
  let restarts = 0;
  let waiters: Array<(result: CheckpointResult) => void> = [];
  let release: (() => void) | undefined;
  let gone = false;
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      // A stop (or a crash) must not leave the main connection held.
      gone = true;
      release?.();
      release = undefined;
      resolve();
    }),
  );
  worker.on('message', (message: CheckpointResult | 'hold') => {
    if (message === 'hold') {
      // Held until the worker has copied the rest, or has exited.
      const held = gone ? Promise.resolve() : new Promise<void>((resolve) => (release = resolve));
      let asked = false;
      const copyNow = () => {
        if (!asked) worker.postMessage('held');
        asked = true;
        return held;
      };
      // A hold that cannot be had (the connection is closing) still lets the worker go on with its checkpoints.
      options.hold!(copyNow).catch(() => void copyNow());
      return;
    }
    if ((message as { released?: boolean }).released) {
      restarts++;
      release?.();
      release = undefined;
    }
    if (message.checkpointed <= 0) return;
    checkpoints++;
    const current = waiters;
    waiters = [];
    for (const resolve of current) resolve({ log: message.log, checkpointed: message.checkpointed });
  });
  // A worker that dies (it cannot open the file, say) must not take the process down; the caller then turns
  // the main connection's auto-checkpoint back on, so the WAL cannot grow without bound.
  worker.on('error', (error) => options.onFailure?.(error));
  return {
    get checkpoints() {
      return checkpoints;
    },
    get restarts() {
      return restarts;
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
