// The gateway's database as the bench sees it: seeding (the channels and the key a run needs, written after the
// gateway has created its tables) and the money check afterwards. SQLite through better-sqlite3, PostgreSQL
// through pg and MySQL / MariaDB through mysql2, all taken from the repository's own node_modules. SQL is written
// with `?` placeholders and double-quoted identifiers (turned into backquotes for MySQL).
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const requireFromRoot = createRequire(join(root, 'package.json'));

/** The Anthropic model of the bench: one with a default price (ModelRatio), so it is billed like a real one. */
export const CLAUDE_MODEL = 'claude-3-7-sonnet-20250219';
/** Models the mocks hold open after the first chunk (memory phase); unpriced, so billed at the default ratio. */
export const OPENAI_HOLD_MODEL = 'hold-model';
export const CLAUDE_HOLD_MODEL = 'claude-hold';
const ROOT_USER = 'root';
const LOG_TYPE = { 1: 'top-up', 2: 'consume', 3: 'manage', 4: 'system', 5: 'error' };

export async function openDatabase(kind, location) {
  if (kind === 'sqlite') {
    const Database = requireFromRoot('better-sqlite3');
    const db = new Database(location);
    db.pragma('busy_timeout = 5000');
    return {
      all: async (sql, params = []) => {
        const statement = db.prepare(sql);
        if (statement.reader) return statement.all(...params);
        statement.run(...params);
        return [];
      },
      insert: async (sql, params = []) => Number(db.prepare(sql).run(...params).lastInsertRowid),
      close: async () => db.close(),
    };
  }
  if (kind === 'mysql') {
    const mysql = requireFromRoot('mysql2/promise');
    const connection = await mysql.createConnection({ uri: location, supportBigNumbers: true, bigNumberStrings: true });
    const quoted = (sql) => sql.replace(/"(\w+)"/g, '`$1`');
    return {
      all: async (sql, params = []) => {
        const [rows] = await connection.query(quoted(sql), params);
        return Array.isArray(rows) ? rows : [];
      },
      insert: async (sql, params = []) => Number((await connection.query(quoted(sql), params))[0].insertId),
      close: () => connection.end(),
    };
  }
  const pg = requireFromRoot('pg');
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  const numbered = (sql) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  return {
    all: async (sql, params = []) => (await client.query(numbered(sql), params)).rows,
    insert: async (sql, params = []) => Number((await client.query(`${numbered(sql)} returning id`, params)).rows[0].id),
    close: () => client.end(),
  };
}

const CHANNEL_INSERT = `insert into channels (type, "key", status, name, weight, created_time, test_time, response_time, base_url, other, balance,
  balance_updated_time, models, "group", used_quota, request_count, model_mapping, priority, config, system_prompt)
  values (?, ?, 1, ?, 0, ?, 0, 0, ?, '', 0, 0, ?, 'default', 0, 0, '', 0, '', '')`;

/**
 * Seeds what a run needs, as an admin would set it up in the console: an OpenAI channel (type 1) to the OpenAI
 * mock (with `openaiModels` besides its own), an Anthropic Claude channel (type 14) to the Anthropic mock, and an
 * unlimited key of the root user.
 * Returns the key (`sk-` + 48 alphanumerics) and the root user's balances before any request.
 */
export async function seed(db, { openaiUrl, anthropicUrl, openaiModels = [] }) {
  const now = Math.floor(Date.now() / 1000);
  const channels = [];
  if (openaiUrl) channels.push([1, 'sk-bench-openai', 'bench-openai', openaiUrl, ['gpt-4o-mini', OPENAI_HOLD_MODEL, ...openaiModels]]);
  if (anthropicUrl) channels.push([14, 'sk-ant-bench', 'bench-anthropic', anthropicUrl, [CLAUDE_MODEL, CLAUDE_HOLD_MODEL]]);
  for (const [type, key, name, url, models] of channels) await seedChannel(db, { type, key, name, url, models });
  const [user] = await db.all('select id, quota, used_quota from users where username = ?', [ROOT_USER]);
  const key = randomBytes(48).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, 48).padEnd(48, 'x');
  const tokenId = await db.insert(`insert into tokens (user_id, "key", status, name, created_time, accessed_time, expired_time, remain_quota, unlimited_quota, used_quota, request_count, models, subnet)
    values (?, ?, 1, 'bench', ?, 0, -1, 0, ?, 0, 0, '', '')`, [user.id, key, now, 1]);
  return { key: `sk-${key}`, userId: Number(user.id), tokenId, quotaBefore: Number(user.quota), usedBefore: Number(user.used_quota) };
}

/** One enabled channel of the default group serving `models` (and its abilities); answers its id. */
export async function seedChannel(db, { type, key, name, url, models }) {
  const id = await db.insert(CHANNEL_INSERT, [type, key, name, Math.floor(Date.now() / 1000), url, models.join(',')]);
  for (const model of models) await db.all(`insert into abilities ("group", model, channel_id, enabled, priority, weight) values ('default', ?, ?, ?, 0, 0)`, [model, id, 1]);
  return id;
}

const one = async (db, sql, params) => (await db.all(sql, params))[0];
const n = (value) => Number(value ?? 0);

/** Waits until no reservation is open (the instances settle what is in flight), up to `timeoutMs`. */
export async function waitForSettlement(db, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = n((await one(db, 'select count(*) as c from quota_reservations')).c);
    if (open === 0 || Date.now() > deadline) return open;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The money check after a run: what the user was charged equals the sum of the quota on its log rows, equals
 * what left its balance, equals what its key, the channels and the hourly rollups recorded; no reservation is
 * left open. Returns the figures and a list of the checks with pass/fail.
 */
export async function moneyCheck(db, seeded) {
  const user = await one(db, 'select quota, used_quota, request_count from users where id = ?', [seeded.userId]);
  const token = await one(db, 'select used_quota, request_count from tokens where id = ?', [seeded.tokenId]);
  const logRows = await db.all('select type, count(*) as c, sum(quota) as q from logs where user_id = ? group by type order by type', [seeded.userId]);
  const logs = Object.fromEntries(logRows.map((r) => [LOG_TYPE[n(r.type)] ?? `type ${r.type}`, { rows: n(r.c), quota: n(r.q) }]));
  const logQuota = logRows.reduce((sum, r) => sum + n(r.q), 0);
  const consumeRows = logs.consume?.rows ?? 0;
  const reservations = await one(db, 'select count(*) as c, sum(amount) as a from quota_reservations');
  const rollups = await one(db, 'select sum(quota) as q, sum(requests) as r, sum(failures) as f from usage_rollups where user_id = ?', [seeded.userId]);
  const channels = await one(db, 'select sum(used_quota) as q from channels');
  const used = n(user.used_quota) - seeded.usedBefore;
  const spent = seeded.quotaBefore - n(user.quota);
  const figures = {
    userUsedQuota: used, balanceSpent: spent, tokenUsedQuota: n(token.used_quota), logQuota, logs, channelUsedQuota: n(channels.q),
    rollupQuota: n(rollups.q), rollupRequests: n(rollups.r), rollupFailures: n(rollups.f), userRequests: n(user.request_count), consumeRows,
    openReservations: n(reservations.c), heldInOpenReservations: n(reservations.a),
  };
  const checks = [
    ['user used_quota = sum of log quota', used === logQuota],
    ['balance taken from the user = user used_quota', spent === used],
    ['key used_quota = user used_quota', figures.tokenUsedQuota === used],
    ['channels used_quota = user used_quota', figures.channelUsedQuota === used],
    ['hourly rollups quota = user used_quota', figures.rollupQuota === used],
    ['no reservation left open', figures.openReservations === 0],
  ];
  return { figures, checks, ok: checks.every(([, pass]) => pass) };
}
