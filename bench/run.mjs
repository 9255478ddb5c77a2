// One benchmark run: three paths (OpenAI pass-through, OpenAI client translated to an Anthropic upstream,
// Anthropic pass-through), each against a zero-latency mock called directly, through the gateway and through
// Portkey; then the cluster run. Writes RESULTS.md. Usage: cd bench && npm install && node run.mjs
//   QUICK=1                                   short phases (development)
//   ONLY=openai,translated,anthropic,cluster  a subset
//   STREAMS=n                                 streams held in the memory phase (default 1,000; QUICK 200)
//   CLUSTER_ROUNDS=n                          interleaved rounds of the cluster run's setups (default 5; QUICK 2)
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { clusterRun } from './lib/cluster.mjs';
import { moneyCheck, openDatabase, seed, waitForSettlement } from './lib/database.mjs';
import { gatewayBuilt, startGateway } from './lib/gateway.mjs';
import { driver, heldStreams, throughput } from './lib/load.mjs';
import { PATHS, targetsOf } from './lib/paths.mjs';
import { freePort, isShuttingDown, shutdown, start, startBare, startMock, tempDir, waitFor } from './lib/processes.mjs';
import { renderReport } from './lib/report.mjs';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const QUICK = process.env.QUICK === '1';
const DURATION = QUICK ? 4 : 10;
/** At most this long a warm-up to a steady rate (load.mjs, warmUp). */
const WARMUP_LIMIT = QUICK ? 9 : 30;
const STREAMS = Number(process.env.STREAMS ?? (QUICK ? 200 : 1000));
/** How long the mocks hold a held stream: both waves of the memory phase are held at once (load.mjs, heldStreams). */
const HOLD_MS = QUICK ? 15_000 : 30_000;
const RATE = 500;
const CONNECTIONS = 32;
/**
 * Sequential streams per target, after a warm-up of their own: the whole-answer phases before do not warm the stream
 * path's code, and with 20 warm-up streams the first path measured (the OpenAI pass-through) carried the JIT's warm-up
 * of it (bench/README.md, 2026-11-29 day).
 */
const TTFB = QUICK ? { n: 100, warmup: 50 } : { n: 200, warmup: 500 };
const CLUSTER_ROUNDS = Number(process.env.CLUSTER_ROUNDS ?? (QUICK ? 2 : 5));
const ALL = [...Object.keys(PATHS), 'cluster'];
const ONLY = (process.env.ONLY ?? ALL.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
const ROLES = ['direct', 'bare', 'gateway', 'portkey'];
const log = (line) => console.log(line);

function preflight() {
  const unknown = ONLY.filter((name) => !ALL.includes(name));
  if (unknown.length > 0) return `ONLY: unknown ${unknown.join(', ')} (choose from ${ALL.join(', ')})`;
  const wrkVersion = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (wrkVersion.error) return 'wrk is not installed: on Debian/Ubuntu `apt-get install -y wrk` (4.1), elsewhere https://github.com/wg/wrk';
  if (!gatewayBuilt()) return 'the gateway is not built: run `npm run build` at the repository root';
  if (!existsSync(join(benchDir, 'node_modules/@portkey-ai/gateway'))) return 'the bench dependencies are missing: run `npm install` in bench/';
  return undefined;
}

const wrkVersion = () => /wrk (\S+)/.exec(spawnSync('wrk', ['--version'], { encoding: 'utf8' }).stdout)?.[1] ?? 'unknown';
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');


/** The bare pass-through (node:http + undici, nothing of the gateway) in front of `upstream`: the transport's limit. */
/** Measures each distinct target once per phase (the translated and Anthropic paths share their direct target). */
async function phase(name, paths, targets, measure) {
  const done = new Map();
  const results = {};
  for (const path of paths) {
    results[path] = {};
    for (const role of ROLES) {
      const target = targets[path][role];
      if (!target) continue;
      if (!done.has(target.id)) {
        done.set(target.id, await measure(target, role, path));
        log(`${name} ${path} ${role}: ${JSON.stringify(done.get(target.id))}`);
      }
      results[path][role] = done.get(target.id);
    }
  }
  return results;
}

async function singleInstanceRun(paths, report, mocks) {
  const { openaiMock, anthropicMock } = mocks;
  const work = tempDir('mr-bench-');
  const gateway = await startGateway({ data: { SQLITE_PATH: join(work, 'gateway.db') }, cwd: work, logFile: join(work, 'gateway.log') });
  const db = await openDatabase('sqlite', join(work, 'gateway.db'));
  const seeded = await seed(db, { openaiUrl: openaiMock, anthropicUrl: anthropicMock });

  const portkeyPort = await freePort();
  start(process.execPath, [join(benchDir, 'node_modules/@portkey-ai/gateway/build/start-server.js'), `--port=${portkeyPort}`, '--headless'], { cwd: benchDir });
  const bareOpenai = (await startBare(openaiMock)).url;
  const bareAnthropic = (await startBare(anthropicMock)).url;
  const targets = targetsOf({ openaiMock, anthropicMock, gateway: gateway.url, key: seeded.key, portkey: `http://127.0.0.1:${portkeyPort}`, bareOpenai, bareAnthropic });
  // Every target answers 200 to both bodies before anything is measured (the gateway's caches see the seeded rows).
  for (const path of paths) {
    for (const role of ROLES) {
      const t = targets[path][role];
      for (const body of [t.body, t.streamBody]) await waitFor(t.url, { method: 'POST', headers: t.headers, body }, { ok: (s) => s === 200, timeoutMs: 30_000 });
    }
  }

  const tp = await phase('throughput', paths, targets, async (target, role) => {
    const result = await throughput(target, { connections: CONNECTIONS, seconds: DURATION, warmup: WARMUP_LIMIT, around: role === 'gateway' ? gateway.logBytes : undefined });
    if (result.around) result.logBytesPerRequest = (result.around[1] - result.around[0]) / result.requests;
    delete result.around;
    return result;
  });
  const latency = await phase('latency', paths, targets, (t) => driver({ mode: 'paced', url: t.url, headers: t.headers, body: t.body, rate: RATE, seconds: DURATION }));
  const ttfb = await phase('ttfb', paths, targets, (t) => driver({ mode: 'ttfb', url: t.url, headers: t.headers, body: t.streamBody, ...TTFB }));
  for (const path of paths) report.paths[path] = { throughput: tp[path], latency: latency[path], ttfb: ttfb[path] };
  await waitForSettlement(db);
  report.money = await moneyCheck(db, seeded);
  log(`money: ${JSON.stringify(report.money)}`);
  await db.close();
  const lines = readFileSync(gateway.logFile, 'utf8').split('\n').filter(Boolean);
  report.logSample = lines.find((line) => line.includes('/v1/')) ?? lines.at(-1);
  await gateway.stop();
  for (const path of paths) {
    report.paths[path].memory = await memoryPhase(path, mocks);
    log(`memory ${path}: ${JSON.stringify(report.paths[path].memory)}`);
  }
  // The bare pass-through's own memory per held stream, measured the same way: what node's server and undici take
  // by themselves (the translated and Anthropic paths share the one in front of the Anthropic mock, as above).
  report.bareMemory = {};
  for (const [mock, url, path] of [['openai', mocks.openaiMock, 'openai'], ['anthropic', mocks.anthropicMock, 'anthropic']]) {
    if (!paths.includes(path) && !(mock === 'anthropic' && paths.includes('translated'))) continue;
    report.bareMemory[mock] = await bareMemoryPhase(url, path, mocks);
    log(`memory bare ${mock}: ${JSON.stringify(report.bareMemory[mock])}`);
  }
}

/** The bare pass-through (bare-passthrough.mjs) in front of one mock, on a process of its own, as memoryPhase measures the gateway. */
async function bareMemoryPhase(upstream, path, mocks) {
  const inspectPort = await freePort();
  const bare = await startBare(upstream, { nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`] });
  try {
    // The gateway's target with the bare pass-through's address: it relays any path and header to its upstream.
    const t = targetsOf({ ...mocks, gateway: bare.url, key: 'none' })[path].gateway;
    await driver({ mode: 'ttfb', url: t.url, headers: t.headers, body: t.streamBody, n: 50, warmup: 0 });
    return await heldStreams({ url: t.url, headers: t.headers, body: t.holdBody }, bare.pid, STREAMS, inspectPort);
  } finally {
    bare.stop();
  }
}

/**
 * Memory per in-flight stream, each path on a gateway process of its own (fresh SQLite, 50 streaming requests as
 * a warm-up): in a process that has already served load, a collection during the hold frees more garbage than
 * the streams take, and a heap grown by an earlier path's streams would make a later path look free.
 */
async function memoryPhase(path, { openaiMock, anthropicMock }) {
  const dir = tempDir(`mr-bench-memory-${path}-`);
  // The inspector (on a port of its own) lets the phase collect the gateway's garbage before each RSS read (lib/load.mjs).
  const inspectPort = await freePort();
  const gateway = await startGateway({ data: { SQLITE_PATH: join(dir, 'gateway.db') }, cwd: dir, logFile: join(dir, 'gateway.log'), nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`] });
  try {
    const db = await openDatabase('sqlite', join(dir, 'gateway.db'));
    const seeded = await seed(db, { openaiUrl: openaiMock, anthropicUrl: anthropicMock });
    await db.close();
    const t = targetsOf({ openaiMock, anthropicMock, gateway: gateway.url, key: seeded.key })[path].gateway;
    await waitFor(t.url, { method: 'POST', headers: t.headers, body: t.streamBody }, { ok: (s) => s === 200, timeoutMs: 30_000 });
    await driver({ mode: 'ttfb', url: t.url, headers: t.headers, body: t.streamBody, n: 50, warmup: 0 });
    return await heldStreams({ url: t.url, headers: t.headers, body: t.holdBody }, gateway.pid, STREAMS, inspectPort);
  } finally {
    await gateway.stop();
  }
}

async function main() {
  const problem = preflight();
  if (problem) {
    console.error(problem);
    return shutdown(1);
  }
  const report = {
    date: new Date().toISOString(), cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version, wrkVersion: wrkVersion(),
    loadBefore: load(), quick: QUICK, rate: RATE, duration: DURATION, warmupLimit: WARMUP_LIMIT, connections: CONNECTIONS, streams: STREAMS, ttfbN: TTFB.n, ttfbWarmup: TTFB.warmup,
    paths: {},
  };
  log(`load average ${report.loadBefore}; ${ONLY.join(', ')}${QUICK ? ' (QUICK)' : ''}`);
  const mocks = { openaiMock: await startMock('mock-upstream.mjs', { env: { HOLD_MS: String(HOLD_MS) } }), anthropicMock: await startMock('mock-anthropic.mjs', { env: { HOLD_MS: String(HOLD_MS) } }) };
  const paths = Object.keys(PATHS).filter((name) => ONLY.includes(name));
  if (paths.length > 0) await singleInstanceRun(paths, report, mocks);
  if (report.paths.openai && report.paths.translated) report.translationCost = 1 - report.paths.translated.throughput.gateway.rps / report.paths.openai.throughput.gateway.rps;
  if (ONLY.includes('cluster')) {
    report.clusterConnections = Math.round(CONNECTIONS / 3);
    report.clusterRounds = CLUSTER_ROUNDS;
    report.cluster = await clusterRun({ openaiMock: mocks.openaiMock, connections: CONNECTIONS, seconds: DURATION, rate: RATE, warmupLimit: WARMUP_LIMIT, rounds: CLUSTER_ROUNDS, log });
  }
  report.loadAfter = load();
  const text = renderReport(report);
  writeFileSync(join(benchDir, 'RESULTS.md'), text);
  console.log(text);
  return shutdown(0);
}

main().catch((error) => {
  if (isShuttingDown()) return undefined;
  console.error(error);
  return shutdown(1);
});
