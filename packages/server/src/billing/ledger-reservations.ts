import type { Transaction } from 'kysely';
import { chunks, insertRows, placeholders, type ColumnKind, ROWS_PER_STATEMENT, type Statement } from '../storage/raw-sql.js';
import type { Database } from '../storage/schema.js';
import { InsufficientQuotaError, jobsOf, now, type BatchContext, type Job, type Outcome, type Progress, type ReserveInput } from './ledger-types.js';

/*
 * A batch's reservations: deciding them from the locked balances (pure), and the statements on their rows in
 * quota_reservations (claims, balance slices, promotions, progress, new rows and their corrections), all run
 * inside the batch's transaction by ledger-batch.ts.
 */

/** A reservation asked of the ledger: `requested` as asked, `amount` what it ends up holding, never below `minimum`. */
export type Claim = ReserveInput & { minimum: number; requested: number };

/** What a batch's reservations took, per key and per user, and which of them were refused (by position). */
export interface Decisions {
  refusals: Array<InsufficientQuotaError | undefined>;
  takenFromKeys: Map<number, number>;
  takenFromUsers: Map<number, number>;
}

/**
 * The batch's reservations, each deciding on its own in queue order as if alone: the whole amount when both
 * the key and the user cover it; otherwise, when its minimum allows, as much as both hold (the output is then
 * capped); otherwise refused. `keys` and `users` are the balances the batch's locked rows hold (a missing row
 * has none); they are lowered by what each reservation takes, so the next one sees what this one left. Pure:
 * the ledger writes the sums, one update per key and user row.
 */
export function decideReservations(claims: Claim[], keys: Map<number, number>, users: Map<number, number>): Decisions {
  const takenFromKeys = new Map<number, number>();
  const takenFromUsers = new Map<number, number>();
  const refusals = claims.map((r) => {
    r.amount = r.requested; // a batch that failed and is retried job by job starts over
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
  return { refusals, takenFromKeys, takenFromUsers };
}

const RESERVATION_COLUMNS: Array<[string, ColumnKind]> = [
  ['request_id', 'text'],
  ['user_id', 'bigint'],
  ['token_id', 'bigint'],
  ['amount', 'bigint'],
  ['charged', 'bigint'],
  ['status', 'text'],
  ['created_at', 'bigint'],
  ['settled_at', 'bigint'],
  ['instance_id', 'text'],
  ['model', 'text'],
  ['prompt_estimate', 'bigint'],
  ['is_stream', 'bigint'],
];

/**
 * Claims the reservations' rows (deleting them) and answers which existed: only a claimed reservation is
 * settled, so a second settlement, or one of a reservation a takeover settled, does nothing.
 */
export async function claim(ctx: BatchContext, trx: Transaction<Database>, requestIds: string[]): Promise<Set<string>> {
  const open = new Set<string>();
  const sorted = [...new Set(requestIds)].sort();
  for (const part of chunks(sorted, ROWS_PER_STATEMENT)) {
    const list = placeholders(part.length);
    if (ctx.sql.deleteReturning) {
      // Rows locked in request-id order, as on MySQL below: no lock cycle between claims. PostgreSQL locks them in
      // an ordered select first; MariaDB's DELETE walks the IN list's values through the unique index in order.
      const rows = ctx.dialect === 'postgres' ? `select request_id from quota_reservations where request_id in (${list}) order by request_id for update` : list;
      const deleted = await ctx.sql.run<{ request_id: string }>(trx, `delete from quota_reservations where request_id in (${rows}) returning request_id`, part);
      for (const row of deleted.rows) open.add(row.request_id);
      continue;
    }
    const rows = await ctx.sql.run<{ request_id: string }>(trx, `select request_id from quota_reservations where request_id in (${list}) order by request_id${ctx.sql.forUpdate}`, part);
    for (const row of rows.rows) open.add(row.request_id);
    if (rows.rows.length > 0) await ctx.sql.run(trx, `delete from quota_reservations where request_id in (${list})`, part);
  }
  return open;
}

/**
 * Takes from the balance slices' rows what the batch's sliced settlements charge (as far as each one's slice pays)
 * and what its promotions move to rows of their own, one statement per slice row. Answers the slices whose row
 * was still there and held enough (every one, unless a takeover settled it after this instance was taken for dead):
 * a sliced settlement of a slice not answered is charged to the balances instead, and its promotion fails. Tells
 * each sliced settlement which it was, once the batch committed (`onSlice`, called by the ledger).
 */
export async function takeFromSlices(ctx: BatchContext, trx: Transaction<Database>, batch: readonly Job[]): Promise<Set<string>> {
  const taken = new Map<string, number>();
  for (const job of batch) {
    if (job.kind === 'settle' && job.reservation.slice !== undefined) {
      const take = Math.min(Math.max(0, Math.ceil(job.settlement.cost)), job.reservation.amount);
      taken.set(job.reservation.slice, (taken.get(job.reservation.slice) ?? 0) + take);
    } else if (job.kind === 'promote') taken.set(job.reservation.slice, (taken.get(job.reservation.slice) ?? 0) + job.reservation.amount);
  }
  const backed = new Set<string>();
  for (const slice of [...taken.keys()].sort()) {
    const amount = taken.get(slice)!;
    if ((await ctx.sql.changes(trx, 'update quota_reservations set amount = amount - ? where request_id = ? and amount >= ?', [amount, slice, amount])) === 1) backed.add(slice);
  }
  return backed;
}

/** The promotions of the batch: each a reservation row of its own, at what it held in its slice, with its progress. */
export async function promoteFromSlices(ctx: BatchContext, trx: Transaction<Database>, batch: readonly Job[], backed: Set<string>, outcomes: Outcome[]): Promise<void> {
  const promoted: Array<{ claim: Claim; progress: Progress }> = [];
  for (const { job, i } of jobsOf(batch, 'promote')) {
    if (!backed.has(job.reservation.slice)) {
      outcomes[i] = undefined;
      continue;
    }
    const r = job.reservation;
    const claim: Claim = { requestId: r.requestId, userId: r.userId, tokenId: r.tokenId, unlimited: r.unlimited, amount: r.amount, requested: r.amount, minimum: r.amount, ...job.details };
    promoted.push({ claim, progress: job.progress });
    outcomes[i] = { requestId: r.requestId, userId: r.userId, tokenId: r.tokenId, unlimited: r.unlimited, amount: r.amount };
  }
  if (promoted.length === 0) return;
  await ctx.sql.runAll(trx, reservationStatements(ctx, promoted.map((p) => p.claim)));
  for (const { progress: p } of promoted) {
    await ctx.sql.run(trx, 'update quota_reservations set channel_id = ?, delivered_chars = ? where request_id = ?', [p.channelId, p.deliveredChars, p.requestId]);
  }
}

export async function recordProgress(ctx: BatchContext, trx: Transaction<Database>, batch: Job[]): Promise<void> {
  const progress = jobsOf(batch, 'progress').map(({ job }) => job.progress).sort((a, b) => (a.requestId < b.requestId ? -1 : 1));
  for (const p of progress) {
    await ctx.sql.run(trx, 'update quota_reservations set channel_id = ?, delivered_chars = ? where request_id = ?', [p.channelId, p.deliveredChars, p.requestId]);
  }
}

/** The new reservations' rows, at the amount each one asked (multi-row inserts). */
export function reservationStatements(ctx: BatchContext, claims: Claim[]): Statement[] {
  const createdAt = now();
  const rows = claims.map((r) => [r.requestId, r.userId, r.tokenId, r.amount, 0, 'open', createdAt, 0, ctx.instanceId, (r.model ?? '').slice(0, 255), Math.max(0, Math.ceil(r.promptEstimate ?? 0)), r.stream ? 1 : 0]);
  return insertRows(ctx.dialect, 'quota_reservations', RESERVATION_COLUMNS, rows);
}

/** The reservation rows inserted at the amount asked: the refused ones removed, the partial ones lowered. */
export async function correctReservations(ctx: BatchContext, trx: Transaction<Database>, claims: Claim[], refusals: Array<InsufficientQuotaError | undefined>): Promise<void> {
  const refused = claims.filter((_, n) => refusals[n]).map((r) => r.requestId);
  for (const part of chunks(refused, ROWS_PER_STATEMENT)) {
    await ctx.sql.run(trx, `delete from quota_reservations where request_id in (${placeholders(part.length)})`, part);
  }
  for (const r of claims.filter((r, n) => !refusals[n] && r.amount !== r.requested)) {
    await ctx.sql.run(trx, 'update quota_reservations set amount = ? where request_id = ?', [r.amount, r.requestId]);
  }
}
