// Profiles the gateway under load (whole answers, or streamed with STREAM=1): starts the mocks and the gateway
// (node --cpu-prof, default settings as in run.mjs), drives wrk at one path, stops the gateway and prints the
// functions with the most self time. Usage: cd bench && node profile.mjs [seconds]
//   PATH_NAME=openai|translated|anthropic  which path (default openai)
//   STREAM=1                               streamed requests instead of whole answers
//   DB=postgres|mysql                      the gateway on a fresh PostgreSQL (or MySQL / MariaDB) database + Redis
//                                          instead of SQLite
//   RATE=500                               paced open-loop load on direct and gateway instead of wrk at full speed
//   NOPROF=1  no profile · TOP=n  rows printed · PROFILE_DIR  where the .cpuprofile is left (default a temp dir)
//   GATEWAY_NODE_ARGS="--trace-gc"         flags for the gateway (its output is in the log file printed at the end)
//   METRICS=1                              turn /metrics on (METRICS_TOKEN) and print the ledger's batch sizes and
//                                          commit times after the load
//   CONNECTIONS=n                          wrk's connections (default 32; with INSTANCES they are shared)
//   ROUNDS=n                               wrk n times in a row, each printed (how throughput moves as the JIT warms)
//   INSTANCES=3                            with DB: that many gateways on the one database (the first profiled, the
//                                          others joining once it has created the schema), load from one wrk per
//                                          instance sharing the 32 connections, as the cluster run drives them
//   USERS=each                             with INSTANCES: each instance's load on an unlimited key of a user of its
//                                          own, so the instances share no key or user row
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freshMysql, freshPostgres, REDIS_URL } from './lib/cluster.mjs';
import { openDatabase, seed } from './lib/database.mjs';
import { startGateway } from './lib/gateway.mjs';
import { driver, wrk, wrkEach } from './lib/load.mjs';
import { PATHS, targetsOf } from './lib/paths.mjs';
import { shutdown, startMock, tempDir, waitFor } from './lib/processes.mjs';

const seconds = Number(process.argv[2] ?? 8);
const rate = Number(process.env.RATE ?? 0);
const rounds = Math.max(1, Number(process.env.ROUNDS ?? 1));
const connections = Number(process.env.CONNECTIONS ?? 32);
const pathName = process.env.PATH_NAME ?? 'openai';
if (!PATHS[pathName]) throw new Error(`PATH_NAME must be one of ${Object.keys(PATHS).join(', ')}`);
const work = tempDir('mr-prof-');
const profileDir = process.env.PROFILE_DIR ?? join(work, 'profiles');
mkdirSync(profileDir, { recursive: true });


const openaiMock = await startMock('mock-upstream.mjs');
const anthropicMock = await startMock('mock-anthropic.mjs');
const server = process.env.DB === 'postgres' ? await freshPostgres('profile') : process.env.DB === 'mysql' ? await freshMysql('profile') : undefined;
const data = server ? { SQL_DSN: server.dsn, REDIS_CONN_STRING: REDIS_URL } : { SQLITE_PATH: join(work, 'gateway.db') };
if (process.env.METRICS === '1') data.METRICS_TOKEN = 'bench-metrics';
const nodeArgs = [...(process.env.NOPROF ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]), ...(process.env.GATEWAY_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
const instances = server ? Math.max(1, Number(process.env.INSTANCES ?? 1)) : 1;
const gateway = await startGateway({ data, cwd: work, logFile: join(work, 'gateway.log'), nodeArgs });
const db = await openDatabase(server ? server.kind : 'sqlite', server ? server.dsn : data.SQLITE_PATH);
const seeded = await seed(db, { openaiUrl: openaiMock, anthropicUrl: anthropicMock });
// USERS=each: every instance's load on an unlimited key of a user of its own (a copy of root), so that instances share
// no key or user row: what the busy key's row locks cost a cluster.
const keys = [seeded.key];
if (process.env.USERS === 'each') {
  for (let i = 2; i <= instances; i++) {
    const userId = await db.insert(`insert into users (username, password, display_name, role, status, email, github_id, wechat_id, lark_id, quota, used_quota, request_count, "group", aff_code, inviter_id, created_at, username_key)
      select ?, password, display_name, role, status, '', '', '', '', quota, 0, 0, "group", ?, 0, created_at, ? from users where id = ?`, [`bench${i}`, `affbench${i}`, `bench${i}`, seeded.userId]);
    const key = randomBytes(24).toString('hex');
    await db.insert(`insert into tokens (user_id, "key", status, name, created_time, accessed_time, expired_time, remain_quota, unlimited_quota, used_quota, request_count, models, subnet)
      values (?, ?, 1, 'bench', 0, 0, -1, 0, 1, 0, 0, '', '')`, [userId, key]);
    keys.push(`sk-${key}`);
  }
}
await db.close();
const others = [];
for (let i = 2; i <= instances; i++) others.push(await startGateway({ data, cwd: work, logFile: join(work, `gateway-${i}.log`) }));
const paths = targetsOf({ openaiMock, anthropicMock, gateway: gateway.url, key: seeded.key })[pathName];
// STREAM=1: streamed requests (each target's streamBody) instead of whole answers.
const targets = Object.fromEntries(Object.entries(paths).map(([role, t]) => [role, t && process.env.STREAM === '1' ? { ...t, body: t.streamBody } : t]));
const urls = [gateway, ...others].map((g) => targets.gateway.url.replace(gateway.url, g.url));
// Each instance's target, with its own key where the path sends one (x-api-key on the Anthropic path, else a Bearer token).
const withKey = (key) => ('x-api-key' in targets.gateway.headers ? { 'x-api-key': key } : { authorization: `Bearer ${key}` });
const each = urls.map((url, i) => ({ ...targets.gateway, url, headers: { ...targets.gateway.headers, ...withKey(keys[i] ?? keys[0]) } }));
for (const url of urls) await waitFor(url, { method: 'POST', headers: targets.gateway.headers, body: targets.gateway.body }, { ok: (s) => s === 200, timeoutMs: 15_000 });

console.log(`${PATHS[pathName].title}${process.env.STREAM === '1' ? ', streamed,' : ''} on ${server ? `${server.kind === 'postgres' ? 'PostgreSQL' : 'MariaDB'} + Redis` : 'SQLite'}${instances > 1 ? `, ${instances} instances (the first profiled)` : ''}`);
const loadStarted = performance.now();
if (rate > 0) {
  for (const role of ['direct', 'gateway']) {
    const t = targets[role];
    const r = await driver({ mode: 'paced', url: t.url, headers: t.headers, body: t.body, rate, seconds });
    console.log(`${role} @${rate}/s: p50 ${r.p50.toFixed(3)} p90 ${r.p90.toFixed(3)} p99 ${r.p99.toFixed(3)} max ${r.max.toFixed(1)} ms, ${r.rps.toFixed(0)} req/s, non-2xx ${r.non2xx}, errors ${r.errors}`);
  }
} else {
  for (let round = 1; round <= rounds; round++) {
    const label = rounds > 1 ? ` (round ${round} of ${rounds})` : '';
    if (instances > 1) {
      const r = await wrkEach(each, targets.gateway, { connections: Math.ceil(connections / instances), seconds });
      console.log(`gateways${label}: ${r.rps.toFixed(0)} req/s (${r.each.map((e) => e.rps.toFixed(0)).join(' + ')}), non-2xx ${r.non2xx}, errors ${r.errors}`);
    } else {
      const r = await wrk(targets.gateway, { connections, seconds });
      console.log(`gateway${label}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}, errors ${r.errors}`);
    }
  }
}
if (data.METRICS_TOKEN) {
  const text = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${data.METRICS_TOKEN}` } })).text();
  const lines = text.split('\n').filter((l) => /^ledger_(batch_jobs|commit_seconds)_(bucket|sum|count)/.test(l));
  const value = (name) => Number(lines.find((l) => l.startsWith(name))?.split(' ').pop());
  for (const metric of ['ledger_batch_jobs', 'ledger_commit_seconds']) {
    const count = value(`${metric}_count`);
    console.log(`${metric}: ${count} commits, mean ${(value(`${metric}_sum`) / count).toFixed(4)}; ${lines.filter((l) => l.startsWith(`${metric}_bucket`)).map((l) => `${/le="([^"]+)"/.exec(l)[1]}:${l.split(' ').pop()}`).join(' ')}`);
  }
  // Round trips: every statement of a ledger batch is one on PostgreSQL, BEGIN and COMMIT included (a batch run as one
  // statement has neither).
  // A non-stream request is two jobs (its reservation and its settlement).
  const statements = Number(/^ledger_statements_total (\S+)$/m.exec(text)?.[1]);
  const jobs = value('ledger_batch_jobs_sum');
  const commits = value('ledger_batch_jobs_count');
  console.log(`ledger round trips: ${statements} statements in ${commits} commits: ${(statements / commits).toFixed(1)} per commit, ${((2 * statements) / jobs).toFixed(2)} per request (reservation + settlement; BEGIN and COMMIT included)`);
}
for (const other of others) await other.stop();
await gateway.stop();
// Only the samples taken since the load started count: start-up (module loading, migrations) is not the relay.
const windowUs = (performance.now() - loadStarted) * 1000;
console.log(`gateway log: ${gateway.logFile} (removed at exit)`);

if (!process.env.NOPROF) {
  // One profile per thread (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile): the main thread is thread 0.
  const file = readdirSync(profileDir).filter((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f)).sort().pop();
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'));
  const self = new Map();
  const dt = new Map();
  const times = [];
  profile.timeDeltas.reduce((at, delta, i) => (times[i] = at + delta), profile.startTime);
  const from = profile.endTime - windowUs;
  profile.samples.forEach((id, i) => {
    if (times[i] >= from) dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  let total = 0;
  for (const node of profile.nodes) {
    const t = dt.get(node.id) ?? 0;
    total += t;
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/packages\//, '')}:${lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + t);
  }
  console.log(`profile: ${join(profileDir, file)}${process.env.PROFILE_DIR ? '' : ' (removed at exit; set PROFILE_DIR to keep it)'}`);
  for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) console.log(`${((t / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
  // The same self time by where the code lives: a package, a folder of the server, node's internals, native.
  const groups = new Map();
  for (const [name, t] of self) {
    const where = name.slice(name.lastIndexOf(' ') + 1);
    const group = /^server\/dist\//.test(where) ? where.replace(/^server\/dist\/((?:relay\/)?(?:[^/]+\/)?[^/:]+).*$/, 'server/$1').replace(/\.js$/, '')
      : /^node:/.test(where) ? 'node internals' : /^:0$/.test(where) ? name.slice(0, name.lastIndexOf(' ')) : where.split('/')[0].replace(/^@[^/]+$/, (scope) => `${scope}/${where.split('/')[1]}`);
    groups.set(group, (groups.get(group) ?? 0) + t);
  }
  console.log('\nby place:');
  for (const [group, t] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) console.log(`${((t / total) * 100).toFixed(1).padStart(5)}%  ${group}`);
}
await shutdown(0);
