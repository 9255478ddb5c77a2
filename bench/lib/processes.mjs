// Everything a run starts, and the guarantee that it is stopped: child processes are killed, temp folders
// removed and databases dropped when the run ends, fails, or is interrupted (Ctrl-C, SIGTERM).
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const children = new Set();
const dirs = [];
/** Async clean-ups (drop a database, delete Redis keys), run after every child has been killed. */
const finalizers = [];
let shuttingDown = false;

function killChildren() {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
/** KEEP_TEMP=1 keeps the temp folders (gateway logs, databases) for a post-mortem and prints where they are. */
function removeDirs() {
  for (const dir of dirs.splice(0)) {
    if (process.env.KEEP_TEMP === '1') console.error(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/** Ends the run: kill, wait for the children to go, run the finalizers, remove the temp folders, exit. */
export async function shutdown(code) {
  if (shuttingDown) return;
  shuttingDown = true;
  killChildren();
  await Promise.all([...children].map((child) => (child.exitCode === null && child.signalCode === null ? new Promise((r) => child.once('exit', r)) : null)));
  for (const finalize of finalizers.splice(0).reverse()) {
    try {
      await finalize();
    } catch (error) {
      console.error(`clean-up failed: ${error instanceof Error ? error.message : error}`);
    }
  }
  removeDirs();
  process.exit(code);
}

process.on('exit', () => {
  killChildren();
  removeDirs();
});
process.on('SIGINT', () => void shutdown(130));
process.on('SIGTERM', () => void shutdown(143));
process.on('uncaughtException', (error) => {
  if (shuttingDown) return;
  console.error(error);
  void shutdown(1);
});
process.on('unhandledRejection', (error) => {
  if (shuttingDown) return;
  console.error(error);
  void shutdown(1);
});

/** True once the run is ending: what fails after that (a killed child) is a consequence, not news. */
export const isShuttingDown = () => shuttingDown;

export function onShutdown(finalize) {
  finalizers.push(finalize);
}

export function tempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

export const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/**
 * Starts a child. `logFile`: its stdout and stderr appended to that file (as a service manager captures a
 * service's output); otherwise stdout is dropped and stderr shown. `capture`: stdout collected and returned by
 * `output()` (load drivers print JSON).
 */
export function start(command, args, { env = process.env, cwd, logFile, capture = false } = {}) {
  let stdio = ['ignore', capture ? 'pipe' : 'ignore', 'inherit'];
  let fd;
  if (logFile) {
    fd = openSync(logFile, 'a');
    stdio = ['ignore', fd, fd];
  }
  const child = spawn(command, args, { env, cwd, stdio });
  if (fd !== undefined) closeSync(fd);
  children.add(child);
  // A captured child is done when its stdout has closed too: 'exit' can come before the last of its output has
  // been read, and a load driver's result line was then lost (wrk's JSON line: "no result line", now and then).
  const exited = new Promise((resolve) => child.once(capture ? 'close' : 'exit', (code, signal) => resolve(code ?? signal)));
  exited.then(() => children.delete(child));
  let stdout = '';
  if (capture) child.stdout.on('data', (chunk) => (stdout += chunk));
  return { child, pid: child.pid, exited, output: () => stdout };
}

/** Runs a command to its end and returns its stdout; a non-zero exit is an error carrying the output. */
export async function run(command, args, options = {}) {
  const started = start(command, args, { ...options, capture: true });
  const code = await started.exited;
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}: ${started.output().slice(-2000)}`);
  return started.output();
}

export async function waitFor(url, init, { timeoutMs = 60_000, ok = (status) => status < 500 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const res = await fetch(url, init);
      const text = await res.text();
      if (ok(res.status)) return;
      last = `HTTP ${res.status}: ${text.slice(0, 300)}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${url} (${last})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const benchDir = fileURLToPath(new URL('..', import.meta.url));

/**
 * Starts the bare pass-through (bare-passthrough.mjs) in front of `upstream` on a free port (with `nodeArgs`, e.g. an
 * inspector for the memory phase, and `env` added to its environment); answers its URL, pid and a stop once it
 * answers. It is killed on exit with the rest.
 */
export async function startBare(upstream, { nodeArgs = [], env = {}, cwd = benchDir } = {}) {
  const port = await freePort();
  const started = start(process.execPath, [...nodeArgs, join(benchDir, 'bare-passthrough.mjs')], { env: { PATH: process.env.PATH, ...env, PORT: String(port), UPSTREAM: upstream }, cwd });
  await waitFor(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }, { ok: (s) => s === 200 });
  return { url: `http://127.0.0.1:${port}`, pid: started.pid, stop: () => started.child.kill('SIGKILL') };
}

/** Starts one of the bench's mock upstreams (a file of bench/) on a free port, or `port`; answers its URL once it answers. */
export async function startMock(file, { env = {}, port } = {}) {
  const listen = port ?? (await freePort());
  start(process.execPath, [join(benchDir, file)], { env: { ...process.env, PORT: String(listen), ...env }, cwd: benchDir });
  await waitFor(`http://127.0.0.1:${listen}/`, { method: 'POST', body: '{}' }, { ok: (s) => s === 200 });
  return `http://127.0.0.1:${listen}`;
}
