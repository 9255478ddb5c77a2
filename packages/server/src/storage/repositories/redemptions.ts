import { sql, type Kysely } from 'kysely';
import { LogType, PAGE_SIZE, RedemptionStatus, idFromKeyword } from '@model-relay/contract';
import type { RelayCache } from '../relay-cache.js';
import type { Database, RedemptionRow } from '../schema.js';
import type { LogsRepository } from './logs.js';
import { escapeLike } from './users.js';

export type NewRedemption = Omit<RedemptionRow, 'id'>;

/** What a redemption attempt came to: the credited code, or why nothing was credited. */
export type RedeemOutcome = { ok: true; code: RedemptionRow } | { ok: false; reason: 'unknown' | 'used' | 'disabled' };

/** The redeeming user was deleted while redeeming; the transaction was rolled back. */
export class RedeemerGoneError extends Error {
  constructor() {
    super('redeeming user no longer exists');
  }
}

/** Redemption codes (docs/console.md §3): the admin's list and the one place a code turns into quota. */
export class RedemptionsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    /** The logs table's writer: a redemption writes its top-up log in its own transaction. */
    private readonly logs: LogsRepository,
    private readonly cache?: RelayCache,
  ) {}

  list(page: number): Promise<RedemptionRow[]> {
    return this.db
      .selectFrom('redemptions')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(PAGE_SIZE)
      .offset(Math.max(0, page) * PAGE_SIZE)
      .execute();
  }

  /** Exact id, or name prefix (docs/console.md §2: search by ID and name). */
  search(keyword: string): Promise<RedemptionRow[]> {
    const id = idFromKeyword(keyword) ?? -1;
    return this.db
      .selectFrom('redemptions')
      .selectAll()
      .where((eb) => eb.or([eb('id', '=', id), sql<boolean>`${sql.ref('name')} like ${`${escapeLike(keyword)}%`} escape '!'`]))
      .orderBy('id', 'desc')
      .limit(100)
      .execute();
  }

  find(id: number): Promise<RedemptionRow | undefined> {
    return this.db.selectFrom('redemptions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Inserts all the codes of one creation, or none. */
  async insertMany(rows: NewRedemption[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const row of rows) await trx.insertInto('redemptions').values(row).execute();
    });
  }

  /** Name and quota of a code that was not used yet; false when it was used (or is gone). */
  async updateUnused(id: number, changes: { name: string; quota: number }): Promise<boolean> {
    const result = await this.db
      .updateTable('redemptions')
      .set(changes)
      .where('id', '=', id)
      .where('status', '!=', RedemptionStatus.Used)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Status 1 <-> 2 of a code that was not used yet: conditional, so it can never undo a redemption in flight. */
  async setStatusUnused(id: number, status: number): Promise<boolean> {
    const result = await this.db
      .updateTable('redemptions')
      .set({ status })
      .where('id', '=', id)
      .where('status', '!=', RedemptionStatus.Used)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('redemptions').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * Redeems `key` for one user, exactly once however many users try the same code at the same moment, on every
   * database: inside one transaction, the claim is a conditional update (status 1 -> 3) that only one
   * transaction can win; PostgreSQL and MariaDB make a concurrent claimer wait on the row and then re-check the
   * condition against the committed row, SQLite runs one writer at a time. Only the winner credits the user
   * and writes the top-up log, in the same transaction, so a failure leaves no half-credited code.
   */
  async redeem(key: string, user: { id: number; username: string }, now: number, logContent: (code: RedemptionRow) => string): Promise<RedeemOutcome> {
    const outcome = await this.db.transaction().execute(async (trx): Promise<RedeemOutcome> => {
      const claimed = await trx
        .updateTable('redemptions')
        .set({ status: RedemptionStatus.Used, redeemed_time: now, used_user_id: user.id })
        .where('key', '=', key)
        .where('status', '=', RedemptionStatus.Unused)
        .executeTakeFirst();
      const code = await trx.selectFrom('redemptions').selectAll().where('key', '=', key).executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1 || !code) {
        if (!code) return { ok: false, reason: 'unknown' };
        return { ok: false, reason: code.status === RedemptionStatus.Disabled ? 'disabled' : 'used' };
      }
      const quota = Number(code.quota);
      const credited = await trx
        .updateTable('users')
        .set({ quota: sql<number>`quota + ${quota}` })
        .where('id', '=', user.id)
        .executeTakeFirst();
      // The user vanished meanwhile: roll the claim back rather than burn the code.
      if (Number(credited.numUpdatedRows) !== 1) throw new RedeemerGoneError();
      await this.logs.insert({ user_id: user.id, username: user.username, type: LogType.TopUp, created_at: now, quota, content: logContent(code) }, trx);
      return { ok: true, code };
    });
    // After the commit: the relay's copy of the user must not keep the old balance.
    if (outcome.ok) this.cache?.invalidateUser(user.id);
    return outcome;
  }
}
