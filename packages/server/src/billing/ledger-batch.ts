import { LogType } from '@model-relay/contract';
import type { Transaction } from 'kysely';
import type { Statement } from '../storage/raw-sql.js';
import type { Database, NewLog } from '../storage/schema.js';
import { claim, correctReservations, decideReservations, promoteFromSlices, recordProgress, reservationStatements, takeFromSlices, type Claim } from './ledger-reservations.js';
import { lockBalances, writeIfCovered, writeSharedRows, type RowChange, type SharedChanges, type Taken } from './ledger-shared-rows.js';
import { jobsOf, now, type BatchContext, type Crossings, type Job, type Outcome } from './ledger-types.js';
import { addRollup, hourOf, rollupStatements, type Rollup } from './rollup-writer.js';

/** What one settlement charges: `cost` as computed, `charged` what the balances pay of it, `refund` what goes back. */
export interface Charge {
  job: Extract<Job, { kind: 'settle' }>;
  i: number;
  cost: number;
  charged: number;
  refund: number;
  /** What the log adds when the cost exceeded the reservation. */
  extra: string;
  /** Held in a balance slice: what it does not charge stays in the slice, nothing goes back to the balances. */
  sliced: boolean;
  /** What of `charged` the slice paid (a sliced settlement's, before any extra from the balances); 0 otherwise. */
  fromSlice: number;
}

/**
 * A settlement's charge before the balances are seen: its cost, as far as its reservation covers it (`held`: for a
 * sliced settlement what its slice pays, 0 when the slice's row was gone).
 */
export function chargeOf(job: Charge['job'], i: number, held = job.reservation.amount): Charge {
  const cost = Math.max(0, Math.ceil(job.settlement.cost));
  const charged = Math.min(cost, held);
  const sliced = job.reservation.slice !== undefined;
  return { job, i, cost, charged, refund: sliced ? 0 : held - charged, extra: '', sliced, fromSlice: sliced ? charged : 0 };
}

const change = <K>(map: Map<K, RowChange>, key: K): RowChange => {
  let row = map.get(key);
  if (!row) map.set(key, (row = { delta: 0, charged: 0, count: 0, settled: false }));
  return row;
};

/**
 * Applies a batch inside one transaction, in two phases.
 *
 * First what no other transaction waits for: the claims (deleting the settled reservations' rows), progress
 * records, the new reservations' rows (at the amount asked; the rare partial grant or refusal is corrected
 * below), and the consume logs and hourly rollups (this instance's own rows) unless a settlement cost more than
 * it held and needs the balances to know what it can charge.
 *
 * Then the rows every instance shares, right before COMMIT, so another instance's batch waits on them for a few
 * statements instead of the whole transaction (ledger-shared-rows.ts). On PostgreSQL a busy key's batch whose
 * balances plainly cover it is written in one conditional statement (writeIfCovered). Otherwise limited keys,
 * then users, are locked by ascending id with their balances read in the same statement; every decision (extra
 * charges, refunds, reservations in queue order, low-quota crossings) is made from those balances in memory;
 * then the keys, users and channels are written (on PostgreSQL in one statement). Lock order on every instance: reservation rows,
 * then limited keys, then users, then unlimited keys (covered by their user's lock: a key has one user), then
 * channels by ascending id, only ever added to (the rollup rows carry the instance's id, so no other instance
 * takes them): no two transactions can wait on each other in a cycle (no deadlocks).
 */
export async function applyBatch(ctx: BatchContext, trx: Transaction<Database>, batch: Job[], crossings: Crossings): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(batch.length);
  const settles = jobsOf(batch, 'settle');
  const reserves = jobsOf(batch, 'reserve');
  const rowSettles = settles.filter(({ job }) => job.reservation.slice === undefined);
  const open = rowSettles.length > 0 ? await claim(ctx, trx, rowSettles.map(({ job }) => job.reservation.requestId)) : new Set<string>();
  // The balance slices this batch charges and promotes from: a slice's row is its claim (a takeover may have settled it).
  const backed = await takeFromSlices(ctx, trx, batch);
  const charges: Charge[] = [];
  for (const { job, i } of settles) {
    if (job.reservation.slice !== undefined) {
      job.backed = backed.has(job.reservation.slice);
      charges.push(chargeOf(job, i, job.backed ? job.reservation.amount : 0));
      continue;
    }
    // A reservation settled twice (or already taken over) is claimed once: the other settlements find it gone.
    if (!open.delete(job.reservation.requestId)) {
      outcomes[i] = undefined;
      continue;
    }
    charges.push(chargeOf(job, i));
  }
  const claims = reserves.map(({ job }) => job.reservation);
  for (const r of claims) r.amount = r.requested;

  await promoteFromSlices(ctx, trx, batch, backed, outcomes);
  await recordProgress(ctx, trx, batch);
  const needsBalances = charges.some((c) => c.cost > c.charged);
  const accessed = now();
  // The new reservation rows and (unless a settlement needs the balances first) the logs and rollups: rows of this
  // batch alone, none depending on another, so on PostgreSQL one statement (RawSql.runAll).
  await ctx.sql.runAll(trx, [...reservationStatements(ctx, claims), ...(needsBalances ? [] : recordStatements(ctx, charges, accessed))]);

  // The shared rows from here to COMMIT. On PostgreSQL, when the balances plainly cover the batch, one statement.
  if (!needsBalances && !ctx.careful) {
    const covered = await writeIfCovered(ctx.sql, trx, settlementChanges(charges), takenInFull(claims), accessed);
    if (covered) {
      for (const c of charges) outcomes[c.i] = c.charged;
      reserves.forEach(({ i }, n) => (outcomes[i] = claims[n]));
      // The users' quota after the settlements is what the statement left plus what the reservations took.
      if (ctx.threshold > 0) findCrossings(ctx.threshold, charges, (id) => covered.users.get(id)! + (covered.taken.get(id) ?? 0), covered.users, crossings);
      return outcomes;
    }
  }
  // Where rows are locked (PostgreSQL, MySQL) every key and user row is locked here, in the ledger's order. SQLite
  // locks nothing: it reads the balances only when something is decided from them.
  const reads = ctx.dialect !== 'sqlite' || claims.length > 0 || needsBalances;
  const limited = [...charges.map((c) => c.job.reservation), ...claims].filter((r) => !r.unlimited);
  const { keys, users } = await lockBalances(
    ctx.sql,
    trx,
    reads ? limited.map((r) => r.tokenId) : [],
    reads || ctx.threshold > 0 ? [...charges.map((c) => c.job.reservation.userId), ...claims.map((r) => r.userId)] : [],
  );
  const changes = settlementChanges(charges, (c, { keys: keyChanges, users: userChanges }) => {
    if (c.cost > c.charged) takeExtra(c, keys, users, keyChanges, userChanges);
  });
  const { keys: keyChanges, users: userChanges } = changes;
  for (const c of charges) outcomes[c.i] = c.charged;
  // The balances after the settlements' refunds (the extra charges are in them already): what the reservations
  // decide against, and the crossings.
  for (const { job, refund } of charges) {
    const r = job.reservation;
    if (users.has(r.userId)) users.set(r.userId, users.get(r.userId)! + refund);
    if (!r.unlimited && keys.has(r.tokenId)) keys.set(r.tokenId, keys.get(r.tokenId)! + refund);
  }
  if (ctx.threshold > 0) findCrossings(ctx.threshold, charges, (id) => users.get(id)!, users, crossings);

  const { refusals, takenFromKeys, takenFromUsers } = decideReservations(claims, keys, users);
  reserves.forEach(({ i }, n) => (outcomes[i] = refusals[n] ?? claims[n]));
  await correctReservations(ctx, trx, claims, refusals);
  for (const [id, taken] of takenFromKeys) change(keyChanges, `${id}:0`).delta -= taken;
  for (const [id, taken] of takenFromUsers) change(userChanges, id).delta -= taken;

  if (needsBalances) await ctx.sql.runAll(trx, recordStatements(ctx, charges, accessed));
  await writeSharedRows(ctx.sql, trx, changes, accessed);
  return outcomes;
}

/**
 * What the settlements change on keys, users and channels (`beforeEach` may first charge a settlement's extra
 * cost, in queue order): refunds back, counters up.
 */
export function settlementChanges(charges: Charge[], beforeEach?: (c: Charge, changes: SharedChanges) => void): SharedChanges {
  const changes: SharedChanges = { keys: new Map(), users: new Map(), channels: new Map() };
  for (const c of charges) {
    beforeEach?.(c, changes);
    const { reservation: r, settlement: s } = c.job;
    const served = s.served === false || s.usage?.failed ? 0 : 1;
    const key = change(changes.keys, `${r.tokenId}:${r.unlimited ? 1 : 0}`);
    key.settled = true;
    key.charged += c.charged;
    key.count += served;
    // (a sliced settlement's refund is 0: what it did not use stays in its slice)
    if (!r.unlimited) key.delta += c.refund;
    const user = change(changes.users, r.userId);
    user.settled = true;
    user.delta += c.refund;
    user.charged += c.charged;
    user.count += served;
    if (s.channelId > 0) {
      const channel = changes.channels.get(s.channelId) ?? { charged: 0, count: 0, anomalies: 0 };
      channel.charged += c.charged;
      channel.count += 1;
      channel.anomalies += s.usageAnomaly ? 1 : 0;
      changes.channels.set(s.channelId, channel);
    }
  }
  return changes;
}

/** What the reservations take if every one gets all it asked for: per limited key and per user. */
export function takenInFull(claims: Claim[]): Taken {
  const keys = new Map<number, number>();
  const users = new Map<number, number>();
  for (const r of claims) {
    if (r.requested === 0) continue;
    if (!r.unlimited) keys.set(r.tokenId, (keys.get(r.tokenId) ?? 0) + r.requested);
    users.set(r.userId, (users.get(r.userId) ?? 0) + r.requested);
  }
  return { keys, users };
}

/**
 * The users these settlements took below the reminder threshold: their quota after the settlements is under it,
 * and adding back what the settled requests cost (their whole effect on the user) reaches it.
 */
export function findCrossings(threshold: number, charges: Charge[], quotaAfterSettlements: (userId: number) => number, known: Map<number, number>, crossings: Crossings): void {
  const charged = new Map<number, number>();
  // What came off the balance (a slice paid its part when it was taken, long before).
  for (const c of charges) charged.set(c.job.reservation.userId, (charged.get(c.job.reservation.userId) ?? 0) + c.charged - c.fromSlice);
  for (const [id, cost] of charged) {
    if (cost <= 0 || !known.has(id)) continue;
    const quota = quotaAfterSettlements(id);
    if (quota < threshold && quota + cost >= threshold) crossings.push({ userId: id, quota });
  }
}

/** The settlements' consume logs (multi-row inserts) and their sums in the hourly rollups: what was charged. */
export function recordStatements(ctx: BatchContext, charges: Charge[], accessed: number): Statement[] {
  const logs: NewLog[] = [];
  const rollups = new Map<string, Rollup>();
  for (const { job, charged, extra } of charges) {
    const { reservation, settlement } = job;
    const log = settlement.log;
    if (log) {
      // `quota` first: a copy that starts with a spread and then gains a field gets a hidden class of its own on node 20
      // (2-4 us each); the fields after the spread only override fields the log has.
      logs.push({
        quota: charged,
        ...log,
        user_id: log.user_id ?? reservation.userId,
        type: log.type ?? LogType.Consume,
        content: (log.content ?? '') + extra,
        token_id: log.token_id ?? reservation.tokenId,
        channel_name: (log.channel_name ?? '').slice(0, 64),
        dialect: (log.dialect ?? '').slice(0, 32),
      });
    }
    if (settlement.usage) addRollup(rollups, hourOf(accessed), reservation, settlement, charged);
  }
  return [...ctx.logs.insertStatements(logs), ...rollupStatements(ctx.dialect, ctx.instanceId, rollups)];
}

/**
 * A cost above the reservation (a provider that ignored the limits it was sent): the user pays the difference as
 * far as their balance goes; the key's remaining quota goes down by the same amount but not below zero (it capped
 * the request before the call; it cannot discount it after). Decided against the locked balances, before the
 * batch's refunds, as each extra charge comes.
 */
function takeExtra(c: Charge, keys: Map<number, number>, users: Map<number, number>, keyChanges: Map<string, RowChange>, userChanges: Map<number, RowChange>): void {
  const r = c.job.reservation;
  const userQuota = Math.max(0, users.get(r.userId) ?? 0);
  const take = Math.max(0, Math.min(c.cost - c.charged, userQuota));
  let keyEmptied = false;
  if (!r.unlimited && take > 0) {
    const keyQuota = Math.max(0, keys.get(r.tokenId) ?? 0);
    const fromKey = Math.min(take, keyQuota);
    keyEmptied = fromKey < take || keyQuota - fromKey === 0;
    if (keys.has(r.tokenId)) keys.set(r.tokenId, keys.get(r.tokenId)! - fromKey);
    change(keyChanges, `${r.tokenId}:0`).delta -= fromKey;
  }
  if (take > 0) {
    if (users.has(r.userId)) users.set(r.userId, users.get(r.userId)! - take);
    change(userChanges, r.userId).delta -= take;
  }
  c.charged += take;
  // Never silent: the log says what the reservation missed and what the balances could pay of it.
  c.extra =
    c.charged < c.cost
      ? `（超出预留 ${c.cost - r.amount}，用户余额不足：应扣 ${c.cost}，实扣 ${c.charged}）`
      : `（超出预留 ${c.cost - r.amount}，已从用户余额补扣）`;
  if (keyEmptied) c.extra += '（令牌额度已用尽）';
}
