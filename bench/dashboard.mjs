// The dashboard at scale: seeds a database with one million consume logs over 30 days plus the hourly
// usage_rollups rows that sum them (exactly what the ledger writes beside each log), then times the
// dashboard's queries (which read only the rollups) and, for contrast, the same daily sums scanned from the
// logs. Writes DASHBOARD.md. Needs `npm run build` at the repository root first.
//
//   node bench/dashboard.mjs                      SQLite (a temporary file)
//   BENCH_PG_DSN=postgres://postgres@127.0.0.1:5432/test BENCH_MYSQL_DSN=mysql://root@127.0.0.1:3306/test node bench/dashboard.mjs
//
// LOGS=n changes the number of log rows (default 1,000,000); USERS=n runs one population only (default: two runs,
// 300 users with a long tail of light users, and 40 busy users; the same logs make many or few rollup rows).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, MysqlDialect, PostgresDialect, sql } from 'kysely';
import { createPool } from 'mysql2';
import pg from 'pg';

const dist = fileURLToPath(new URL('../packages/server/dist/', import.meta.url));
const { openStorage } = await import(`${dist}storage/database.js`);
const { usernameKey } = await import(`${dist}storage/username-key.js`);
const { DashboardService } = await import(`${dist}api/dashboard/dashboard-service.js`);
const { UsageRollupsRepository } = await import(`${dist}storage/repositories/usage-rollup-queries.js`);
const { UsersRepository } = await import(`${dist}storage/repositories/users.js`);
const { OptionsRepository } = await import(`${dist}storage/repositories/options.js`);
const { OptionStore } = await import(`${dist}options/option-store.js`);

const LOGS = Number(process.env.LOGS ?? 1_000_000);
const DAYS = 30;
const POPULATIONS = process.env.USERS ? [Number(process.env.USERS)] : [300, 40];
let USERS = 300;
const MODELS = ['gpt-4o-mini', 'gpt-4o', 'claude-sonnet-4-5', 'gemini-2.5-flash', 'deepseek-chat', 'gpt-5', 'claude-haiku-4-5', 'o4-mini', 'qwen-max', 'glm-4.6', 'text-embedding-3-small', 'gpt-image-1'];
const CHANNELS = 8;
// the seeded 30 days end at the coming hour, so "today" and "this month" hold traffic too
const END = Math.ceil(Date.now() / 3_600_000) * 3600;
const START = END - DAYS * 86_400;

// A deterministic generator (mulberry32), so every run and every database gets the same rows.
let seed = 42;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
/** Skewed picks (a few users and models carry most traffic, as on a real gateway). */
const skewed = (n) => Math.min(n - 1, Math.floor(n * random() ** 2.5));

async function seedDatabase(storage) {
  seed = 42; // every database of a population gets the same rows
  const db = storage.db;
  const users = [];
  for (let i = 0; i < USERS; i++) {
    users.push({ username: `user${i}`, username_key: usernameKey(`user${i}`), password: 'x', display_name: `用户${i}`, role: 1, status: 1, email: '', github_id: '', wechat_id: '', lark_id: '', access_token: null, quota: 1_000_000, used_quota: 0, request_count: 0, group: 'default', aff_code: `aff${i}`, inviter_id: 0, created_at: START });
  }
  for (let i = 0; i < users.length; i += 100) await db.insertInto('users').values(users.slice(i, i + 100)).execute();
  const userRows = await db.selectFrom('users').select(['id', 'username']).where('username', 'like', 'user%').orderBy('id').execute();
  const tokens = userRows.flatMap((u) => [0, 1].map((k) => ({ user_id: u.id, key: `${u.username}k${k}`.padEnd(48, 'x'), status: 1, name: `${u.username}-key${k}`, created_time: START, accessed_time: 0, expired_time: -1, remain_quota: 0, unlimited_quota: 1, used_quota: 0, request_count: 0, models: '', subnet: '' })));
  for (let i = 0; i < tokens.length; i += 100) await db.insertInto('tokens').values(tokens.slice(i, i + 100)).execute();
  const tokenRows = await db.selectFrom('tokens').select(['id', 'user_id']).orderBy('id').execute();
  const tokensOf = new Map();
  for (const t of tokenRows) tokensOf.set(t.user_id, [...(tokensOf.get(t.user_id) ?? []), t.id]);
  const channels = [];
  for (let i = 0; i < CHANNELS; i++) channels.push({ type: 1, key: `k${i}`, status: 1, name: `渠道${i}`, weight: 0, created_time: 0, test_time: 0, response_time: 0, base_url: 'http://127.0.0.1:1', other: '', balance: 0, balance_updated_time: 0, models: MODELS.join(','), group: 'default', used_quota: 0, request_count: 0, model_mapping: '', priority: 0, config: '', system_prompt: '' });
  await db.insertInto('channels').values(channels).execute();
  const channelIds = (await db.selectFrom('channels').select('id').orderBy('id').execute()).map((c) => c.id);
  // Each user mostly calls one favourite model with their first key (as a client program does), sometimes others.
  const favourite = new Map(userRows.map((u) => [u.id, skewed(MODELS.length)]));

  const rollups = new Map();
  const BATCH = storage.dialect === 'sqlite' ? 1000 : 2000;
  let batch = [];
  const flush = async () => {
    if (batch.length) await db.insertInto('logs').values(batch).execute();
    batch = [];
  };
  const started = performance.now();
  for (let i = 0; i < LOGS; i++) {
    const user = userRows[skewed(USERS)];
    const tokenId = tokensOf.get(user.id)[random() < 0.9 ? 0 : 1];
    const m = random() < 0.8 ? favourite.get(user.id) : skewed(MODELS.length);
    const model = MODELS[m];
    // each model is served by two of the channels, the first more often
    const channelId = channelIds[(m + (random() < 0.7 ? 0 : 1)) % CHANNELS];
    const createdAt = START + Math.floor(random() * DAYS * 86_400);
    const failed = random() < 0.02;
    const prompt = failed ? 0 : 50 + Math.floor(random() * 3000);
    const completion = failed ? 0 : Math.floor(random() * 800);
    const cached = failed ? 0 : Math.floor(prompt * random() * 0.5);
    const reasoning = failed || m % 3 ? 0 : Math.floor(completion * 0.3);
    const quota = failed ? 0 : Math.ceil((prompt + completion * 4) * (0.075 + m * 0.3));
    const latency = 200 + Math.floor(random() * 5000);
    batch.push({
      user_id: user.id, username: user.username, type: failed ? 5 : 2, created_at: createdAt, content: failed ? null : '模型倍率 1，补全倍率 4', token_name: '', token_id: tokenId,
      model_name: model, quota, prompt_tokens: prompt, completion_tokens: completion, channel_id: channelId, request_id: `r${i}`, elapsed_time: latency, is_stream: 1,
      first_byte_ms: Math.floor(latency / 4), channel_name: `渠道${channelId}`, dialect: 'openai-chat', cached_tokens: cached, cache_write_tokens: 0, reasoning_tokens: reasoning,
      error: failed ? 'upstream 500' : null, attempts: null,
    });
    const hour = createdAt - (createdAt % 3600);
    const key = `${hour}|${user.id}|${tokenId}|${model}|${channelId}`;
    let r = rollups.get(key);
    if (!r) rollups.set(key, (r = { hour, user_id: user.id, token_id: tokenId, model, channel_id: channelId, instance_id: 'bench', requests: 0, failures: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0, quota: 0, latency_ms: 0 }));
    // as the ledger counts them: a failed request is a failure, not a request served
    r.requests += failed ? 0 : 1;
    r.failures += failed ? 1 : 0;
    r.prompt_tokens += prompt;
    r.completion_tokens += completion;
    r.cached_tokens += cached;
    r.reasoning_tokens += reasoning;
    r.quota += quota;
    r.latency_ms += latency;
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  const rows = [...rollups.values()];
  for (let i = 0; i < rows.length; i += BATCH) await db.insertInto('usage_rollups').values(rows.slice(i, i + BATCH)).execute();
  const seconds = (performance.now() - started) / 1000;
  const heaviest = (await db.selectFrom('usage_rollups').select(['user_id', sql`sum(requests)`.as('n')]).groupBy('user_id').orderBy(sql`sum(requests)`, 'desc').limit(1).executeTakeFirstOrThrow()).user_id;
  return { seconds, rollupRows: rows.length, heaviest, channel: channelIds[0] };
}

/** A database seeded by an earlier run (SQLITE_FILE): what seedDatabase would have returned, seeding time aside. */
async function describeSeeded(storage) {
  const db = storage.db;
  const rollupRows = Number((await db.selectFrom('usage_rollups').select(sql`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
  const heaviest = (await db.selectFrom('usage_rollups').select(['user_id', sql`sum(requests)`.as('n')]).groupBy('user_id').orderBy(sql`sum(requests)`, 'desc').limit(1).executeTakeFirstOrThrow()).user_id;
  const channel = (await db.selectFrom('channels').select('id').orderBy('id').executeTakeFirstOrThrow()).id;
  return { seconds: 0, rollupRows, heaviest, channel };
}

/** Median of five runs after one warm-up, in milliseconds. */
/**
 * Median time of five runs after a warm-up, and the longest the event loop stood still during them: what every
 * relay request and stream of the instance waits while an admin opens the dashboard.
 */
async function time(run) {
  await run();
  const samples = [];
  let last = performance.now();
  let stall = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 5);
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 20));
    last = performance.now();
    const t = performance.now();
    await run();
    samples.push(performance.now() - t);
  }
  await new Promise((r) => setTimeout(r, 20));
  clearInterval(ticker);
  return { ms: samples.sort((a, b) => a - b)[2], stall };
}

async function measure(name, open) {
  const { storage, cleanup } = await open();
  try {
    process.stdout.write(`${name}: seeding ${LOGS.toLocaleString('en-US')} logs... `);
    const reused = await storage.db.selectFrom('usage_rollups').select(sql`count(*)`.as('n')).executeTakeFirst();
    const seeded = Number(reused?.n) > 0 ? await describeSeeded(storage) : await seedDatabase(storage);
    console.log(`${seeded.seconds.toFixed(1)} s, ${seeded.rollupRows.toLocaleString('en-US')} rollup rows`);
    if (storage.dialect === 'postgres') await sql`analyze`.execute(storage.db);
    if (storage.dialect === 'mysql') await sql`analyze table logs, usage_rollups`.execute(storage.db);
    if (storage.dialect === 'sqlite') await sql`analyze`.execute(storage.db);
    const options = new OptionStore(new OptionsRepository(storage.db));
    await options.load();
    // storage.reader, as the server does: on SQLite the sums run on the read worker, off the event loop.
    const service = new DashboardService(new UsageRollupsRepository(storage.reader), new UsersRepository(storage.db), options);
    const self = { kind: 'self', caller: { id: seeded.heaviest, role: 1, username: 'heavy' } };
    const all = { kind: 'all' };
    const month = { start: START, end: END, tz: 480 };
    const week = { start: END - 7 * 86_400, end: END, tz: 480 };
    const queries = [
      ['heaviest user: report, 30 days by day', () => service.report(self, { ...month, granularity: 'day' })],
      ['heaviest user: report, 7 days by hour', () => service.report(self, { ...week, granularity: 'hour' })],
      ['heaviest user: summary (today, this month)', () => service.summary(self, { tz: 480 })],
      ['admin: report, 30 days by day (top users, channels, keys)', () => service.report(all, { ...month, granularity: 'day' })],
      ['admin: report, 7 days by hour', () => service.report(all, { ...week, granularity: 'hour' })],
      ['admin: report, 30 days, one channel and model', () => service.report(all, { ...month, granularity: 'day', channel_id: seeded.channel, model: 'gpt-4o' })],
      ['admin: CSV export, 7 days by day', () => service.exportCsv(all, { ...week, granularity: 'day' })],
      // The same two groupings as the admin's 30-day report, taken from the logs instead of the rollups.
      [
        "for contrast: the admin 30-day report's two groupings scanned from the logs",
        () => {
          const day = sql`created_at - ((created_at + 28800) % 86400)`;
          const inRange = storage.db.selectFrom('logs').where('type', 'in', [2, 5]).where('created_at', '>=', START).where('created_at', '<', END);
          return Promise.all([
            inRange.select([day.as('day'), 'model_name', sql`sum(quota)`.as('quota'), sql`count(*)`.as('n'), sql`sum(prompt_tokens)`.as('p'), sql`sum(completion_tokens)`.as('c')]).groupBy([day, 'model_name']).execute(),
            inRange.select(['user_id', 'token_id', 'channel_id', sql`sum(quota)`.as('quota'), sql`count(*)`.as('n')]).groupBy(['user_id', 'token_id', 'channel_id']).execute(),
          ]);
        },
      ],
    ];
    const results = [];
    for (const [label, run] of queries) {
      let timing;
      try {
        timing = await time(run);
      } catch (error) {
        console.log(`  ${label}: refused (${error.message})`);
        continue;
      }
      results.push([label, timing]);
      console.log(`  ${label}: ${timing.ms.toFixed(1)} ms (event loop still for at most ${timing.stall.toFixed(0)} ms)`);
    }
    const exportRows = await service.exportCsv(all, { ...week, granularity: 'day' }).then((e) => e.csv.split('\r\n').length - 2, () => 0);
    return { name, ...seeded, results, exportRows };
  } finally {
    await cleanup();
  }
}

/** A fresh database on a PostgreSQL or MariaDB server, dropped afterwards. */
async function createServerDatabase(kind, adminDsn) {
  const name = `mr_bench_${Date.now().toString(36)}`;
  const admin =
    kind === 'postgres'
      ? new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: adminDsn, max: 1 }) }) })
      : new Kysely({ dialect: new MysqlDialect({ pool: createPool({ uri: adminDsn, connectionLimit: 1 }) }) });
  await sql`create database ${sql.id(name)}`.execute(admin);
  const url = new URL(adminDsn);
  url.pathname = `/${name}`;
  return {
    dsn: url.toString(),
    async drop() {
      await sql`drop database ${sql.id(name)}`.execute(admin);
      await admin.destroy();
    },
  };
}

const targets = [
  [
    'SQLite',
    async () => {
      // SQLITE_FILE keeps the seeded file for another run (development); otherwise a temporary one.
      if (process.env.SQLITE_FILE) {
        const storage = await openStorage({ sqlitePath: process.env.SQLITE_FILE });
        return { storage, cleanup: () => storage.close() };
      }
      const dir = mkdtempSync(join(tmpdir(), 'mr-dashboard-'));
      const storage = await openStorage({ sqlitePath: join(dir, 'bench.db') });
      return { storage, cleanup: async () => (await storage.close(), rmSync(dir, { recursive: true, force: true })) };
    },
  ],
];
for (const [name, kind, dsn] of [['PostgreSQL', 'postgres', process.env.BENCH_PG_DSN], ['MariaDB', 'mysql', process.env.BENCH_MYSQL_DSN]]) {
  if (!dsn) continue;
  targets.push([
    name,
    async () => {
      const database = await createServerDatabase(kind, dsn);
      const storage = await openStorage({ dsn: database.dsn });
      return { storage, cleanup: async () => (await storage.close(), await database.drop()) };
    },
  ]);
}

const lines = [
  '# Dashboard at scale',
  '',
  `Written by \`node bench/dashboard.mjs\` on ${new Date().toISOString().slice(0, 10)}. Each database holds ${LOGS.toLocaleString('en-US')} consume logs over ${DAYS} days`,
  `(two keys per user, ${MODELS.length} models, ${CHANNELS} channels; each user mostly calls one favourite model with one key; a few users and`,
  'models carry most traffic; 2 % of requests failed) and the hourly usage_rollups rows that sum them, as the ledger writes them. Times are',
  'the median of five runs after a warm-up, through the dashboard service (the code the API runs), on this shared 2-core machine.',
  'The stall column is the longest the event loop stood still during those runs (a 5 ms timer): what every relay request of the',
  'instance waited meanwhile. On SQLite the dashboard reads on a worker thread (storage/read-worker.ts); the logs contrast runs on the',
  'main connection.',
  '',
];
for (const users of POPULATIONS) {
  USERS = users;
  lines.push(`## ${users} users`, '');
  for (const [name, open] of targets) {
    const run = await measure(`${name}, ${users} users`, open);
    lines.push(`### ${name}`, '', `Seeded in ${run.seconds.toFixed(1)} s (multi-row inserts); ${run.rollupRows.toLocaleString('en-US')} rollup rows; the 7-day CSV export held ${run.exportRows.toLocaleString('en-US')} rows.`, '', '| query | ms | longest event-loop stall, ms |', '|---|---:|---:|');
    for (const [label, { ms, stall }] of run.results) lines.push(`| ${label} | ${ms.toFixed(1)} | ${stall.toFixed(0)} |`);
    lines.push('');
  }
}
writeFileSync(new URL('./DASHBOARD.md', import.meta.url), `${lines.join('\n')}\n`);
console.log('written bench/DASHBOARD.md');
