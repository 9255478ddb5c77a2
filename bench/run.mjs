// One benchmark run: the mock called directly, the gateway (auth, quota, logging all on) and Portkey in front
// of the same mock, on loopback. Writes RESULTS.md. Usage: cd bench && npm install && node run.mjs
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Agent, request } from 'undici';
import { paced } from './paced.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const requireFromRoot = createRequire(join(root, 'package.json'));
const Database = requireFromRoot('better-sqlite3');
const QUICK = process.env.QUICK === '1';
const DURATION = QUICK ? 4 : 10;
const STREAMS = Number(process.env.STREAMS ?? 1000);

const children = [];
const dirs = [];
function cleanup() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

function start(command, args, env) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}

async function waitFor(url, init) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(url, init);
      if (res.status < 500) return;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${url}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there, how are you?' }] });
const streamBody = JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Hello there, how are you?' }] });

// ---- start the three targets ----
const mockPort = await freePort();
start(process.execPath, ['mock-upstream.mjs'], { PORT: String(mockPort), HOLD_MS: '20000' });
const mockUrl = `http://127.0.0.1:${mockPort}`;
await waitFor(`${mockUrl}/v1/chat/completions`, { method: 'POST', body });

const gatewayPort = await freePort();
const dataDir = mkdtempSync(join(tmpdir(), 'mr-bench-'));
dirs.push(dataDir);
const gateway = start(process.execPath, [join(root, 'packages/server/dist/main.js')], {
  PORT: String(gatewayPort), SQLITE_PATH: join(dataDir, 'gateway.db'), LOG_LEVEL: 'warn', GLOBAL_API_RATE_LIMIT: '0', SQL_DSN: '', REDIS_CONN_STRING: '',
});
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
await waitFor(`${gatewayUrl}/api/status`);
const key = randomBytes(36).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, 48).padEnd(48, 'x');
{
  const db = new Database(join(dataDir, 'gateway.db'));
  db.pragma('busy_timeout = 5000');
  const now = Math.floor(Date.now() / 1000);
  const channel = db.prepare(`insert into channels (type, key, status, name, weight, created_time, test_time, response_time, base_url, other, balance, balance_updated_time, models, "group", used_quota, request_count, model_mapping, priority, config, system_prompt)
    values (1, 'ok', 1, 'bench', 0, ?, 0, 0, ?, '', 0, 0, 'gpt-4o-mini,hold-model', 'default', 0, 0, '', 0, '', '')`).run(now, mockUrl);
  for (const model of ['gpt-4o-mini', 'hold-model']) {
    db.prepare(`insert into abilities ("group", model, channel_id, enabled, priority, weight) values ('default', ?, ?, 1, 0, 0)`).run(model, channel.lastInsertRowid);
  }
  db.prepare(`insert into tokens (user_id, key, status, name, created_time, accessed_time, expired_time, remain_quota, unlimited_quota, used_quota, request_count, models, subnet)
    values (1, ?, 1, 'bench', ?, 0, -1, 0, 1, 0, 0, '', '')`).run(key, now);
  db.close();
}
const gatewayHeaders = { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' };

const portkeyPort = await freePort();
start(process.execPath, [join(root, 'bench/node_modules/@portkey-ai/gateway/build/start-server.js'), `--port=${portkeyPort}`, '--headless'], {});
const portkeyUrl = `http://127.0.0.1:${portkeyPort}`;
const portkeyHeaders = { 'content-type': 'application/json', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${mockUrl}/v1`, authorization: 'Bearer sk-test' };
await waitFor(`${portkeyUrl}/v1/chat/completions`, { method: 'POST', headers: portkeyHeaders, body });

const targets = {
  direct: { url: `${mockUrl}/v1/chat/completions`, headers: { 'content-type': 'application/json' } },
  gateway: { url: `${gatewayUrl}/v1/chat/completions`, headers: gatewayHeaders },
  portkey: { url: `${portkeyUrl}/v1/chat/completions`, headers: portkeyHeaders },
};

function cannon(target, options) {
  return new Promise((resolve, reject) => {
    autocannon({ url: target.url, method: 'POST', headers: target.headers, body, ...options }, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

// ---- 1. non-stream throughput ----
const throughput = {};
for (const [name, target] of Object.entries(targets)) {
  await cannon(target, { connections: 32, duration: 2 });
  const result = await cannon(target, { connections: 32, duration: DURATION });
  throughput[name] = { rps: result.requests.average, non2xx: result.non2xx, errors: result.errors };
  console.log(`throughput ${name}: ${result.requests.average} req/s (non-2xx ${result.non2xx}, errors ${result.errors})`);
}

// ---- 2. latency at a fixed 1,000 req/s ----
const latency = {};
for (const name of ['direct', 'gateway', 'portkey']) {
  const result = await paced({ ...targets[name], body, rate: 1000, seconds: DURATION });
  latency[name] = result;
  console.log(`latency ${name} @1000/s: p50 ${result.p50.toFixed(3)} p90 ${result.p90.toFixed(3)} p99 ${result.p99.toFixed(3)} ms, achieved ${result.rps.toFixed(0)} req/s`);
}

// ---- 3. stream time to first byte ----
async function ttfb(target, n = 200) {
  const samples = [];
  const agent = new Agent({ connections: 4 });
  for (let i = 0; i < n + 20; i++) {
    const started = process.hrtime.bigint();
    const res = await request(target.url, { method: 'POST', headers: target.headers, body: streamBody, dispatcher: agent });
    let first;
    for await (const _ of res.body) {
      if (first === undefined) first = Number(process.hrtime.bigint() - started) / 1e6;
    }
    if (i >= 20) samples.push(first);
  }
  await agent.close();
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(samples.length / 2)], p99: samples[Math.floor(samples.length * 0.99) - 1] };
}
const firstByte = {};
for (const [name, target] of Object.entries(targets)) {
  firstByte[name] = await ttfb(target);
  console.log(`ttfb ${name}: p50 ${firstByte[name].p50.toFixed(3)} ms, p99 ${firstByte[name].p99.toFixed(3)} ms`);
}

// ---- 4. memory with STREAMS streams in flight ----
async function memory(target, pid) {
  await new Promise((r) => setTimeout(r, 1500));
  global.gc?.();
  const before = rssKb(pid);
  const agent = new Agent({ connections: STREAMS + 10, pipelining: 1 });
  const holdBody = JSON.stringify({ model: 'hold-model', stream: true, messages: [{ role: 'user', content: 'hold' }] });
  let firstChunks = 0;
  let completed = 0;
  let allStarted;
  const started = new Promise((r) => (allStarted = r));
  const runs = Array.from({ length: STREAMS }, async () => {
    const res = await request(target.url, { method: 'POST', headers: target.headers, body: holdBody, dispatcher: agent, bodyTimeout: 60_000, headersTimeout: 60_000 });
    let first = true;
    for await (const _ of res.body) {
      if (first) {
        first = false;
        if (++firstChunks === STREAMS) allStarted();
      }
    }
    completed++;
  });
  await Promise.race([started, new Promise((r) => setTimeout(r, 30_000))]);
  await new Promise((r) => setTimeout(r, 1000));
  const during = rssKb(pid);
  const inFlight = firstChunks;
  await Promise.allSettled(runs);
  await agent.close();
  return { beforeKb: before, duringKb: during, inFlight, completed, perStreamKb: (during - before) / Math.max(1, inFlight) };
}
const memoryGateway = await memory(targets.gateway, gateway.pid);
console.log(`memory gateway: ${JSON.stringify(memoryGateway)}`);

// ---- report ----
const ratio = (a, b) => (b ? a / b : 0);
const throughputRatio = ratio(throughput.gateway.rps, throughput.direct.rps);
const vsPortkey = ratio(throughput.gateway.rps, throughput.portkey.rps);
const addedP50 = latency.gateway.p50 - latency.direct.p50;
const addedP99 = latency.gateway.p99 - latency.direct.p99;
const ttfbOverhead = firstByte.gateway.p50 - firstByte.direct.p50;
const fmt = (n, d = 2) => (typeof n === 'number' ? n.toFixed(d) : String(n));
const met = (ok) => (ok ? 'met' : 'NOT met');
const cpu = cpus()[0]?.model ?? 'unknown';
const report = `# Benchmark results

Run on ${new Date().toISOString()} · ${cpus().length} cores (${cpu}) · Node ${process.version} · gateway on embedded SQLite (WAL)
with key auth, quota reservation/settlement and a consume log row per request · load generator, mock, gateway and
Portkey share the same cores on loopback, so absolute numbers are pessimistic; compare the ratios.

## Targets

| target | goal | measured | status |
|---|---|---|---|
| non-stream throughput vs direct | >= 25 % | ${fmt(throughputRatio * 100, 1)} % | ${met(throughputRatio >= 0.25)} |
| non-stream throughput vs Portkey | >= 10x | ${fmt(vsPortkey, 1)}x | ${met(vsPortkey >= 10)} |
| added p50 at 1,000 req/s | < 1 ms | ${fmt(addedP50)} ms | ${met(addedP50 < 1)} |
| added p99 at 1,000 req/s | < 5 ms | ${fmt(addedP99)} ms | ${met(addedP99 < 5)} |
| stream first-byte overhead (p50) | < 1 ms | ${fmt(ttfbOverhead, 3)} ms | ${met(ttfbOverhead < 1)} |
| memory per in-flight stream | < 100 KB | ${fmt(memoryGateway.perStreamKb, 1)} KB | ${met(memoryGateway.perStreamKb < 100)} |

## 1. Non-stream throughput (autocannon, 32 connections, ${DURATION} s after a 2 s warm-up)

| target | req/s | non-2xx | errors |
|---|---|---|---|
${Object.entries(throughput).map(([n, r]) => `| ${n} | ${fmt(r.rps, 0)} | ${r.non2xx} | ${r.errors} |`).join('\n')}

## 2. Latency at a fixed 1,000 req/s (paced.mjs: open loop, evenly spaced, ${DURATION} s after a 2 s warm-up)

| target | p50 ms | p90 ms | p99 ms | max ms | achieved req/s | non-2xx / errors |
|---|---|---|---|---|---|---|
${Object.entries(latency).map(([n, r]) => `| ${n} | ${fmt(r.p50, 3)} | ${fmt(r.p90, 3)} | ${fmt(r.p99, 3)} | ${fmt(r.max, 1)} | ${fmt(r.rps, 0)} | ${r.non2xx} / ${r.errors} |`).join('\n')}

Requests leave every millisecond whether or not earlier ones have answered (autocannon's overallRate releases
each second's requests in a burst, which measures queueing behind the burst instead).

## 3. Stream time to first byte (200 sequential streaming requests after 20 warm-up ones)

| target | p50 ms | p99 ms |
|---|---|---|
${Object.entries(firstByte).map(([n, r]) => `| ${n} | ${fmt(r.p50, 3)} | ${fmt(r.p99, 3)} |`).join('\n')}

## 4. Memory with ${STREAMS} streams in flight through the gateway

RSS before: ${memoryGateway.beforeKb} KB · during: ${memoryGateway.duringKb} KB · streams holding their first chunk: ${memoryGateway.inFlight} ·
completed afterwards: ${memoryGateway.completed} · per stream: **${fmt(memoryGateway.perStreamKb, 1)} KB**
`;
writeFileSync(join(root, 'bench/RESULTS.md'), report);
console.log(report);
cleanup();
process.exit(0);
