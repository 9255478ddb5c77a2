// How far above the transport a gateway can get at best. In front of one OpenAI mock, in interleaved rounds under
// the same wrk load (whole answers, 32 connections): the bare pass-through (bare-passthrough.mjs, the transport), the
// floor (floor-passthrough.mjs: the bare pass-through plus the least work issue 17's features need, done the
// cheapest way), the same floor behind Fastify (the gateway's framework) and the gateway on SQLite. Prints req/s and
// CPU ms per request (utime + stime) of each, and their medians, so that the gateway's distance from the transport
// splits into the features, the framework and the rest (our code).
// Usage: cd bench && node floor.mjs [seconds]   (default 8 s per measure, after a 3 s warm-up per process)
//   ROUNDS=n   rounds (default 3), each measuring the three in turn
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, seed } from './lib/database.mjs';
import { startGateway } from './lib/gateway.mjs';
import { wrk } from './lib/load.mjs';
import { targetsOf } from './lib/paths.mjs';
import { freePort, shutdown, sleep, start, tempDir, waitFor } from './lib/processes.mjs';
import { median } from './lib/stats.mjs';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const seconds = Number(process.argv[2] ?? 8);
const rounds = Number(process.env.ROUNDS ?? 3);
const work = tempDir('mr-floor-');

/** utime + stime of a process in ms (CLK_TCK 100). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function startScript(file, env, okStatus) {
  const port = await freePort();
  const child = start(process.execPath, [join(benchDir, file)], { env: { PATH: process.env.PATH, PORT: String(port), ...env }, cwd: benchDir, logFile: join(work, `${file}.log`) });
  await waitFor(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }, { ok: (s) => s === okStatus });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid };
}

const mock = await startScript('mock-upstream.mjs', {}, 200);
const bare = await startScript('bare-passthrough.mjs', { UPSTREAM: mock.url }, 200);
const floor = await startScript('floor-passthrough.mjs', { UPSTREAM: mock.url, KEY: 'sk-floor', DB: join(work, 'floor.db') }, 401);
const floorFastify = await startScript('floor-passthrough.mjs', { UPSTREAM: mock.url, KEY: 'sk-floor', DB: join(work, 'floor-fastify.db'), FASTIFY: '1' }, 401);
const sqlitePath = join(work, 'gateway.db');
const gateway = await startGateway({ data: { SQLITE_PATH: sqlitePath }, cwd: work, logFile: join(work, 'gateway.log') });
const db = await openDatabase('sqlite', sqlitePath);
const seeded = await seed(db, { openaiUrl: mock.url });
await db.close();

const openai = targetsOf({ openaiMock: mock.url, gateway: gateway.url, key: seeded.key, bareOpenai: bare.url }).openai;
const targets = {
  bare: { ...openai.bare, pid: bare.pid },
  floor: { ...openai.bare, url: `${floor.url}/v1/chat/completions`, headers: { ...openai.bare.headers, authorization: 'Bearer sk-floor' }, pid: floor.pid },
  'floor+fastify': { ...openai.bare, url: `${floorFastify.url}/v1/chat/completions`, headers: { ...openai.bare.headers, authorization: 'Bearer sk-floor' }, pid: floorFastify.pid },
  gateway: { ...openai.gateway, pid: gateway.pid },
};
await waitFor(targets.gateway.url, { method: 'POST', headers: targets.gateway.headers, body: targets.gateway.body }, { ok: (s) => s === 200, timeoutMs: 15_000 });

console.log(`bare / floor / floor+fastify / gateway (SQLite), OpenAI pass-through, wrk 32 connections, ${seconds} s per measure, ${rounds} rounds, load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const results = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
for (let round = 1; round <= rounds; round++) {
  for (const [name, target] of Object.entries(targets)) {
    await wrk(target, { connections: 32, seconds: 3 }); // warm-up: JIT, pools, caches
    await sleep(300);
    const before = cpuMs(target.pid);
    const r = await wrk(target, { connections: 32, seconds });
    const cpu = (cpuMs(target.pid) - before) / r.requests;
    if (r.non2xx + r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} socket errors`);
    results[name].push({ rps: r.rps, cpu });
    console.log(`round ${round} ${name.padEnd(13)} ${r.rps.toFixed(0).padStart(6)} req/s · CPU ${cpu.toFixed(3)} ms/req · p50 ${r.p50.toFixed(2)} ms`);
  }
}
const bareRps = median(results.bare.map((r) => r.rps));
console.log('\nmedians:');
for (const [name, rows] of Object.entries(results)) {
  const rps = median(rows.map((r) => r.rps));
  console.log(`${name.padEnd(13)} ${rps.toFixed(0).padStart(6)} req/s (${((100 * rps) / bareRps).toFixed(1)} % of bare) · CPU ${median(rows.map((r) => r.cpu)).toFixed(3)} ms/req`);
}
await shutdown(0);
