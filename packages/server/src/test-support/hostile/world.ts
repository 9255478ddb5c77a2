import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { DEFAULT_OPTIONS } from '../../options/defaults.js';
import { SESSION_COOKIE } from '../../auth/session.js';
import { hashPassword } from '../../auth/password.js';
import { randomAlphanumeric } from '../../lib/random.js';
import type { Database } from '../../storage/schema.js';
import { seedChannel, seedToken } from '../seed.js';
import type { TestApp } from '../test-app.js';

/** The rows every hostile request meets, and the credentials of each role. */
export interface World {
  rootId: number;
  userId: number;
  channelId: number;
  redemptionId: number;
  tokens: { root: { id: number; key: string }; user: { id: number; key: string } };
}

export const USER_PASSWORD = 'password123';
export const MODELS = 'gpt-4o-mini,gpt-3.5-turbo-instruct,text-embedding-3-small,dall-e-3,tts-1,whisper-1,omni-moderation-latest';

/**
 * Columns the gateway updates on its own, whatever the request's outcome (a key's last use, a channel test's
 * timing and balance): left out of the "nothing changed" comparison.
 */
const VOLATILE: Record<string, string[]> = {
  tokens: ['accessed_time'],
  channels: ['test_time', 'response_time', 'balance', 'balance_updated_time'],
};

export async function seedWorld(t: TestApp, upstreamUrl: string): Promise<World> {
  const { db } = t.ctx.storage;
  // Every option stored explicitly, so reloading after a restore resets the in-memory values too. Channel
  // health outcomes (auto-disable after a failed test) are not input handling: off here.
  for (const [key, value] of Object.entries({ ...DEFAULT_OPTIONS, AutomaticDisableChannelEnabled: 'false' })) {
    await t.ctx.options.set(key, value);
  }
  const rootId = (await t.ctx.repositories.users.findByUsername('root'))!.id;
  const userId = await t.ctx.repositories.users.insert({
    username: 'hostile_user', password: await hashPassword(USER_PASSWORD), display_name: 'H', role: 1, status: 1, email: 'h@example.com',
    github_id: '', wechat_id: '', lark_id: '', access_token: randomAlphanumeric(32), quota: 1_000_000_000, used_quota: 0, request_count: 0,
    group: 'default', aff_code: 'HOST', inviter_id: 0, created_at: 1,
  });
  const channelId = await seedChannel(t.ctx.storage, { name: 'hostile-channel', key: 'sk-upstream', baseUrl: upstreamUrl, models: MODELS });
  const tokens = {
    root: await seedToken(t.ctx.storage, rootId, { unlimited: true, name: 'root-key' }),
    user: await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000_000, name: 'user-key' }),
  };
  await db.insertInto('redemptions').values({ user_id: rootId, key: randomAlphanumeric(32), status: 1, name: 'gift', quota: 100, created_time: 1, redeemed_time: 0, used_user_id: 0 }).execute();
  const redemptionId = (await db.selectFrom('redemptions').select('id').executeTakeFirstOrThrow()).id;
  for (const [type, quota] of [[2, 7], [3, 0], [4, 5]]) {
    await t.ctx.repositories.logs.insert({ user_id: userId, username: 'hostile_user', type, created_at: 1000, quota, content: 'seed', model_name: 'gpt-4o-mini', token_name: 'user-key' });
  }
  return { rootId, userId, channelId, redemptionId, tokens };
}

/**
 * Tables written in the background whatever the requests do: the instance's liveness lease (renewed every two
 * seconds when there is no Redis).
 */
const BACKGROUND_TABLES = new Set(['cluster_leases']);

/** Every table of the schema (other migrations' tables included), migration bookkeeping and background tables left out. */
export async function tablesOf(db: Kysely<Database>): Promise<string[]> {
  const tables = await db.introspection.getTables();
  return tables.map((table) => table.name).filter((name) => !name.startsWith('kysely_') && !BACKGROUND_TABLES.has(name)).sort();
}

export type Snapshot = Map<string, Array<Record<string, unknown>>>;

export async function snapshot(db: Kysely<Database>, tables: string[]): Promise<Snapshot> {
  const rows = await Promise.all(tables.map((table) => sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db)));
  return new Map(tables.map((table, i) => [table, rows[i].rows]));
}

/** Row counts of every table plus a digest of their content (volatile columns aside): equal means unchanged. */
export function fingerprint(state: Snapshot): { counts: Record<string, number>; tables: Record<string, string>; digest: string } {
  const counts: Record<string, number> = {};
  const tables: Record<string, string> = {};
  for (const [table, rows] of state) {
    counts[table] = rows.length;
    const skip = VOLATILE[table] ?? [];
    const lines = rows.map((row) => JSON.stringify(Object.entries(row).filter(([column]) => !skip.includes(column)).sort(([a], [b]) => a.localeCompare(b)), (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));
    tables[table] = createHash('sha1').update(lines.sort().join('\n')).digest('hex');
  }
  return { counts, tables, digest: createHash('sha1').update(JSON.stringify(tables)).digest('hex') };
}

/** Puts the given tables (all by default) back as `baseline` holds them and reloads the options. */
export async function restore(t: TestApp, baseline: Snapshot, only?: string[]): Promise<void> {
  const { db } = t.ctx.storage;
  await db.transaction().execute(async (trx) => {
    for (const [table, rows] of baseline) {
      if (only && !only.includes(table)) continue;
      await sql`delete from ${sql.table(table)}`.execute(trx);
      for (let i = 0; i < rows.length; i += 200) {
        await trx.insertInto(table as keyof Database).values(rows.slice(i, i + 200) as never).execute();
      }
    }
  });
  if (!only || only.includes('options')) await t.ctx.options.load();
}

/** A fresh session cookie for a user (a new session id: an earlier logout does not touch it). */
export async function sessionCookie(t: TestApp, userId: number): Promise<string> {
  const user = (await t.ctx.repositories.users.findById(userId))!;
  const cookie = t.ctx.sessions.encode({ uid: user.id, iat: Math.floor(Date.now() / 1000), sid: randomAlphanumeric(24), sv: Number(user.session_version) });
  return `${SESSION_COOKIE}=${cookie}`;
}

/**
 * Waits until the relay has settled every reservation (settlements commit just after the answer is sent, a busy
 * key's within the ledger's LAZY_MS) and every balance slice is back (billing/ledger-slices.ts): nothing the
 * requests so far did is left to be written while the next one runs.
 */
export async function settled(t: TestApp): Promise<void> {
  await t.ctx.relay.ledger.drain();
  const db = t.ctx.storage.db;
  for (let i = 0; i < 200; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    const open = await db.selectFrom('quota_reservations').select('id').limit(1).execute();
    if (open.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if ((await db.selectFrom('quota_reservations').select('id').limit(1).execute()).length === 0) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * A cheap "was anything written?" counter where the database has one (SQLite counts the rows its connection
 * changed); undefined elsewhere, where the suite compares full snapshots after every request.
 */
export async function changeCounter(t: TestApp): Promise<number | undefined> {
  if (t.ctx.storage.dialect !== 'sqlite') return undefined;
  const { rows } = await sql<{ n: number }>`select total_changes() as n`.execute(t.ctx.storage.db);
  return Number(rows[0].n);
}
