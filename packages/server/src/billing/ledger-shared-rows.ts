import { TokenStatus } from '@model-relay/contract';
import type { Transaction } from 'kysely';
import { chunks, placeholders, repeatJoined, ROWS_PER_STATEMENT, type RawSql, type Statement } from '../storage/raw-sql.js';
import type { Database } from '../storage/schema.js';

/**
 * The rows every instance shares (keys, users, channels): what a ledger batch locks last, right before COMMIT.
 * Another instance's batch for the same busy key waits on them from their lock to this batch's COMMIT, so the
 * statements in between are what serialises a cluster. On PostgreSQL a busy key's batch (one key, one user, one
 * channel, balances that plainly cover it) needs one statement (writeIfCovered); any other batch two: one locks the
 * limited keys and then the users (ascending id) and reads their balances, one writes every key, user and channel
 * row of the batch (data-modifying CTEs over VALUES lists). MySQL writes a batch of one user in one multi-table
 * UPDATE (writeJoined), otherwise, as SQLite always does, one statement per table and row (MySQL has no writable
 * CTE; SQLite has one writer and no waits).
 */

/** One key's or user's change in a batch: the balance moves by `delta`; the counters go up. */
export interface RowChange {
  delta: number;
  charged: number;
  count: number;
  /** A settlement of the batch touched it (only then do a key's status and access time move). */
  settled: boolean;
}

export interface ChannelChange {
  charged: number;
  count: number;
  anomalies: number;
}

export interface SharedChanges {
  /** By `${keyId}:${1 if unlimited else 0}`. */
  keys: Map<string, RowChange>;
  users: Map<number, RowChange>;
  channels: Map<number, ChannelChange>;
}

const ascending = (map: Map<number, unknown>): number[] => [...map.keys()].sort((a, b) => a - b);
const unique = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);

/**
 * Locks the limited keys, then the users, each by ascending id, and reads their balances in the same statement (a
 * missing row has none). An unlimited key has no balance to read and needs no lock of its own here: it belongs to
 * one user, so every batch that writes it holds that user's row first. SQLite has one writer at a time: nothing
 * to lock there.
 */
export async function lockBalances(sql: RawSql, trx: Transaction<Database>, keyIds: number[], userIds: number[]): Promise<{ keys: Map<number, number>; users: Map<number, number> }> {
  const keys = new Map<number, number>();
  const users = new Map<number, number>();
  const k = unique(keyIds);
  const u = unique(userIds);
  if (sql.dialect === 'postgres' && k.length > 0 && u.length > 0 && k.length <= ROWS_PER_STATEMENT && u.length <= ROWS_PER_STATEMENT) {
    // The appended scans run in order (keys, then users) and lock each row as they read it.
    const rows = await sql.run<{ kind: string; id: number; balance: number }>(
      trx,
      `with k as (select id, remain_quota from tokens where id in (${placeholders(k.length)}) order by id for update), ` +
        `u as (select id, quota from users where id in (${placeholders(u.length)}) order by id for update) ` +
        `select 'k' as kind, id, remain_quota as balance from k union all select 'u' as kind, id, quota as balance from u`,
      [...k, ...u],
    );
    for (const row of rows.rows) (row.kind === 'k' ? keys : users).set(Number(row.id), Number(row.balance));
    return { keys, users };
  }
  for (const [ids, table, column, into] of [[k, 'tokens', 'remain_quota', keys], [u, 'users', 'quota', users]] as const) {
    for (const part of chunks(ids, ROWS_PER_STATEMENT)) {
      const rows = await sql.run<Record<string, number>>(trx, `select id, ${column} from ${table} where id in (${placeholders(part.length)}) order by id${sql.forUpdate}`, part);
      for (const row of rows.rows) into.set(Number(row.id), Number(row[column]));
    }
  }
  return { keys, users };
}

/** The rows a batch's changes write, each table by ascending id; rows with nothing to change left out. */
function rowsToWrite(changes: SharedChanges) {
  // By id as a number (the map's keys are `${id}:${unlimited}` texts, which sort 10 before 9).
  const keys = [...changes.keys.entries()]
    .map(([key, change]) => {
      const [id, unlimited] = key.split(':').map(Number);
      return { id, unlimited: unlimited === 1, ...change };
    })
    .sort((a, b) => a.id - b.id || Number(a.unlimited) - Number(b.unlimited))
    .filter((t) => (t.unlimited ? t.count > 0 || t.charged > 0 : t.settled || t.delta !== 0));
  const users = ascending(changes.users)
    .map((id) => ({ id, ...changes.users.get(id)! }))
    .filter((t) => t.delta !== 0 || t.charged > 0 || t.count > 0);
  const channels = ascending(changes.channels).map((id) => ({ id, ...changes.channels.get(id)! }));
  return { keys, users, channels };
}

type RowsToWrite = ReturnType<typeof rowsToWrite>;

/**
 * Writes the batch's changes to keys, users and channels, the key and user rows locked already (lockBalances). On
 * PostgreSQL in one statement, on MySQL a batch of one user in one multi-table UPDATE, otherwise one statement per
 * row (rowStatements).
 */
export async function writeSharedRows(sql: RawSql, trx: Transaction<Database>, changes: SharedChanges, accessed: number): Promise<void> {
  const rows = rowsToWrite(changes);
  const { keys, users, channels } = rows;
  // One statement when its rows cannot wait on each other in a cycle: the key and user rows are locked already (or,
  // for an unlimited key, covered by its user's lock), and a single channel row is the last lock taken. Several
  // channels, or a key seen both limited and unlimited (changed mid-flight), take the statements one by one.
  const oneStatement =
    sql.dialect === 'postgres' && channels.length <= 1 && keys.length + users.length + channels.length > 1 && Math.max(keys.length, users.length) <= ROWS_PER_STATEMENT && new Set(keys.map((t) => t.id)).size === keys.length;
  if (oneStatement) {
    await writeInOneStatement(sql, trx, keys, users, channels, accessed);
    return;
  }
  const joined = sql.dialect === 'mysql' ? await writeJoined(sql, trx, rows, accessed) : 'none';
  if (joined === 'all') return;
  const rest = joined === 'key' ? { ...rows, keys: [] } : rows;
  for (const statement of rowStatements(rest, accessed)) await sql.run(trx, statement.text, statement.parameters);
}

/**
 * One statement per key, user and channel row, in the ledger's lock order: limited keys, users, unlimited keys
 * (covered by their user's lock), channels, each by ascending id. A limited key the batch only reserves from loses
 * what it takes. A limited key a settlement touched gets its refund and counters, and becomes "exhausted" in the same
 * statement when nothing is left and no request of its own is still in flight (a balance that is zero because
 * other requests hold it comes back when they settle, and must not lock the key for good). An exhausted key that a
 * refund leaves with something is enabled again: a statement that waited for another transaction's lock on the key
 * decides from reservation rows as they were when it began, so it can miss a request that transaction reserved for
 * (PostgreSQL and MySQL at READ COMMITTED), and that request's refund must not find the key locked. Its status is set first,
 * because MySQL evaluates SET left to right and later expressions see the new remain_quota; `accessed_time` moves
 * only when the settlement served a request. An unlimited key gets its counters and access time only.
 */
export function rowStatements({ keys, users, channels }: RowsToWrite, accessed: number): Statement[] {
  const statements: Statement[] = [];
  for (const t of keys.filter((t) => !t.unlimited)) {
    if (!t.settled) {
      statements.push({ text: 'update tokens set remain_quota = remain_quota + ? where id = ?', parameters: [t.delta, t.id] });
      continue;
    }
    statements.push({
      text:
        'update tokens set status = case when remain_quota + ? <= 0 and status = ? and not exists (select 1 from quota_reservations r where r.token_id = tokens.id and r.amount > 0) then ? when status = ? and remain_quota + ? > 0 then ? else status end, ' +
        'remain_quota = remain_quota + ?, used_quota = used_quota + ?, request_count = request_count + ?, accessed_time = case when ? > 0 then ? else accessed_time end where id = ?',
      parameters: [t.delta, TokenStatus.Enabled, TokenStatus.Exhausted, TokenStatus.Exhausted, t.delta, TokenStatus.Enabled, t.delta, t.charged, t.count, t.count, accessed, t.id],
    });
  }
  for (const t of users) {
    statements.push({ text: 'update users set quota = quota + ?, used_quota = used_quota + ?, request_count = request_count + ? where id = ?', parameters: [t.delta, t.charged, t.count, t.id] });
  }
  for (const t of keys.filter((t) => t.unlimited)) {
    statements.push({ text: 'update tokens set used_quota = used_quota + ?, request_count = request_count + ?, accessed_time = ? where id = ?', parameters: [t.charged, t.count, accessed, t.id] });
  }
  for (const t of channels) {
    statements.push(
      t.anomalies > 0
        ? { text: 'update channels set used_quota = used_quota + ?, request_count = request_count + ?, usage_anomalies = usage_anomalies + ? where id = ?', parameters: [t.charged, t.count, t.anomalies, t.id] }
        : { text: 'update channels set used_quota = used_quota + ?, request_count = request_count + ? where id = ?', parameters: [t.charged, t.count, t.id] },
    );
  }
  return statements;
}

/**
 * MySQL and MariaDB, a batch of one user (the busy key's): its user row, its channel's and its key's in one
 * multi-table UPDATE instead of one statement each. Only where the order in which MySQL carries out the assignments
 * cannot matter (it gives none for a multi-table UPDATE): each one reads only its own column, so a limited key whose
 * settlement may set "exhausted" (that expression reads remain_quota) is written first on its own, as before. The
 * key and user rows are locked already (an unlimited key is covered by its user's lock), and the channel's is the
 * last lock taken, as on every other path. The UPDATE is a join: if one of its rows is gone (a channel deleted
 * meanwhile) it changes nothing, and the rows are written one by one instead. Answers what it wrote: 'all', only the
 * limited key ('key'), or nothing.
 */
async function writeJoined(sql: RawSql, trx: Transaction<Database>, rows: RowsToWrite, accessed: number): Promise<'all' | 'key' | 'none'> {
  const { keys, users, channels } = rows;
  if (users.length !== 1 || keys.length > 1 || channels.length > 1) return 'none';
  const [key] = keys;
  const [user] = users;
  const [channel] = channels;
  const joinedKey = key && (key.unlimited || !key.settled) ? key : undefined;
  if (!joinedKey && !channel) return 'none';
  const tables: string[] = [];
  const sets: string[] = [];
  const parameters: unknown[] = [];
  const ids: number[] = [];
  if (joinedKey) {
    tables.push('tokens t');
    if (joinedKey.unlimited) {
      sets.push('t.used_quota = t.used_quota + ?', 't.request_count = t.request_count + ?', 't.accessed_time = ?');
      parameters.push(joinedKey.charged, joinedKey.count, accessed);
    } else {
      sets.push('t.remain_quota = t.remain_quota + ?');
      parameters.push(joinedKey.delta);
    }
    ids.push(joinedKey.id);
  }
  tables.push('users u');
  sets.push('u.quota = u.quota + ?', 'u.used_quota = u.used_quota + ?', 'u.request_count = u.request_count + ?');
  parameters.push(user.delta, user.charged, user.count);
  ids.push(user.id);
  if (channel) {
    tables.push('channels c');
    sets.push('c.used_quota = c.used_quota + ?', 'c.request_count = c.request_count + ?', 'c.usage_anomalies = c.usage_anomalies + ?');
    parameters.push(channel.charged, channel.count, channel.anomalies);
    ids.push(channel.id);
  }
  const where = tables.map((table) => `${table.slice(-1)}.id = ?`).join(' and ');
  // A limited key whose settlement may exhaust it goes first, on its own (the ledger's lock order: keys first).
  if (key && !joinedKey) {
    const [statement] = rowStatements({ keys: [key], users: [], channels: [] }, accessed);
    await sql.run(trx, statement.text, statement.parameters);
  }
  const matched = await sql.changes(trx, `update ${tables.join(', ')} set ${sets.join(', ')} where ${where}`, [...parameters, ...ids]);
  if (matched === tables.length) return 'all';
  return key && !joinedKey ? 'key' : 'none';
}

/**
 * PostgreSQL, when the balances plainly cover the batch: every key, user and channel row in one statement, with no
 * lock taken before it, so another instance's batch waits on them for that one statement and the COMMIT. Each
 * reservation is taken in full; the rows are written only where the balance covers what the batch takes from it
 * (after the settlements' refunds), which is exactly when every reservation, deciding in queue order, would get
 * all it asked for. Only for a batch of at most one key, one user and one channel (the busy key this is for): the
 * statement then locks them in the ledger's order, as every other batch does; with several rows of one table the
 * order in which a statement meets them is the plan's, not the ids'. If a row is not covered (or missing), it throws
 * NotCovered: the ledger undoes the whole transaction and runs the batch again the careful way (lockBalances,
 * decisions in memory, writeSharedRows). That costs the batch's first statements twice, but only for a balance
 * running out; a savepoint to undo this statement alone would cost every batch a round trip. Answers the users'
 * quota after the batch and what the reservations took from each user, or undefined when it cannot be used here.
 */
export async function writeIfCovered(
  sql: RawSql,
  trx: Transaction<Database>,
  changes: SharedChanges,
  taken: Taken,
  accessed: number,
): Promise<{ users: Map<number, number>; taken: Map<number, number> } | undefined> {
  if (sql.dialect !== 'postgres') return undefined;
  const rows = coveredRows(changes, taken);
  if (!rows) return undefined;
  const { keys, users, channels } = rows;
  if (keys.length + users.length + channels.length === 0) return { users: new Map(), taken: taken.users };
  const written = await writeInOneStatement(sql, trx, keys, users, channels, accessed, taken);
  const count = (kind: string) => written.filter((row) => row.kind === kind).length;
  if (count('k') !== keys.length || count('u') !== users.length || count('c') !== channels.length) throw new NotCovered();
  return { users: userBalances(written), taken: taken.users };
}

/** What the reservations of a batch take if each gets all it asked for: per limited key and per user. */
export interface Taken {
  keys: Map<number, number>;
  users: Map<number, number>;
}

/**
 * The rows a batch writes when every reservation is taken in full (the settlements' changes with what the
 * reservations take added), or, with `single`, undefined when there is more than one row of a table (the limit of
 * PostgreSQL's one statement, whose parts meet several rows of a table in the plan's order, not the ids').
 */
export function coveredRows(changes: SharedChanges, taken: Taken, single = true): RowsToWrite | undefined {
  const all: SharedChanges = { keys: new Map(changes.keys), users: new Map(changes.users), channels: changes.channels };
  for (const [id, amount] of taken.keys) {
    const row = { ...(all.keys.get(`${id}:0`) ?? { delta: 0, charged: 0, count: 0, settled: false }) };
    all.keys.set(`${id}:0`, { ...row, delta: row.delta - amount });
  }
  for (const [id, amount] of taken.users) {
    const row = { ...(all.users.get(id) ?? { delta: 0, charged: 0, count: 0, settled: false }) };
    all.users.set(id, { ...row, delta: row.delta - amount });
  }
  const rows = rowsToWrite(all);
  return single && Math.max(rows.keys.length, rows.users.length, rows.channels.length) > 1 ? undefined : rows;
}

/** The users' balances among the rows sharedRowsStatement's selects answer. */
export function userBalances(rows: Array<{ kind: string; id: number; balance: number }>): Map<number, number> {
  return new Map(rows.filter((row) => row.kind === 'u').map((row) => [Number(row.id), Number(row.balance)]));
}

/** writeIfCovered wrote part of the batch's rows: its transaction is to be undone and the batch run the careful way. */
export class NotCovered extends Error {
  constructor() {
    super('a balance does not plainly cover the batch');
  }
}

const rowsOf = (count: number, types: string[]) => repeatJoined(`(${types.map((type) => `?::${type}`).join(', ')})`, count);

/**
 * PostgreSQL: every shared row of the batch in one statement (see writeSharedRows and writeIfCovered for when). A
 * key or user row from which the batch takes something (`takenFrom`) is written only if its balance covers it.
 * What each key row gets is what rowStatements does one by one: an unlimited key only its counters and access
 * time; a limited key its balance, and when a settlement touched it its counters, its access time when it served
 * a request, and "exhausted" when nothing is left and no request of its own is in flight. Answers the rows
 * written: keys ('k') and users ('u') with their balance after, channels ('c').
 */
async function writeInOneStatement(
  sql: RawSql,
  trx: Transaction<Database>,
  keys: RowsToWrite['keys'],
  users: RowsToWrite['users'],
  channels: RowsToWrite['channels'],
  accessed: number,
  takenFrom: Taken = { keys: new Map(), users: new Map() },
): Promise<Array<{ kind: string; id: number; balance: number }>> {
  const { ctes, selects, parameters } = sharedRowsStatement({ keys, users, channels }, accessed, takenFrom);
  const result = await sql.run<{ kind: string; id: number; balance: number }>(trx, `with ${ctes.join(', ')} ${selects.join(' union all ')}`, parameters);
  return result.rows;
}

/**
 * The parts of writeInOneStatement's statement, for a caller that adds its own: the data-modifying CTEs (k, u, c),
 * their parameters, and the selects that read them with the CTEs' names, in the order that locks the rows in the
 * ledger's order. A
 * caller that claims reservations in the same statement (whose CTEs all see the rows as they were before it) names
 * them in `claimed`, so that a key whose last request in flight is one of them can still be found exhausted; a key
 * the batch reserves from (`takenFrom`) has a request in flight and is never exhausted, whether or not the statement
 * can see its new reservation row.
 */
export function sharedRowsStatement(
  { keys, users, channels }: RowsToWrite,
  accessed: number,
  takenFrom: Taken,
  claimed: string[] = [],
): { ctes: string[]; selects: string[]; names: Array<'k' | 'u' | 'c'>; parameters: unknown[] } {
  const ctes: string[] = [];
  const selects: string[] = [];
  const names: Array<'k' | 'u' | 'c'> = [];
  const parameters: unknown[] = [];
  if (keys.length > 0) {
    ctes.push(
      `k as (update tokens set ` +
        `status = case when v.settled and not v.unlimited and v.taken = 0 and tokens.remain_quota + v.delta <= 0 and tokens.status = ? and not exists (select 1 from quota_reservations r where r.token_id = tokens.id and r.amount > 0 and r.request_id <> all(?::text[])) then ? ` +
        `when v.settled and not v.unlimited and tokens.status = ? and tokens.remain_quota + v.delta > 0 then ? else tokens.status end, ` +
        `remain_quota = tokens.remain_quota + v.delta, used_quota = tokens.used_quota + v.charged, request_count = tokens.request_count + v.count, ` +
        `accessed_time = case when v.unlimited or (v.settled and v.count > 0) then ? else tokens.accessed_time end ` +
        `from (values ${rowsOf(keys.length, ['bigint', 'bigint', 'bigint', 'bigint', 'boolean', 'boolean', 'bigint'])}) as v(id, delta, charged, count, settled, unlimited, taken) ` +
        `where tokens.id = v.id and (v.taken = 0 or tokens.remain_quota + v.delta >= 0) returning tokens.id, tokens.remain_quota)`,
    );
    selects.push(`select 'k' as kind, id, remain_quota as balance from k`);
    names.push('k');
    parameters.push(TokenStatus.Enabled, claimed, TokenStatus.Exhausted, TokenStatus.Exhausted, TokenStatus.Enabled, accessed);
    for (const t of keys) parameters.push(t.id, t.unlimited ? 0 : t.delta, t.unlimited || t.settled ? t.charged : 0, t.unlimited || t.settled ? t.count : 0, t.settled, t.unlimited, t.unlimited ? 0 : (takenFrom.keys.get(t.id) ?? 0));
  }
  if (users.length > 0) {
    ctes.push(
      `u as (update users set quota = users.quota + v.delta, used_quota = users.used_quota + v.charged, request_count = users.request_count + v.count ` +
        `from (values ${rowsOf(users.length, ['bigint', 'bigint', 'bigint', 'bigint', 'bigint'])}) as v(id, delta, charged, count, taken) ` +
        `where users.id = v.id and (v.taken = 0 or users.quota + v.delta >= 0) returning users.id, users.quota)`,
    );
    selects.push(`select 'u' as kind, id, quota as balance from u`);
    names.push('u');
    for (const t of users) parameters.push(t.id, t.delta, t.charged, t.count, takenFrom.users.get(t.id) ?? 0);
  }
  if (channels.length > 0) {
    ctes.push(
      `c as (update channels set used_quota = channels.used_quota + v.charged, request_count = channels.request_count + v.count, usage_anomalies = channels.usage_anomalies + v.anomalies ` +
        `from (values ${rowsOf(channels.length, ['bigint', 'bigint', 'bigint', 'bigint'])}) as v(id, charged, count, anomalies) where channels.id = v.id returning channels.id)`,
    );
    selects.push(`select 'c' as kind, id, 0 as balance from c`);
    names.push('c');
    for (const t of channels) parameters.push(t.id, t.charged, t.count, t.anomalies);
  }
  // The rows are written (and so locked) in the order the final select reads the CTEs: the ledger's lock order,
  // limited keys before users, an unlimited key after its user (every other batch writing it holds that user's row).
  if (keys.length > 0 && keys.every((t) => t.unlimited) && users.length > 0) {
    selects.splice(0, 2, selects[1], selects[0]);
    names.splice(0, 2, names[1], names[0]);
  }
  return { ctes, selects, names, parameters };
}
