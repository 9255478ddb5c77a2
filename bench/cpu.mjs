// CPU per request, a measure that holds while the machine is busy: the CPU time (utime + stime from
// /proc/<pid>/stat) a process spends over a measured load, divided by the requests answered. Run on one path
// against the bare pass-through (bare-passthrough.mjs), the gateway on SQLite and the gateway on PostgreSQL +
// Redis, each freshly started, one after the other. Besides the gateway's own CPU: its PostgreSQL backends' and
// a private Redis server's CPU per request, Redis commands per request (INFO commandstats), SQL statements per
// request counted in the gateway (lib/count-statements.mjs, preloaded) and PostgreSQL transactions per request
// (pg_stat_database), and the mock's CPU per request as a control (it does the same work in every setup: if
// its figure moves, the machine's speed moved).
// Usage: cd bench && node cpu.mjs [seconds]   (default 8 s of load after a 2 s warm-up)
//   SETUPS=bare,sqlite,postgres   which setups (default all three)
//   PATH_NAME=openai|translated|anthropic (default openai)
//   STREAM=1                      streamed requests (the path's stream body) instead of whole answers
//   RATE=n                        a fixed number of requests (n per second for `seconds`, open loop, driver.mjs
//                                 paced) instead of wrk at full speed (32 connections)
//   STRACE=1                      count the process's system calls (strace -c -f) over each measured load and print
//                                 them with the number of requests (the tracer slows the process: use with RATE=n)
//   REPEAT=n                      measure each setup n times (one process, consecutive loads) and print each
//   BUILDS=a,b                    compare builds: each a folder holding dist/main.js (relative to the repository
//                                 root, e.g. packages/server and a copy of an older build), measured in turn;
//                                 `folder+--flag+--flag` runs that build with node flags (e.g.
//                                 packages/server+--max-semi-space-size=32 against packages/server)
//   ROUNDS=n                      with BUILDS: n rounds, each measuring every build once (fresh processes), so
//                                 a change of the machine's load hits both; the medians are printed at the end
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshPostgres, PG_ADMIN } from './lib/cluster.mjs';
import { openDatabase, root, seed } from './lib/database.mjs';
import { startGateway } from './lib/gateway.mjs';
import { driver, wrk } from './lib/load.mjs';
import { PATHS, targetsOf } from './lib/paths.mjs';
import { freePort, shutdown, sleep, start, tempDir, waitFor } from './lib/processes.mjs';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const requireFromRoot = createRequire(join(root, 'package.json'));
const seconds = Number(process.argv[2] ?? 8);
const rate = Number(process.env.RATE ?? 0);
const repeat = Number(process.env.REPEAT ?? 1);
const pathName = process.env.PATH_NAME ?? 'openai';
const streamed = process.env.STREAM === '1';
/** The path's target as measured: its stream body in place of the whole answer's with STREAM=1. */
const measured = (target) => (streamed ? { ...target, body: target.streamBody } : target);
if (!PATHS[pathName]) throw new Error(`PATH_NAME must be one of ${Object.keys(PATHS).join(', ')}`);
const setups = (process.env.SETUPS ?? 'bare,sqlite,postgres').split(',');
const builds = (process.env.BUILDS ?? 'packages/server').split(',');
const rounds = Number(process.env.ROUNDS ?? 1);
const work = tempDir('mr-cpu-');
const TICK_MS = 1000 / 100; // CLK_TCK is 100 on Linux

/** utime + stime of a process in ms, or undefined once it is gone. */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

async function startProcess(file, env) {
  const port = await freePort();
  const child = start(process.execPath, [join(benchDir, file)], { env: { PATH: process.env.PATH, PORT: String(port), ...env }, cwd: benchDir });
  await waitFor(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }, { ok: (s) => s === 200 });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => child.child.kill('SIGTERM') };
}

/** A Redis server of this run alone, so its CPU and command counts are the gateway's and nobody else's. */
async function privateRedis() {
  const port = await freePort();
  const child = start('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { cwd: work });
  const Redis = requireFromRoot('ioredis');
  // Retries every 100 ms until the server listens.
  const client = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  client.on('error', () => {}); // refused until the server listens, then retried
  await new Promise((resolve) => client.once('ready', resolve));
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid,
    /** Calls per command since the start (our own INFO calls excluded by the caller). */
    async commands() {
      const text = await client.info('commandstats');
      const counts = {};
      for (const m of text.matchAll(/^cmdstat_(\S+?):calls=(\d+)/gm)) counts[m[1]] = Number(m[2]);
      return counts;
    },
    async stop() {
      client.disconnect();
      child.child.kill('SIGTERM');
      await child.exited;
    },
  };
}

/** PostgreSQL's side: the backends serving the database (their pids, from an admin connection) and its commits. */
async function postgresProbe(name) {
  const pg = requireFromRoot('pg');
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  return {
    async snapshot() {
      const backends = (await admin.query('select pid from pg_stat_activity where datname = $1', [name])).rows.map((r) => r.pid);
      const [db] = (await admin.query('select xact_commit, xact_rollback, tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted from pg_stat_database where datname = $1', [name])).rows;
      return { cpu: new Map(backends.map((pid) => [pid, cpuMs(pid)])), db: Object.fromEntries(Object.entries(db).map(([k, v]) => [k, Number(v)])) };
    },
    close: () => admin.end(),
  };
}

/** The gateway's statement counts so far (count-statements.mjs writes them on SIGUSR2). */
async function statementCounts(pid, file) {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 50; i++) {
    await sleep(20);
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch { /* not written yet */ }
  }
  return undefined;
}

const perRequest = (value, requests) => value / requests;
const fmt = (value, digits = 3) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

async function load(target) {
  if (rate > 0) {
    const r = await driver({ mode: 'paced', url: target.url, headers: target.headers, body: target.body, rate, seconds, warmupSeconds: 0 });
    return { requests: r.sent + r.errors, rps: r.rps, errors: r.errors + r.non2xx };
  }
  const r = await wrk(target, { connections: 32, seconds });
  return { requests: r.requests, rps: r.rps, errors: r.errors + r.non2xx };
}

let measures = 0;

async function measure(setup, mocks, build) {
  const { openaiMock, anthropicMock } = mocks;
  const mock = pathName === 'openai' ? openaiMock : anthropicMock;
  const countFile = join(work, `${setup}-counts.json`);
  let target;
  let pid;
  let stop;
  let redis;
  let probe;
  if (setup === 'bare') {
    const bare = await startProcess('bare-passthrough.mjs', { UPSTREAM: mock.url });
    target = measured(targetsOf({ openaiMock: openaiMock.url, anthropicMock: anthropicMock.url, gateway: 'http://unused', key: 'unused', bareOpenai: bare.url, bareAnthropic: bare.url })[pathName].bare);
    ({ pid } = bare);
    stop = async () => bare.stop();
  } else {
    let data;
    if (setup === 'postgres') {
      const postgres = await freshPostgres('cpu');
      redis = await privateRedis();
      probe = await postgresProbe(postgres.name);
      data = { SQL_DSN: postgres.dsn, REDIS_CONN_STRING: redis.url };
    } else {
      // A database of its own per measure: with one file for all, every round seeded its channels again on top of
      // the last round's, and each batch updated one channel row more than the round before.
      data = { SQLITE_PATH: join(work, `${setup}-${++measures}.db`) };
    }
    const gateway = await startGateway({
      data: { ...data, MR_COUNT_FILE: countFile },
      cwd: work,
      logFile: join(work, `${setup}.log`),
      nodeArgs: ['--import', join(benchDir, 'lib/count-statements.mjs'), ...build.split('+').slice(1)],
      main: join(root, build.split('+')[0], 'dist/main.js'),
    });
    const db = await openDatabase(setup === 'postgres' ? 'postgres' : 'sqlite', setup === 'postgres' ? data.SQL_DSN : data.SQLITE_PATH);
    const seeded = await seed(db, { openaiUrl: openaiMock.url, anthropicUrl: anthropicMock.url });
    await db.close();
    target = measured(targetsOf({ openaiMock: openaiMock.url, anthropicMock: anthropicMock.url, gateway: gateway.url, key: seeded.key })[pathName].gateway);
    await waitFor(target.url, { method: 'POST', headers: target.headers, body: target.body }, { ok: (s) => s === 200, timeoutMs: 15_000 });
    ({ pid } = gateway);
    stop = () => gateway.stop();
  }
  const rows = [];
  try {
    await load({ ...target }).catch(() => {}); // warm-up (JIT, pools, caches)
    for (let i = 0; i < repeat; i++) {
      await sleep(500);
      const before = {
        cpu: cpuMs(pid),
        mock: cpuMs(mock.pid),
        statements: setup === 'bare' ? undefined : await statementCounts(pid, countFile),
        redis: redis && { cpu: cpuMs(redis.pid), commands: await redis.commands() },
        pg: probe && (await probe.snapshot()),
      };
      const tracer = process.env.STRACE === '1' ? (await import('node:child_process')).spawn('strace', ['-c', '-f', '-p', String(pid), '-o', join(work, `${setup}-strace.txt`)], { stdio: 'ignore' }) : undefined;
      if (tracer) await sleep(500);
      const result = await load(target);
      if (tracer) {
        const done = new Promise((resolve) => tracer.once('exit', resolve));
        tracer.kill('SIGINT');
        await done;
        console.log(`${setup}: syscalls over ${result.requests} requests\n${readFileSync(join(work, `${setup}-strace.txt`), 'utf8')}`);
      }
      // PostgreSQL reports a backend's counters when its transaction ends, at most once a second.
      if (probe) await sleep(1200);
      const after = {
        cpu: cpuMs(pid),
        mock: cpuMs(mock.pid),
        statements: setup === 'bare' ? undefined : await statementCounts(pid, countFile),
        redis: redis && { cpu: cpuMs(redis.pid), commands: await redis.commands() },
        pg: probe && (await probe.snapshot()),
      };
      const n = result.requests;
      const row = { setup, build: setup === 'bare' ? '' : build, requests: n, rps: result.rps, errors: result.errors, cpuMsPerRequest: perRequest(after.cpu - before.cpu, n), mockCpuMsPerRequest: perRequest(after.mock - before.mock, n) };
      if (before.statements && after.statements) {
        row.statementsPerRequest = perRequest(after.statements.total - before.statements.total, n);
        row.statementKinds = Object.fromEntries(
          Object.entries(after.statements.byKind)
            .map(([kind, count]) => [kind, perRequest(count - (before.statements.byKind[kind] ?? 0), n)])
            .filter(([, v]) => v > 0)
            .sort((a, b) => b[1] - a[1]),
        );
      }
      if (redis) {
        row.redisCpuMsPerRequest = perRequest(after.redis.cpu - before.redis.cpu, n);
        // Our own INFO call between the two snapshots is one command: not the gateway's.
        const commands = Object.entries(after.redis.commands)
          .map(([name, calls]) => [name, calls - (before.redis.commands[name] ?? 0) - (name === 'info' ? 1 : 0)])
          .filter(([, calls]) => calls > 0);
        row.redisCommandsPerRequest = perRequest(commands.reduce((sum, [, calls]) => sum + calls, 0), n);
        row.redisCommands = Object.fromEntries(commands.map(([name, calls]) => [name, perRequest(calls, n)]).sort((a, b) => b[1] - a[1]));
      }
      if (probe) {
        let pgMs = 0;
        for (const [backend, end] of after.pg.cpu) if (end !== undefined) pgMs += end - (before.pg.cpu.get(backend) ?? 0);
        row.pgCpuMsPerRequest = perRequest(pgMs, n);
        row.pgBackends = after.pg.cpu.size;
        row.pgCommitsPerRequest = perRequest(after.pg.db.xact_commit - before.pg.db.xact_commit, n);
        row.pgRowsPerRequest = Object.fromEntries(['tup_returned', 'tup_fetched', 'tup_inserted', 'tup_updated', 'tup_deleted'].map((k) => [k.slice(4), perRequest(after.pg.db[k] - before.pg.db[k], n)]));
      }
      rows.push(row);
      print(row);
    }
  } finally {
    await stop();
    await redis?.stop();
    await probe?.close();
  }
  return rows;
}

function print(row) {
  const parts = [`${row.setup.padEnd(8)}${builds.length > 1 && row.build ? ` [${row.build}]` : ''} ${String(row.requests).padStart(7)} req (${fmt(row.rps, 0)}/s, errors ${row.errors})`, `CPU ${fmt(row.cpuMsPerRequest)} ms/req`, `mock ${fmt(row.mockCpuMsPerRequest)}`];
  if (row.statementsPerRequest !== undefined) parts.push(`SQL ${fmt(row.statementsPerRequest, 2)} stmt/req`);
  if (row.pgCpuMsPerRequest !== undefined) parts.push(`PG ${fmt(row.pgCpuMsPerRequest)} ms/req (${row.pgBackends} backends, ${fmt(row.pgCommitsPerRequest, 2)} commits/req)`);
  if (row.redisCpuMsPerRequest !== undefined) parts.push(`Redis ${fmt(row.redisCpuMsPerRequest)} ms/req, ${fmt(row.redisCommandsPerRequest, 2)} cmd/req`);
  console.log(parts.join(' · '));
  if (row.statementKinds) console.log(`         SQL per request: ${Object.entries(row.statementKinds).map(([k, v]) => `${k} ${fmt(v, 3)}`).join(', ')}`);
  if (row.redisCommands) console.log(`         Redis per request: ${Object.entries(row.redisCommands).map(([k, v]) => `${k} ${fmt(v, 3)}`).join(', ') || 'none'}`);
  if (row.pgRowsPerRequest) console.log(`         PG rows per request: ${Object.entries(row.pgRowsPerRequest).map(([k, v]) => `${k} ${fmt(v, 2)}`).join(', ')}`);
}

const openaiMock = await startProcess('mock-upstream.mjs', {});
const anthropicMock = await startProcess('mock-anthropic.mjs', {});
console.log(`${PATHS[pathName].title}${streamed ? ', streamed' : ''}, ${rate > 0 ? `${rate} req/s paced` : 'wrk 32 connections'}, ${seconds} s per measurement, load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const all = [];
for (let round = 0; round < rounds; round++) {
  for (const setup of setups) for (const build of setup === 'bare' ? [builds[0]] : builds) all.push(...(await measure(setup, { openaiMock, anthropicMock }, build)));
}
if (rounds * repeat > 1) {
  const median = (values) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
  console.log('\nmedians (ms of CPU per request):');
  for (const setup of setups) {
    for (const build of setup === 'bare' ? [''] : builds) {
      const rows = all.filter((r) => r.setup === setup && r.build === build);
      const part = (key) => (rows[0]?.[key] === undefined ? '' : ` ${key.replace('MsPerRequest', '')} ${fmt(median(rows.map((r) => r[key])))}`);
      console.log(`${setup.padEnd(8)} ${build.padEnd(28)} n=${rows.length} gateway ${fmt(median(rows.map((r) => r.cpuMsPerRequest)))}${part('pgCpuMsPerRequest')}${part('redisCpuMsPerRequest')}${part('mockCpuMsPerRequest')}`);
    }
  }
}
await shutdown(0);
