import type { Transaction } from 'kysely';
import { chunks, placeholders, ROWS_PER_STATEMENT, type RawSql } from '../storage/raw-sql.js';
import type { TokenBalances } from '../storage/repositories/tokens.js';
import type { Database } from '../storage/schema.js';
import { InsufficientQuotaError, type ReserveInput } from './ledger-types.js';

/** A reservation asked of the ledger: `requested` as asked, `amount` what it ends up holding, never below `minimum`. */
export type Claim = ReserveInput & { minimum: number; requested: number };

/**
 * The batch's reservations, each deciding on its own in queue order as if alone: the whole amount when both
 * the key and the user cover it; otherwise, when its minimum allows, as much as both hold (the output is then
 * capped); otherwise refused. The balances are read once per key and user (their rows are locked since
 * `lock`, and SQLite has one writer) and every key and user row is then updated once with the sum taken
 * from it: a few statements per batch instead of two per reservation, which on PostgreSQL and MySQL are
 * round trips the whole batch waits for.
 */
export async function takeReservations(sql: RawSql, tokens: TokenBalances, trx: Transaction<Database>, claims: Claim[], known: KnownBalances = { keys: new Map(), users: new Map() }): Promise<Array<InsufficientQuotaError | undefined>> {
  for (const r of claims) r.amount = r.requested; // a batch that failed and is retried job by job starts over
  const asking = claims.filter((r) => r.amount > 0);
  const keys = await balances(sql, trx, 'tokens', 'remain_quota', asking.filter((r) => !r.unlimited).map((r) => r.tokenId), known.keys);
  const users = await balances(sql, trx, 'users', 'quota', asking.map((r) => r.userId), known.users);
  const takenFromKeys = new Map<number, number>();
  const takenFromUsers = new Map<number, number>();
  const refusals = claims.map((r) => {
    if (r.amount === 0) return undefined;
    const key = r.unlimited ? Number.MAX_SAFE_INTEGER : (keys.get(r.tokenId) ?? 0);
    const user = users.get(r.userId) ?? 0;
    let take = r.amount;
    if (key < r.amount || user < r.amount) {
      if (r.minimum >= r.amount) return new InsufficientQuotaError(key < r.amount ? 'token' : 'user');
      take = Math.min(r.amount, Math.max(0, key), Math.max(0, user));
      if (take < r.minimum || take <= 0) return new InsufficientQuotaError(Math.max(0, key) < Math.max(0, user) ? 'token' : 'user');
    }
    if (!r.unlimited) {
      keys.set(r.tokenId, key - take);
      takenFromKeys.set(r.tokenId, (takenFromKeys.get(r.tokenId) ?? 0) + take);
    }
    users.set(r.userId, user - take);
    takenFromUsers.set(r.userId, (takenFromUsers.get(r.userId) ?? 0) + take);
    r.amount = take;
    return undefined;
  });
  // Key rows before user rows, each by ascending id: the ledger's lock order.
  for (const [id, taken] of [...takenFromKeys].sort((a, b) => a[0] - b[0])) {
    await tokens.take(trx, id, taken);
  }
  for (const [id, taken] of [...takenFromUsers].sort((a, b) => a[0] - b[0])) {
    await sql.run(trx, 'update users set quota = quota - ? where id = ?', [taken, id]);
  }
  return refusals;
}

/**
 * Balances this transaction already knows, by key id and user id: the values the batch's settlement updates read
 * back (UPDATE ... RETURNING, ledger.ts). The rows are locked since `lock`, so they are still current; reading
 * them again would only cost a round trip.
 */
export interface KnownBalances {
  keys: Map<number, number>;
  users: Map<number, number>;
}

/** Current balances of these rows (a missing row has none): the known ones as they are, the others read. */
async function balances(sql: RawSql, trx: Transaction<Database>, table: 'tokens' | 'users', column: 'remain_quota' | 'quota', ids: number[], known: Map<number, number>): Promise<Map<number, number>> {
  const balances = new Map<number, number>();
  for (const id of ids) if (known.has(id)) balances.set(id, known.get(id)!);
  const unique = [...new Set(ids.filter((id) => !known.has(id)))].sort((a, b) => a - b);
  for (const part of chunks(unique, ROWS_PER_STATEMENT)) {
    const rows = await sql.run<Record<string, number>>(trx, `select id, ${column} from ${table} where id in (${placeholders(part.length)})${sql.forUpdate}`, part);
    for (const row of rows.rows) balances.set(Number(row.id), Number(row[column]));
  }
  return balances;
}
