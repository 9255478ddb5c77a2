import { LogType } from '@model-relay/contract';
import { sql, type Kysely } from 'kysely';
import { verifyPassword } from '../../auth/password.js';
import type { Database } from '../../storage/schema.js';

export interface TargetUser {
  id: number;
  username: string;
  username_key: string;
  aff_code: string;
  access_token: string | null;
  quota: number;
}

/** What the plan needs to know of the target: what is there already, and whether it counts as empty. */
export interface TargetState {
  /** Nothing there but, at most, the fresh root / 123456 account a first start creates. */
  empty: boolean;
  /** That fresh root account, which the source's users replace. */
  freshRootId?: number;
  users: TargetUser[];
  tokenKeys: Map<string, number>;
  channels: Array<{ id: number; type: number; key: string; base_url: string }>;
  redemptionKeys: Map<string, number>;
  options: Map<string, string>;
  maxIds: { users: number; tokens: number; channels: number; redemptions: number };
  quotaTotal: number;
  counts: { users: number; tokens: number; channels: number; redemptions: number; logs: number };
}

/** A target never set up (the dry run opens it without creating the schema): empty. */
export function emptyTarget(): TargetState {
  return {
    empty: true,
    users: [],
    tokenKeys: new Map(),
    channels: [],
    redemptionKeys: new Map(),
    options: new Map(),
    maxIds: { users: 0, tokens: 0, channels: 0, redemptions: 0 },
    quotaTotal: 0,
    counts: { users: 0, tokens: 0, channels: 0, redemptions: 0, logs: 0 },
  };
}

const n = (value: unknown) => Number(value ?? 0) || 0;

export async function readTarget(db: Kysely<Database>): Promise<TargetState> {
  const users = (await db.selectFrom('users').select(['id', 'username', 'username_key', 'aff_code', 'access_token', 'quota', 'password', 'role']).orderBy('id').execute());
  const tokens = await db.selectFrom('tokens').select(['id', 'key']).execute();
  const channels = await db.selectFrom('channels').select(['id', 'type', 'key', 'base_url']).execute();
  const redemptions = await db.selectFrom('redemptions').select(['id', 'key']).execute();
  const options = await db.selectFrom('options').selectAll().execute();
  // Logs a fresh start writes (system notes) do not count; any use of the gateway writes top-up or consume logs.
  const logs = n((await db.selectFrom('logs').select(sql<number>`count(*)`.as('n')).where('type', 'in', [LogType.TopUp, LogType.Consume, LogType.Error]).executeTakeFirst())?.n);
  const only = users.length === 1 ? users[0] : undefined;
  const freshRoot = only && only.username === 'root' && only.role === 100 && tokens.length === 0 && (await verifyPassword('123456', only.password)) ? only.id : undefined;
  const empty = (users.length === 0 || freshRoot !== undefined) && tokens.length === 0 && channels.length === 0 && redemptions.length === 0 && logs === 0;
  const max = (rows: Array<{ id: number }>) => rows.reduce((m, r) => Math.max(m, Number(r.id)), 0);
  return {
    empty,
    freshRootId: empty ? freshRoot : undefined,
    users: users.map((u) => ({ id: Number(u.id), username: u.username, username_key: u.username_key, aff_code: u.aff_code, access_token: u.access_token, quota: n(u.quota) })),
    tokenKeys: new Map(tokens.map((t) => [t.key, Number(t.id)])),
    channels: channels.map((c) => ({ id: Number(c.id), type: Number(c.type), key: c.key, base_url: c.base_url })),
    redemptionKeys: new Map(redemptions.map((r) => [r.key, Number(r.id)])),
    options: new Map(options.map((o) => [o.key, o.value ?? ''])),
    maxIds: { users: max(users), tokens: max(tokens), channels: max(channels), redemptions: max(redemptions) },
    quotaTotal: users.reduce((sum, u) => sum + n(u.quota), 0),
    counts: { users: users.length, tokens: tokens.length, channels: channels.length, redemptions: redemptions.length, logs },
  };
}
