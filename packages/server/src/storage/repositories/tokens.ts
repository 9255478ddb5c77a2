import { sql, type Kysely } from 'kysely';
import { PAGE_SIZE } from '@model-relay/contract';
import { TokenStatus } from '@model-relay/contract';
import type { RawSql, Executor } from '../raw-sql.js';
import type { RelayCache } from '../relay-cache.js';
import type { Database, TokenRow } from '../schema.js';
import { escapeLike } from './users.js';

export type TokenOrder = 'remain_quota' | 'used_quota' | '';

/**
 * The tokens table (API keys): its one writer. `TokensRepository` serves the console, where every query is scoped
 * to one owner (a user never reaches another's keys), plus the relay's marking of an expired key (`setStatusById`); `TokenBalances`
 * is the ledger's quota and counter writes inside its transactions.
 */
export class TokensRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly cache?: RelayCache,
  ) {}

  list(userId: number, page: number, order: TokenOrder): Promise<TokenRow[]> {
    let query = this.db.selectFrom('tokens').selectAll().where('user_id', '=', userId);
    if (order === 'remain_quota') query = query.orderBy('unlimited_quota', 'desc').orderBy('remain_quota', 'desc');
    else if (order === 'used_quota') query = query.orderBy('used_quota', 'desc');
    return query.orderBy('id', 'desc').limit(PAGE_SIZE).offset(Math.max(0, page) * PAGE_SIZE).execute();
  }

  search(userId: number, keyword: string): Promise<TokenRow[]> {
    return this.db
      .selectFrom('tokens')
      .selectAll()
      .where('user_id', '=', userId)
      .where(sql<boolean>`${sql.ref('name')} like ${`${escapeLike(keyword)}%`} escape '!'`)
      .orderBy('id', 'desc')
      .limit(100)
      .execute();
  }

  find(userId: number, id: number): Promise<TokenRow | undefined> {
    return this.db.selectFrom('tokens').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  }

  async insert(row: Omit<TokenRow, 'id'>): Promise<TokenRow> {
    await this.db.insertInto('tokens').values(row).execute();
    this.cache?.invalidateTokens();
    return this.db.selectFrom('tokens').selectAll().where('key', '=', row.key).executeTakeFirstOrThrow();
  }

  async update(userId: number, id: number, changes: Partial<Omit<TokenRow, 'id' | 'user_id' | 'key'>>): Promise<void> {
    await this.db.updateTable('tokens').set(changes).where('user_id', '=', userId).where('id', '=', id).execute();
    this.cache?.invalidateTokens();
  }

  async delete(userId: number, id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('tokens').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
    this.cache?.invalidateTokens();
    return Number(result.numDeletedRows) > 0;
  }

  /** The relay's one status change (a key found past its expiry): by id, of any owner (the key itself was presented). */
  async setStatusById(id: number, status: number): Promise<void> {
    await this.db.updateTable('tokens').set({ status }).where('id', '=', id).execute();
    this.cache?.invalidateTokens();
  }

  /** Marks the owner's keys whose expiry passed as expired (status 3), so lists show it. */
  async expireOverdue(userId: number, now: number): Promise<void> {
    await this.db
      .updateTable('tokens')
      .set({ status: 3 })
      .where('user_id', '=', userId)
      .where('status', '=', 1)
      .where('expired_time', '!=', -1)
      .where('expired_time', '<', now)
      .execute();
    this.cache?.invalidateTokens();
  }
}

/**
 * The ledger's writes to keys, inside its transactions (billing/ledger.ts takes the locks and decides the amounts).
 * Hand-written SQL (raw-sql.ts): every relay request runs these.
 */
export class TokenBalances {
  constructor(private readonly sql: RawSql) {}

  /** Takes `amount` from the key's remaining quota (a reservation, or what a settlement charged beyond it). */
  async take(trx: Executor, id: number, amount: number): Promise<void> {
    await this.sql.run(trx, 'update tokens set remain_quota = remain_quota - ? where id = ?', [amount, id]);
  }

  /** An unlimited key's settlement: only the counters move. */
  async settleUnlimited(trx: Executor, id: number, charged: number, count: number, accessed: number): Promise<void> {
    await this.sql.run(trx, 'update tokens set used_quota = used_quota + ?, request_count = request_count + ?, accessed_time = ? where id = ?', [charged, count, accessed, id]);
  }

  /**
   * A limited key's settlement: the refund back, the counters up. Status first: MySQL evaluates SET left to right,
   * so later expressions would see the new remain_quota. A key that has nothing left becomes "exhausted" in the same
   * statement, but only when no request of its own is still in flight: a balance that is zero because other requests
   * hold it now comes back when they settle, and must not lock the key for good. `accessed_time` moves only when
   * the settlement served a request. Answers the key's remaining quota after it where the database says it with the
   * update (UPDATE ... RETURNING: SQLite and PostgreSQL), so the ledger need not read it again; undefined elsewhere.
   */
  async settleLimited(trx: Executor, id: number, refund: number, charged: number, count: number, accessed: number): Promise<number | undefined> {
    const updated = await this.sql.run<{ remain_quota: number }>(
      trx,
      `update tokens set status = case when remain_quota + ? <= 0 and status = ? and not exists (select 1 from quota_reservations r where r.token_id = tokens.id and r.amount > 0) then ? else status end, remain_quota = remain_quota + ?, used_quota = used_quota + ?, request_count = request_count + ?, accessed_time = case when ? > 0 then ? else accessed_time end where id = ?${this.sql.updateReturning ? ' returning remain_quota' : ''}`,
      [refund, TokenStatus.Enabled, TokenStatus.Exhausted, refund, charged, count, count, accessed, id],
    );
    return updated.rows[0] ? Number(updated.rows[0].remain_quota) : undefined;
  }
}
