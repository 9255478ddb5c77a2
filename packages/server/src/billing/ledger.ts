import { LogType, TokenStatus } from '@model-relay/contract';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Dialect } from '../storage/database.js';
import type { Database, NewLog } from '../storage/schema.js';

export class InsufficientQuotaError extends Error {
  constructor(readonly who: 'token' | 'user') {
    super(who === 'token' ? '令牌额度不足' : '用户额度不足');
  }
}

export interface Reservation {
  id: number;
  requestId: string;
  userId: number;
  tokenId: number;
  unlimited: boolean;
  amount: number;
}

export interface Settlement {
  /** What the request really cost (before clamping to what is left). */
  cost: number;
  channelId: number;
  /** Consume log to write in the same transaction; its quota is set to the amount actually charged. */
  log?: Omit<NewLog, 'quota' | 'type'>;
}

const now = () => Math.floor(Date.now() / 1000);

/**
 * The money ledger. `reserve` takes quota from the token and the user before the upstream call, atomically
 * and never below zero; `settle` runs exactly once per reservation (deleting the reservation row is the claim)
 * and in one transaction charges the actual cost, refunds the rest, bumps the usage counters and writes the
 * consume log. Nothing is half-written: either all of it lands or none.
 */
export class QuotaLedger {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async reserve(input: { requestId: string; userId: number; tokenId: number; unlimited: boolean; amount: number }): Promise<Reservation> {
    const amount = Math.max(0, Math.ceil(input.amount));
    const id = await this.db.transaction().execute(async (trx) => {
      if (!input.unlimited && amount > 0) {
        const token = await trx
          .updateTable('tokens')
          .set({ remain_quota: sql<number>`remain_quota - ${amount}` })
          .where('id', '=', input.tokenId)
          .where('remain_quota', '>=', amount)
          .executeTakeFirst();
        if (Number(token.numUpdatedRows) === 0) throw new InsufficientQuotaError('token');
      }
      if (amount > 0) {
        const user = await trx
          .updateTable('users')
          .set({ quota: sql<number>`quota - ${amount}` })
          .where('id', '=', input.userId)
          .where('quota', '>=', amount)
          .executeTakeFirst();
        if (Number(user.numUpdatedRows) === 0) throw new InsufficientQuotaError('user');
      }
      const inserted = await trx
        .insertInto('quota_reservations')
        .values({ request_id: input.requestId, user_id: input.userId, token_id: input.tokenId, amount, charged: 0, status: 'open', created_at: now(), settled_at: 0 })
        .executeTakeFirstOrThrow();
      if (inserted.insertId !== undefined) return Number(inserted.insertId);
      const row = await trx.selectFrom('quota_reservations').select('id').where('request_id', '=', input.requestId).executeTakeFirstOrThrow();
      return row.id;
    });
    return { id, requestId: input.requestId, userId: input.userId, tokenId: input.tokenId, unlimited: input.unlimited, amount };
  }

  private queue: Array<{ reservation: Reservation; settlement: Settlement; resolve: (charged: number | undefined) => void; reject: (error: unknown) => void }> = [];
  private flushing = false;

  /**
   * Settles a reservation once. Returns the amount charged, or undefined when it was already settled.
   * When the real cost exceeds the reservation, the extra is taken only as far as the balances allow:
   * quotas never go negative; the log records what was actually charged.
   *
   * Settlements queue up and are committed together (group commit): one transaction per event-loop turn
   * instead of one per request, so the rows every request touches (the user, the key, the channel) are
   * written once per batch. If a batch fails, each of its settlements is retried on its own, so one bad
   * settlement never takes others down with it.
   */
  settle(reservation: Reservation, settlement: Settlement): Promise<number | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ reservation, settlement, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      try {
        const results = await this.db.transaction().execute(async (trx) => {
          const charged: Array<number | undefined> = [];
          for (const item of batch) charged.push(await this.settleIn(trx, item.reservation, item.settlement));
          return charged;
        });
        batch.forEach((item, i) => item.resolve(results[i]));
      } catch {
        for (const item of batch) {
          await this.db
            .transaction()
            .execute((trx) => this.settleIn(trx, item.reservation, item.settlement))
            .then(item.resolve, item.reject);
        }
      }
    }
    this.flushing = false;
  }

  /** One settlement inside a transaction. Deleting the reservation row is the claim: it succeeds once. */
  private async settleIn(trx: Transaction<Database>, reservation: Reservation, settlement: Settlement): Promise<number | undefined> {
    const claimed = await trx.deleteFrom('quota_reservations').where('id', '=', reservation.id).executeTakeFirst();
    if (Number(claimed.numDeletedRows) === 0) return undefined;

    const cost = Math.max(0, Math.ceil(settlement.cost));
    let charged = Math.min(cost, reservation.amount);
    const extra = cost - charged;
    if (extra > 0) charged += await this.takeExtra(trx, reservation, extra);
    const refund = reservation.amount - Math.min(cost, reservation.amount);

    await trx
      .updateTable('tokens')
      .set({
        remain_quota: reservation.unlimited ? sql<number>`remain_quota` : sql<number>`remain_quota + ${refund}`,
        used_quota: sql<number>`used_quota + ${charged}`,
        request_count: sql<number>`request_count + 1`,
        accessed_time: now(),
        // A limited key that has nothing left becomes "exhausted" (status 4) in the same statement.
        ...(reservation.unlimited
          ? {}
          : { status: sql<number>`case when remain_quota + ${refund} <= 0 and status = ${TokenStatus.Enabled} then ${TokenStatus.Exhausted} else status end` }),
      })
      .where('id', '=', reservation.tokenId)
      .execute();
    await trx
      .updateTable('users')
      .set({
        quota: sql<number>`quota + ${refund}`,
        used_quota: sql<number>`used_quota + ${charged}`,
        request_count: sql<number>`request_count + 1`,
      })
      .where('id', '=', reservation.userId)
      .execute();
    if (settlement.channelId > 0) {
      await trx
        .updateTable('channels')
        .set({ used_quota: sql<number>`used_quota + ${charged}`, request_count: sql<number>`request_count + 1` })
        .where('id', '=', settlement.channelId)
        .execute();
    }
    if (settlement.log) {
      await trx.insertInto('logs').values({ ...settlement.log, type: LogType.Consume, quota: charged }).execute();
    }
    return charged;
  }

  /** Takes up to `extra` more from the token and the user, as far as both have it. */
  private async takeExtra(trx: Transaction<Database>, reservation: Reservation, extra: number): Promise<number> {
    // Lock order everywhere in the ledger: token row, then user row (no deadlocks between reserve and settle).
    let token = trx.selectFrom('tokens').select('remain_quota').where('id', '=', reservation.tokenId);
    let user = trx.selectFrom('users').select('quota').where('id', '=', reservation.userId);
    if (this.dialect !== 'sqlite') {
      token = token.forUpdate();
      user = user.forUpdate();
    }
    const tokenQuota = reservation.unlimited ? Number.MAX_SAFE_INTEGER : Number((await token.executeTakeFirst())?.remain_quota ?? 0);
    const userQuota = Number((await user.executeTakeFirst())?.quota ?? 0);
    const take = Math.max(0, Math.min(extra, userQuota, tokenQuota));
    if (take > 0) {
      if (!reservation.unlimited) {
        await trx.updateTable('tokens').set({ remain_quota: sql<number>`remain_quota - ${take}` }).where('id', '=', reservation.tokenId).execute();
      }
      await trx.updateTable('users').set({ quota: sql<number>`quota - ${take}` }).where('id', '=', reservation.userId).execute();
    }
    return take;
  }

  /**
   * Crash recovery: reservations still open (their row exists) from before `before` (unix seconds) are
   * refunded in full. Returns how many were recovered.
   */
  async recoverOpen(before: number): Promise<number> {
    const open = await this.db.selectFrom('quota_reservations').selectAll().where('created_at', '<', before).execute();
    let recovered = 0;
    for (const row of open) {
      await this.db.transaction().execute(async (trx) => {
        const claimed = await trx.deleteFrom('quota_reservations').where('id', '=', row.id).executeTakeFirst();
        if (Number(claimed.numDeletedRows) === 0) return;
        const amount = Number(row.amount);
        const token = await trx.selectFrom('tokens').select('unlimited_quota').where('id', '=', row.token_id).executeTakeFirst();
        if (token && !token.unlimited_quota) {
          await trx.updateTable('tokens').set({ remain_quota: sql<number>`remain_quota + ${amount}` }).where('id', '=', row.token_id).execute();
        }
        await trx.updateTable('users').set({ quota: sql<number>`quota + ${amount}` }).where('id', '=', row.user_id).execute();
        recovered++;
      });
    }
    return recovered;
  }
}
