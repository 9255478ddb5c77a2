import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

/**
 * Watches the event loop while requests run: a 10 ms timer that fires late means something held the loop
 * (and with it every other request) for that long. Used to find suspects, which the status probe then measures.
 */
export function watchEventLoop<T>(thresholdMs: number, current: () => T[]) {
  const stalls: Array<{ ms: number; during: T[] }> = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - 10;
    const during = current();
    if (late > thresholdMs && during.length > 0) stalls.push({ ms: Math.round(late), during });
    last = now;
  }, 10);
  return () => {
    clearInterval(timer);
    return stalls;
  };
}

// Runs in a worker thread, so its requests arrive at the server's socket while the main thread is busy.
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let slowest = 0;
let running = true;
function ask() {
  if (!running) return;
  const started = performance.now();
  http.get(workerData.url + '/api/status', { agent }, (res) => {
    res.resume();
    res.on('end', () => {
      slowest = Math.max(slowest, performance.now() - started);
      setTimeout(ask, 5);
    });
  }).on('error', () => setTimeout(ask, 5));
}
ask();
parentPort.on('message', (message) => {
  if (message === 'take') {
    parentPort.postMessage(slowest);
    slowest = 0;
  } else if (message === 'stop') {
    running = false;
    agent.destroy();
    parentPort.close();
  }
});
`;

/**
 * A client in another thread asking GET /api/status every 5 ms over real HTTP: how long the slowest answer
 * took is how long any request arriving meanwhile would have waited.
 */
export function startStatusProbe(url: string) {
  const worker = new Worker(PROBE, { eval: true, workerData: { url } });
  return {
    /** The slowest answer since the last call, in ms. */
    take(): Promise<number> {
      return new Promise((resolve) => {
        worker.once('message', (ms: number) => resolve(Math.round(ms)));
        worker.postMessage('take');
      });
    },
    async stop(): Promise<void> {
      worker.postMessage('stop');
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}
