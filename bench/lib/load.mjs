// The load of every phase, each from a process of its own: wrk for throughput (post.lua), driver.mjs for the
// fixed-rate, first-byte and held-stream phases. Nothing here runs load on the orchestrator's event loop.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'undici';
import { run, start, tempDir } from './processes.mjs';

const benchDir = fileURLToPath(new URL('..', import.meta.url));
let bodyDir;
const bodyFiles = new Map();

/**
 * wrk reads the body from a file (post.lua): one file per distinct body, written once and complete before any
 * wrk sees it (rewriting it while another wrk process reads it sent empty bodies: 400s).
 */
function bodyFile(body) {
  let file = bodyFiles.get(body);
  if (!file) {
    bodyDir ??= tempDir('mr-bench-bodies-');
    file = join(bodyDir, `${createHash('sha1').update(body).digest('hex')}.json`);
    writeFileSync(`${file}.tmp`, body);
    renameSync(`${file}.tmp`, file);
    bodyFiles.set(body, file);
  }
  return file;
}

/** The last JSON line of a load process's output (wrk's post.lua, driver.mjs); what it printed instead when there is none. */
function parseLastJson(text) {
  const line = text.trim().split('\n').filter((l) => l.startsWith('{')).at(-1);
  if (line === undefined) throw new Error(`no result line in the load process's output: ${text.slice(-1500) || '(nothing)'}`);
  return JSON.parse(line);
}

/** One wrk process: 1 thread, `connections` connections, for `seconds`. Latency in ms. */
export async function wrk({ url, headers, body }, { connections, seconds }) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', join(benchDir, 'post.lua')];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  args.push(url);
  const r = parseLastJson(await run('wrk', args, { env: { ...process.env, WRK_BODY_FILE: bodyFile(body) } }));
  return {
    requests: r.requests,
    rps: r.requests / (r.duration_us / 1e6),
    non2xx: r.non2xx,
    errors: r.connect + r.read + r.write + r.timeout,
    p50: r.p50_us / 1000,
    p90: r.p90_us / 1000,
    p99: r.p99_us / 1000,
    max: r.max_us / 1000,
  };
}

/**
 * Load until the target's rate is steady: rounds of `round` seconds (`load(seconds)` answers `{ rps }`), at least
 * `minimum` of them (two cold rounds can match: three MariaDB instances did 466 and 466 req/s, then 946 in the
 * measured run), until one is within `tolerance` of the round before, at most `limit` seconds. A process's JIT
 * warms with the requests it serves, not with time: three instances sharing one load each get a third of it, and
 * after the same 2 s as a single instance they were still compiling (the optimizing compiler took 24 % of their
 * samples against 6 %, and their rate went on rising for 15 s: bench/README.md, 2026-11-28 late evening). Answers
 * the rounds' rates.
 */
export async function warmUp(load, { round = 3, tolerance = 0.05, limit = 30, minimum = 4 } = {}) {
  const rates = [];
  const least = Math.max(2, Math.min(minimum, Math.floor(limit / round)));
  for (let spent = 0; spent < limit; spent += round) {
    rates.push((await load(round)).rps);
    const [previous, last] = rates.slice(-2);
    if (rates.length >= least && Math.abs(last - previous) <= tolerance * previous) break;
  }
  return rates;
}

/**
 * Throughput: warmed up until steady (warmUp; `warmup` caps its seconds), then the measured run; `around` runs around
 * the measured one (log size, RSS).
 */
export async function throughput(target, { connections = 32, warmup = 30, seconds, around } = {}) {
  const warmupRates = await warmUp((s) => wrk(target, { connections, seconds: s }), { limit: warmup });
  const before = around?.();
  const result = await wrk(target, { connections, seconds });
  return { ...result, warmupRates, ...(around ? { around: [before, around()] } : {}) };
}

/** Several wrk processes at once (one per URL), the same body and headers; summed requests and rates. */
export async function wrkEach(urls, target, { connections, seconds }) {
  // Each a URL of `target`, or a target of its own.
  const results = await Promise.all(urls.map((url) => wrk(typeof url === 'string' ? { ...target, url } : url, { connections, seconds })));
  const sum = (key) => results.reduce((total, r) => total + r[key], 0);
  return { rps: sum('rps'), requests: sum('requests'), non2xx: sum('non2xx'), errors: sum('errors'), each: results };
}

export async function driver(job) {
  return parseLastJson(await run(process.execPath, [join(benchDir, 'driver.mjs'), JSON.stringify(job)], { cwd: benchDir }));
}

const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);

/** Holds `streams` concurrent streams (driver.mjs hold); answers the holder once each has its first chunk, a second later. */
export async function holdStreams(target, streams) {
  const holder = start(process.execPath, [join(benchDir, 'driver.mjs'), JSON.stringify({ mode: 'hold', ...target, streams })], { cwd: benchDir, capture: true });
  let line;
  while (!(line = holder.output().split('\n').find((l) => l.includes('"holding"')))) {
    if (holder.child.exitCode !== null) throw new Error(`hold driver exited early: ${holder.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 1000));
  return Object.assign(holder, { inFlight: JSON.parse(line).inFlight });
}

/**
 * Memory per in-flight stream: the target process's RSS at rest, then with `streams` concurrent streams each
 * holding its first chunk, divided by the streams in flight. With `inspectPort` (the target runs with --inspect)
 * each RSS is read after a full garbage collection, so that it counts what is held, not the garbage that happened
 * to be left uncollected at that moment (which made the same run differ by +-5 KB per stream). Then a second wave
 * of as many streams is held on top of the first and read the same way: without what the first wave pays once for
 * the whole process (code compiled during the hold, the heap's and malloc's growth steps), but its RSS can come out
 * below its heap when it fills pages the process already held (bench/README.md, 2026-12-06 night).
 */
export async function heldStreams(target, pid, streams, inspectPort) {
  await new Promise((r) => setTimeout(r, 1500));
  const read = async () => ({ heapKb: inspectPort ? await collectGarbage(inspectPort) : undefined, kb: rssKb(pid) });
  const hold = () => holdStreams(target, streams);
  const rest = await read();
  const first = await hold();
  const during = await read();
  const second = await hold();
  const both = await read();
  await Promise.all([first.exited, second.exited]);
  const done = [parseLastJson(first.output()), parseLastJson(second.output())];
  const per = (kb, n) => (kb === undefined || Number.isNaN(kb) ? undefined : kb / Math.max(1, n));
  return {
    beforeKb: rest.kb,
    duringKb: during.kb,
    inFlight: first.inFlight,
    completed: done[0].completed,
    non2xx: done[0].non2xx + done[1].non2xx,
    errors: done[0].errors + done[1].errors,
    perStreamKb: per(during.kb - rest.kb, first.inFlight),
    heapPerStreamKb: per(during.heapKb - rest.heapKb, first.inFlight),
    secondWave: { inFlight: second.inFlight, completed: done[1].completed, rssKb: both.kb, perStreamKb: per(both.kb - during.kb, second.inFlight), heapPerStreamKb: per(both.heapKb - during.heapKb, second.inFlight) },
  };
}

/**
 * A full garbage collection in the process whose inspector listens on `inspectPort` (started with
 * `--inspect=127.0.0.1:<port>`): the memory phase reads RSS after one, so that garbage not yet collected (how much
 * depends on when the last collection happened to run) is not counted as what the held streams cost. Answers the
 * JS heap in use right after it (KB): unlike RSS, it does not move with how many freed pages V8 and malloc happen
 * to keep, so it is the steadier figure of the two.
 */
export async function collectGarbage(inspectPort) {
  const [, heapUsed] = await inspectorCalls(inspectPort, [
    { method: 'HeapProfiler.collectGarbage' },
    { method: 'Runtime.evaluate', params: { expression: 'process.memoryUsage().heapUsed', returnByValue: true } },
  ]);
  // The pages freed go back to the system shortly after the collection.
  await new Promise((r) => setTimeout(r, 500));
  return Math.round(heapUsed.result.value / 1024);
}

/** Sends `calls` in turn to the inspector at `inspectPort` (each after the last one's answer); answers their results. */
async function inspectorCalls(inspectPort, calls) {
  const [target] = await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json();
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  const results = [];
  await new Promise((resolve, reject) => {
    const send = () => socket.send(JSON.stringify({ id: results.length + 1, ...calls[results.length] }));
    socket.onopen = send;
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.id !== results.length + 1) return;
      results.push(message.result);
      if (results.length === calls.length) resolve();
      else send();
    };
    socket.onerror = reject;
  });
  socket.close();
  return results;
}

/**
 * The V8 heap's spaces as the process at `inspectPort` sees them (physical size and size in use per space, KB), and
 * the process's memory outside them (`external`, `arrayBuffers`): where RSS beyond the objects in use goes (a new
 * space grown under allocation keeps its pages through a full collection).
 */
export async function heapSpaces(inspectPort) {
  const expression = `JSON.stringify({ spaces: require('v8').getHeapSpaceStatistics().map((s) => [s.space_name, Math.round(s.physical_space_size / 1024), Math.round(s.space_used_size / 1024)]), memory: process.memoryUsage() })`;
  const [answer] = await inspectorCalls(inspectPort, [{ method: 'Runtime.evaluate', params: { expression, includeCommandLineAPI: true, returnByValue: true } }]);
  return JSON.parse(answer.result.value);
}
