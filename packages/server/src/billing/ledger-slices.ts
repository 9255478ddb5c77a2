import type { ClusterEvent } from '../cluster/event-bus.js';
import type { Progress, Reservation, ReserveInput, Settlement } from './ledger-types.js';

/**
 * Balance slices: how a busy key is served without a database round trip per request, on one instance or many.
 *
 * A slice is an amount of a user's balance (and of the key's remaining quota, for a limited key) that this instance
 * reserved in one go, as an ordinary reservation row (`quota_reservations`, request id `slice:<instance>:<n>`): the
 * balances went down by it, atomically and never below zero, exactly as for one request. Requests of that user and
 * key then reserve from the slice in memory (synchronously, no commit to wait for); their settlements charge the
 * slice, in the ledger's batches, which write the log rows, the counters and the rollups and take what was charged
 * off the slice's row. Whatever a request did not use stays in the slice for the next one. So a busy key costs the
 * database one row per request (its log) and a few statements per batch, and no instance waits on another's locks
 * for a reservation.
 *
 * - Only where it pays and cannot change a decision: a key and user with no daily or monthly limit (those must see
 *   every amount first), busy (BUSY_RESERVATIONS a second), whose balances are large against the slice (a slice is at
 *   most 1/SHARE of each as last read, and leaves the user above the low-quota reminder's threshold). Everything
 *   else, and every request a slice cannot cover at once, takes a reservation row of its own as before: partial
 *   reservations, refusals, exhausted keys and reminders are decided there, against the balances.
 * - A slice goes back (its row settled for nothing: what is left returns to the balances) once it has been idle for
 *   IDLE_MS, when a newer slice replaced it, when the user or key changed (an admin lowered a balance), when
 *   another instance asks for it (a request it would refuse), and on shutdown; always after everything it holds and
 *   everything charged to it has been committed.
 * - A request held in a slice that runs long (a stream reports progress every few seconds) moves to a reservation
 *   row of its own, at what it holds, so that a crash takeover charges what it delivered, as for any other request.
 * - A crash: the instance's slices are reservation rows like the rest; the takeover gives what is left of each back
 *   (billing/takeover.ts). What it held for requests in flight was never charged, as for a reservation of their own
 *   that recorded no progress.
 * - The console shows the balances as the database has them, without the slices: never more than can be spent.
 */

export const SLICE_PREFIX = 'slice:';
/** Reservations a second for a key and user that make a slice worth having. */
const BUSY_RESERVATIONS = 32;
/** A slice is at most this share (1/SHARE) of the balances as last read. */
const SHARE = 8;
/** A slice covers at least this many reservations of the size that asked for it... */
const SLICE_RESERVATIONS = 16;
/** ...and is not taken at all when the balances allow less than this many. */
const MIN_SLICE_RESERVATIONS = 4;
/** A slice nobody reserved from for this long goes back. */
export const IDLE_MS = 1_000;
/** How often idle slices are looked for. */
const SWEEP_MS = 250;
/** After a slice could not be had for a key (the balances too small), no new one is asked for this long. */
const RETRY_AFTER_MS = 2_000;

/** What the slices need of the ledger: its ordinary reservations and settlements, and the two jobs of a slice. */
export interface SliceLedger {
  /** An ordinary reservation (a row of its own): how a slice is taken. */
  reserveRow(input: ReserveInput): Promise<Reservation>;
  /** An ordinary settlement: how a slice goes back (settled for nothing) or a promoted request settles. */
  settleRow(reservation: Reservation, settlement: Settlement): Promise<number | undefined>;
  /** A settlement charged to a slice (`held`: what the slice pays at most); `onSlice` is told whether its row was there. */
  settleSliced(reservation: Reservation & { slice: string }, settlement: Settlement, onSlice: (backed: boolean) => void): Promise<number | undefined>;
  /** Moves a request out of its slice to a reservation row of its own. */
  promote(reservation: Reservation & { slice: string }, details: { model: string; promptEstimate: number; stream: boolean }, progress: Progress): Promise<Reservation | undefined>;
  /** The low-quota reminder's threshold (0: off): a slice never takes a user below it. */
  threshold(): number;
}

class Slice {
  /** Reserved from the balances, less what was committed as charged or promoted: the row's amount. */
  row: number;
  /** Held by requests in flight. */
  held = 0;
  /** Charged (or promoted) in memory, not yet committed: it comes off `row` when its batch commits. */
  pending = 0;
  lastUsed = Date.now();
  /** No longer reserved from: it goes back once nothing is held or pending. */
  retired = false;
  /** Its row was found gone (a takeover settled it): nothing more is charged to it. */
  gone = false;
  returning = false;

  constructor(
    readonly id: string,
    readonly pair: Pair,
    amount: number,
    /** Whether the key was unlimited when the slice was taken: then it took from the user only, and gives back so. */
    readonly unlimited: boolean,
  ) {
    this.row = amount;
  }

  get free(): number {
    return this.row - this.pending - this.held;
  }
}

/** A key and its user, as seen by this instance's slices. */
interface Pair {
  id: string;
  userId: number;
  tokenId: number;
  unlimited: boolean;
  /** The slice reserved from (undefined: none yet, or it was retired). */
  current?: Slice;
  slices: Set<Slice>;
  /** A slice is being taken. */
  taking: boolean;
  /** No slice is asked for before this time. */
  retryAt: number;
  /** Reservations in the current second, and when it began. */
  count: number;
  second: number;
  /** The most requests held in the current slice at once (with the one asking), in quota: what the next slice covers. */
  peak: number;
}

export class BalanceSlices {
  private readonly pairs = new Map<string, Pair>();
  private readonly byId = new Map<string, Slice>();
  private serial = 0;
  private timer?: NodeJS.Timeout;
  private draining = false;

  constructor(
    private readonly ledger: SliceLedger,
    private readonly instanceId: string,
  ) {}

  /** Slices held (taken and not yet given back), for tests and metrics. */
  get size(): number {
    return this.byId.size;
  }

  /**
   * A reservation held in a slice, taken now, or undefined: the request takes a row of its own (and, when its key is
   * busy and rich enough, a slice is taken for the next ones).
   */
  take(input: ReserveInput, amount: number): Reservation | undefined {
    const hint = input.sliceable;
    if (!hint || amount <= 0 || this.draining) return undefined;
    const pair = this.pair(input);
    if (pair.unlimited !== input.unlimited) {
      // The key was made limited (or unlimited) meanwhile: its slices were taken under the other rule.
      for (const slice of pair.slices) this.retire(slice);
      pair.unlimited = input.unlimited;
    }
    const now = Date.now();
    if (now - pair.second >= 1_000) {
      pair.second = now;
      pair.count = 0;
    }
    pair.count++;
    const slice = pair.current;
    if (slice && !slice.retired && !slice.gone && slice.unlimited === input.unlimited && slice.free >= amount) {
      slice.held += amount;
      slice.lastUsed = now;
      pair.peak = Math.max(pair.peak, slice.held);
      this.sweepSoon();
      return { requestId: input.requestId, userId: input.userId, tokenId: input.tokenId, unlimited: input.unlimited, amount, slice: slice.id };
    }
    if (!pair.taking && now >= pair.retryAt && (slice !== undefined || pair.count >= BUSY_RESERVATIONS)) this.takeSlice(pair, hint, amount);
    return undefined;
  }

  /** Settles a request held in a slice: what it cost comes off the slice (beyond what is free there, off the balances). */
  settle(reservation: Reservation & { slice: string }, settlement: Settlement): Promise<number | undefined> {
    const slice = this.byId.get(reservation.slice);
    const cost = Math.max(0, Math.ceil(settlement.cost));
    let pays = 0;
    if (slice) {
      slice.held -= reservation.amount;
      slice.lastUsed = Date.now();
      // What it held and, beyond that (a provider that ignored the limit), what the slice has free: it is this instance's.
      pays = slice.gone ? 0 : Math.min(cost, Math.max(0, slice.free));
      slice.pending += pays;
    }
    const settled = this.ledger.settleSliced({ ...reservation, amount: pays }, settlement, (backed) => {
      if (!slice) return;
      slice.pending -= pays;
      if (backed) slice.row -= pays;
      else this.lose(slice);
      this.returnIfDone(slice);
    });
    // Paid in full by this instance's slice, the charge is decided: the request need not wait for its batch (a
    // settlement is committed whatever happens, retried until the database takes it). Else the balances decide.
    if (slice && !slice.gone && pays === cost) {
      settled.catch(() => undefined);
      return Promise.resolve(cost);
    }
    return settled;
  }

  /**
   * Moves a request held in a slice to a reservation row of its own (it reported progress: it runs long). Answers the
   * reservation to settle from then on: the row's, or the same one when its slice was gone.
   */
  async promote(reservation: Reservation & { slice: string }, details: { model: string; promptEstimate: number; stream: boolean }, progress: Progress): Promise<Reservation> {
    const slice = this.byId.get(reservation.slice);
    if (!slice || slice.gone) return reservation;
    slice.held -= reservation.amount;
    slice.pending += reservation.amount;
    let promoted: Reservation | undefined;
    let failed = false;
    try {
      promoted = await this.ledger.promote(reservation, details, progress);
    } catch {
      // The database refused the batch: the request stays in the slice, to be promoted at its next report.
      failed = true;
    }
    slice.pending -= reservation.amount;
    if (promoted) slice.row -= reservation.amount;
    else slice.held += reservation.amount; // not moved: it is settled from the slice as before
    if (!promoted && !failed) this.lose(slice);
    this.returnIfDone(slice);
    return promoted ?? reservation;
  }

  /** Gives back every slice of a user (undefined: of everyone): the balances changed, or another instance needs them. */
  giveBack(userId?: number): void {
    for (const pair of this.pairs.values()) {
      if (userId !== undefined && pair.userId !== userId) continue;
      pair.retryAt = Math.max(pair.retryAt, Date.now() + (userId === undefined ? 0 : RETRY_AFTER_MS));
      for (const slice of pair.slices) this.retire(slice);
    }
  }

  /**
   * Keys, users or channels changed, here or on another instance: a user's slices go back when that user changed (an
   * admin may have lowered the balance, or disabled them), every slice when a key did (the event does not say which),
   * a user's when another instance recalls them.
   */
  changed(event: ClusterEvent): void {
    if (event.kind === 'users') this.giveBack(event.id);
    else if (event.kind === 'slices') this.giveBack(event.userId);
    else if (event.kind === 'tokens' || event.kind === 'all') this.giveBack();
  }

  /** Whether this instance holds a slice of the user's balance. */
  holds(userId: number): boolean {
    for (const pair of this.pairs.values()) if (pair.userId === userId && pair.slices.size > 0) return true;
    return false;
  }

  /**
   * Gives every slice back as soon as what it holds is settled, taking no new one meanwhile, and resolves when none is
   * left (the ledger's drain commits what their returns queue): the balances are then what was charged. Before a
   * shutdown, and wherever the database must show every balance whole.
   */
  async drain(): Promise<void> {
    this.draining = true;
    try {
      this.giveBack();
      while (this.byId.size > 0) {
        for (const slice of this.byId.values()) this.returnIfDone(slice);
        await new Promise((r) => setTimeout(r, 5));
      }
    } finally {
      this.draining = false;
    }
  }

  private pair(input: ReserveInput): Pair {
    const id = `${input.userId}:${input.tokenId}`;
    let pair = this.pairs.get(id);
    if (!pair) {
      pair = { id, userId: input.userId, tokenId: input.tokenId, unlimited: input.unlimited, slices: new Set(), taking: false, retryAt: 0, count: 0, second: Date.now(), peak: 0 };
      this.pairs.set(id, pair);
      this.sweepSoon();
    }
    return pair;
  }

  /** Takes a new slice for a busy pair, sized for what it held at once, never more than 1/SHARE of each balance. */
  private takeSlice(pair: Pair, hint: NonNullable<ReserveInput['sliceable']>, amount: number): void {
    const balances = pair.unlimited ? hint.userQuota : Math.min(hint.userQuota, hint.keyQuota);
    const room = Math.floor(Math.min(balances / SHARE, hint.userQuota - this.ledger.threshold()));
    const size = Math.min(Math.max(SLICE_RESERVATIONS * amount, 2 * pair.peak), room);
    const minimum = MIN_SLICE_RESERVATIONS * amount;
    if (!Number.isSafeInteger(size) || size < minimum) {
      pair.retryAt = Date.now() + RETRY_AFTER_MS;
      return;
    }
    pair.taking = true;
    const id = `${SLICE_PREFIX}${this.instanceId}:${++this.serial}`;
    this.ledger.reserveRow({ requestId: id, userId: pair.userId, tokenId: pair.tokenId, unlimited: pair.unlimited, amount: size, minimum, model: '', promptEstimate: 0, stream: false }).then(
      (reservation) => {
        pair.taking = false;
        const slice = new Slice(id, pair, reservation.amount, reservation.unlimited);
        this.byId.set(id, slice);
        pair.slices.add(slice);
        const before = pair.current;
        pair.current = slice;
        pair.peak = 0;
        if (before) this.retire(before);
        if (this.draining) this.retire(slice);
      },
      () => {
        pair.taking = false;
        pair.retryAt = Date.now() + RETRY_AFTER_MS;
      },
    );
  }

  private retire(slice: Slice): void {
    slice.retired = true;
    if (slice.pair.current === slice) slice.pair.current = undefined;
    this.returnIfDone(slice);
  }

  /** A slice whose row was gone: nothing more is charged to it, and there is nothing to give back. */
  private lose(slice: Slice): void {
    slice.gone = true;
    this.retire(slice);
  }

  /** A retired slice goes back once nothing is held in it or pending: its row settled for nothing, the rest refunded. */
  private returnIfDone(slice: Slice): void {
    if (!slice.retired || slice.returning || slice.held > 0 || slice.pending > 0) return;
    slice.returning = true;
    const forget = () => {
      this.byId.delete(slice.id);
      slice.pair.slices.delete(slice);
      if (slice.pair.slices.size === 0 && slice.pair.current === undefined && !slice.pair.taking && Date.now() - slice.pair.second > IDLE_MS) this.pairs.delete(slice.pair.id);
    };
    if (slice.gone) return forget();
    this.ledger.settleRow({ requestId: slice.id, userId: slice.pair.userId, tokenId: slice.pair.tokenId, unlimited: slice.unlimited, amount: slice.row }, { cost: 0, channelId: 0, served: false }).then(forget, forget);
  }

  private sweepSoon(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), SWEEP_MS);
    this.timer.unref();
  }

  /** Retires the slices idle for IDLE_MS, forgets pairs with nothing left, and stops when there are none. */
  private sweep(): void {
    const now = Date.now();
    for (const [id, pair] of this.pairs) {
      for (const slice of pair.slices) if (!slice.retired && now - slice.lastUsed >= IDLE_MS) this.retire(slice);
      if (pair.slices.size === 0 && !pair.taking && now - pair.second >= IDLE_MS && now >= pair.retryAt) this.pairs.delete(id);
    }
    if (this.pairs.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

export const isSlice = (requestId: string) => requestId.startsWith(SLICE_PREFIX);
