// Profiles the gateway under non-stream load: starts the mock and the gateway (node --cpu-prof), drives
// autocannon at it, stops the gateway and prints the functions that took the most self time.
// Usage: cd bench && node profile.mjs [seconds]   (the .cpuprofile is left in PROFILE_DIR, default a temp dir)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { paced } from './paced.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const Database = createRequire(join(root, 'package.json'))('better-sqlite3');
const seconds = Number(process.argv[2] ?? 8);
const rate = Number(process.env.RATE ?? 0); // RATE=1000: paced open-loop load instead of autocannon at full speed
const profileDir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), 'mr-prof-'));
const freePort = () => new Promise((resolve) => { const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); }); });
const waitFor = async (url, init) => { for (let i = 0; i < 150; i++) { try { const r = await fetch(url, init); if (r.status < 500) return; } catch { /* not up yet */ } await new Promise((r) => setTimeout(r, 200)); } throw new Error(`timeout ${url}`); };
const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there, how are you?' }] });

const mockPort = await freePort();
const mock = spawn(process.execPath, ['mock-upstream.mjs'], { env: { ...process.env, PORT: String(mockPort) }, stdio: 'ignore' });
await waitFor(`http://127.0.0.1:${mockPort}/v1/chat/completions`, { method: 'POST', body });
const dataDir = mkdtempSync(join(tmpdir(), 'mr-prof-db-'));
const port = await freePort();
const gateway = spawn(process.execPath, [...(process.env.NOPROF ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]), ...(process.env.GATEWAY_NODE_ARGS?.split(' ').filter(Boolean) ?? []), join(root, 'packages/server/dist/main.js')], {
  env: { ...process.env, PORT: String(port), SQLITE_PATH: join(dataDir, 'g.db'), LOG_LEVEL: 'warn', GLOBAL_API_RATE_LIMIT: '0', SQL_DSN: '', REDIS_CONN_STRING: '' }, stdio: ['ignore', process.env.GATEWAY_NODE_ARGS ? 'inherit' : 'ignore', 'inherit'],
});
await waitFor(`http://127.0.0.1:${port}/api/status`);
const key = randomBytes(24).toString('hex');
{
  const db = new Database(join(dataDir, 'g.db'));
  const now = Math.floor(Date.now() / 1000);
  const ch = db.prepare(`insert into channels (type, key, status, name, weight, created_time, test_time, response_time, base_url, other, balance, balance_updated_time, models, "group", used_quota, request_count, model_mapping, priority, config, system_prompt)
    values (1, 'ok', 1, 'bench', 0, ?, 0, 0, ?, '', 0, 0, 'gpt-4o-mini', 'default', 0, 0, '', 0, '', '')`).run(now, `http://127.0.0.1:${mockPort}`);
  db.prepare(`insert into abilities ("group", model, channel_id, enabled, priority, weight) values ('default', 'gpt-4o-mini', ?, 1, 0, 0)`).run(ch.lastInsertRowid);
  db.prepare(`insert into tokens (user_id, key, status, name, created_time, accessed_time, expired_time, remain_quota, unlimited_quota, used_quota, request_count, models, subnet)
    values (1, ?, 1, 'bench', ?, 0, -1, 0, 1, 0, 0, '', '')`).run(key, now);
  db.close();
}
if (rate > 0) {
  for (const [name, url, headers] of [['direct', `http://127.0.0.1:${mockPort}/v1/chat/completions`, { 'content-type': 'application/json' }], ['gateway', `http://127.0.0.1:${port}/v1/chat/completions`, { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' }]]) {
    const r = await paced({ url, headers, body, rate, seconds });
    console.log(`${name} @${rate}/s: p50 ${r.p50.toFixed(3)} p90 ${r.p90.toFixed(3)} p99 ${r.p99.toFixed(3)} max ${r.max.toFixed(1)} ms, ${r.rps.toFixed(0)} req/s, non-2xx ${r.non2xx}, errors ${r.errors}`);
  }
} else {
const result = await autocannon({ url: `http://127.0.0.1:${port}/v1/chat/completions`, method: 'POST', body, connections: 32, duration: seconds,
  headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' } });
console.log(`gateway: ${result.requests.average} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`);
}
gateway.kill('SIGINT');
await new Promise((r) => gateway.once('exit', r));
mock.kill('SIGKILL');

if (process.env.NOPROF) process.exit(0);
// One profile per thread (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile): the main thread is thread 0.
const file = readdirSync(profileDir).filter((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f)).sort().pop();
const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'));
const self = new Map();
const dt = new Map();
profile.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
let total = 0;
for (const node of profile.nodes) {
  const t = dt.get(node.id) ?? 0;
  total += t;
  const { functionName, url, lineNumber } = node.callFrame;
  const name = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/packages\//, '')}:${lineNumber + 1}`;
  self.set(name, (self.get(name) ?? 0) + t);
}
console.log(`profile: ${join(profileDir, file)}`);
for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) console.log(`${((t / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
