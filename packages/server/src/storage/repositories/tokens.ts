import { sql, type Kysely } from 'kysely';
import { PAGE_SIZE } from '@model-relay/contract';
import type { RelayCache } from '../relay-cache.js';
import type { Database, TokenRow } from '../schema.js';
import { escapeLike } from './users.js';

export type TokenOrder = 'remain_quota' | 'used_quota' | '';

/**
 * The tokens table (API keys). `TokensRepository` serves the console, where every query is scoped to one owner (a
 * user never reaches another's keys), plus the relay's marking of an expired key (`setStatusById`). The ledger's
 * quota and counter writes, made with the users' and channels' in its batches, are in billing/ledger-shared-rows.ts.
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
