import type { Kysely, Transaction } from 'kysely';
import type { Dialect, Storage } from '../storage/database.js';
import { RawSql } from '../storage/raw-sql.js';
import { LogsRepository } from '../storage/repositories/logs.js';
import type { Database } from '../storage/schema.js';
import { applyAlone } from './ledger-alone.js';
import { applyBatch } from './ledger-batch.js';
import { NotCovered } from './ledger-shared-rows.js';
import type { Claim } from './ledger-reservations.js';
import { BalanceSlices } from './ledger-slices.js';
import { InsufficientQuotaError, type BatchContext, type Crossings, type Job, type Outcome, type Reservation, type ReserveInput, type Settlement, type Progress } from './ledger-types.js';
import type { LowQuotaWatch } from './quota-reminder.js';
import type { ClusterEvent } from '../cluster/event-bus.js';
import { SLICE_PREFIX } from './ledger-slices.js';

export { InsufficientQuotaError, type Progress, type Reservation, type ReserveInput, type SettledUsage, type Settlement } from './ledger-types.js';

/** Told every committed batch: its jobs, its duration, its statements and the seconds it spent in row-locking statements. */
type CommitObserver = (jobs: number, seconds: number, statements: number, lockSeconds: number) => void;

/** Largest number of jobs committed in one transaction. */
const MAX_BATCH = 1024;
/**
 * How long jobs nobody waits for (settlements charged to a balance slice, progress records) may queue before they are
 * committed, unless another job comes that must go at once: a busy key's batches then hold this long's requests.
 */
export const LAZY_MS = 50;
/** How long a refusal waits for the slices of the user's balance to come back (recall). */
const RECALL_MS = 1_000;
/** Jobs no request waits for: committed within LAZY_MS, with whatever else comes meanwhile. */
const isLazy = (job: Job) => job.kind === 'progress' || (job.kind === 'settle' && job.reservation.slice !== undefined);
/** A settlement that cannot be committed (database unreachable) is retried, waiting up to this long between tries. */
const MAX_RETRY_DELAY_MS = 30_000;
/**
 * After a batch run alone was not covered, batches go in a transaction for this long: a balance running out fails
 * every such statement, and each failure is an error line in PostgreSQL's log (writeIfCovered's way, in a
 * transaction, finds out without one).
 */
const ALONE_PAUSE_MS = 1_000;

/**
 * The money ledger. `reserve` takes quota from the token and the user before the upstream call, atomically
 * and never below zero; `settle` runs exactly once per reservation (deleting the reservation row is the claim)
 * and charges the actual cost, refunds the rest, bumps the usage counters and writes the consume log.
 *
 * Group commit: reservations and settlements queue up and every queued job is committed in one transaction
 * per event-loop turn. Each reservation still decides on its own (the whole amount, a partial one its minimum
 * allows, or nothing, against the balances its predecessors in the batch left), while the batch touches each
 * key, user and channel row once with the summed amounts and writes its logs in multi-row inserts. Those shared
 * rows are locked last, right before COMMIT (ledger-batch.ts), so the batches of several instances serving one
 * busy key wait on each other for a few statements, not for the whole transaction. The usual batch of a busy key is
 * one round trip (applyAlone): on PostgreSQL one statement with no transaction around it, on MySQL and MariaDB one
 * text of several statements that is a whole transaction. If a batch fails, each job is
 * retried in a transaction of its own, so one bad job never takes the others down. Nothing is half-written: a job's
 * writes land together or not at all.
 */
export class QuotaLedger {
  private readonly sql: RawSql;
  private readonly logs: LogsRepository;
  private queue: Job[] = [];
  private flushing = false;
  /** A flush is due: at once (setImmediate) or within LAZY_MS (a timer). */
  private scheduled: 'none' | 'now' | 'later' = 'none';
  private timer?: NodeJS.Timeout;
  /** drain() runs: lazy jobs go at once too. */
  private draining = 0;
  /** Busy keys' requests reserve from this instance's slices of their balances (ledger-slices.ts). */
  readonly slices: BalanceSlices;
  /** A reservation queued for the next batch is made alongside its upstream call (startFlush). */
  private callsAlongside = false;
  private retrying = 0;
  private onCommit?: CommitObserver;
  /** No batch runs alone (applyAlone) before this time (ALONE_PAUSE_MS). */
  private aloneAfter = 0;
  private mayRunAlone: () => boolean = () => true;

  private readonly db: Kysely<Database>;
  private readonly dialect: Dialect;
  /** MySQL and MariaDB: connections that take several statements in one text (Storage.multiStatement; see applyAlone). */
  private readonly multiStatement?: Kysely<Database>;
  private readonly lowQuota?: LowQuotaWatch;
  /** The instance whose reservations these are (see billing/takeover.ts). */
  readonly instanceId: string;

  /** Tells the other instances of a cluster (recall, below). */
  private readonly tellCluster: (event: ClusterEvent) => void;

  constructor(storage: Pick<Storage, 'db' | 'dialect' | 'multiStatement'>, options: { lowQuota?: LowQuotaWatch; instanceId?: string; announce?: (event: ClusterEvent) => void } = {}) {
    this.tellCluster = options.announce ?? (() => undefined);
    this.db = storage.db;
    this.dialect = storage.dialect;
    this.multiStatement = storage.multiStatement;
    this.lowQuota = options.lowQuota;
    this.instanceId = options.instanceId ?? '';
    this.sql = new RawSql(this.dialect);
    this.logs = new LogsRepository(this.db, this.dialect);
    this.slices = new BalanceSlices(
      {
        reserveRow: (input) => this.reserveRow(input),
        settleRow: (reservation, settlement) => this.settleRow(reservation, settlement),
        settleSliced: (reservation, settlement, onSlice) =>
          new Promise((resolve, reject) => this.enqueue({ kind: 'settle', reservation, settlement, attempts: 0, resolve, reject, onSlice })),
        promote: (reservation, details, progress) => new Promise((resolve, reject) => this.enqueue({ kind: 'promote', reservation, details, progress, resolve, reject })),
        threshold: () => this.lowQuota?.threshold() ?? 0,
      },
      this.instanceId,
    );
  }

  /**
   * Takes a reservation: held in a slice of the balances this instance already holds (no round trip: `sliceable` and
   * a busy key, ledger-slices.ts), or a row of its own, committed with the next batch.
   */
  reserve(input: ReserveInput): Promise<Reservation> {
    if (input.sliceable) {
      const held = this.slices.take(input, safeAmount(input.amount));
      if (held) return Promise.resolve(held);
    }
    return this.reserveRow(input);
  }

  private reserveRow(input: ReserveInput): Promise<Reservation> {
    const amount = safeAmount(input.amount);
    // Every field named, not `{ ...input, requested }`: on node 20 a spread copy that gains a field gets hidden classes
    // of its own, and a stream holds its reservation for as long as it runs (bench/README.md, 2026-11-28 night).
    const reservation: { [K in keyof Required<Claim>]: Claim[K] } = {
      requestId: input.requestId,
      userId: input.userId,
      tokenId: input.tokenId,
      unlimited: input.unlimited,
      amount,
      requested: amount,
      minimum: Math.min(amount, Math.max(0, Math.ceil(input.minimum ?? amount))),
      alongsideCall: input.alongsideCall,
      model: input.model,
      promptEstimate: input.promptEstimate,
      stream: input.stream,
      slice: undefined,
      sliceable: undefined,
    };
    return new Promise((resolve, reject) => this.enqueue({ kind: 'reserve', reservation, resolve, reject }));
  }

  /**
   * Settles a reservation once. Returns the amount charged, or undefined when it was already settled.
   * When the real cost exceeds the reservation (a provider that ignored the limits it was sent), the user pays the
   * difference as far as their balance allows: the key's remaining quota is a cap checked before the call, not
   * a discount after it, so the key goes to zero (and is exhausted) without limiting the charge. Nothing goes
   * negative; the log records what was charged and why it differs from the reservation.
   */
  settle(reservation: Reservation, settlement: Settlement): Promise<number | undefined> {
    if (reservation.slice !== undefined) return this.slices.settle(reservation as Reservation & { slice: string }, settlement);
    return this.settleRow(reservation, settlement);
  }

  private settleRow(reservation: Reservation, settlement: Settlement): Promise<number | undefined> {
    return new Promise((resolve, reject) => this.enqueue({ kind: 'settle', reservation, settlement, attempts: 0, resolve, reject }));
  }

  /**
   * Told the size, duration, statements (round trips on PostgreSQL and MySQL, BEGIN and COMMIT included) and time spent in statements that
   * lock shared key, user and channel rows of every committed batch (the metrics' ledger_batch_jobs,
   * ledger_commit_seconds, ledger_statements_total, ledger_lock_wait_seconds).
   */
  observeCommits(observer: CommitObserver): void {
    this.onCommit = observer;
  }

  /**
   * Asked before each batch on PostgreSQL whether it may run alone, as one statement (applyAlone); by default always.
   * The server answers whether this instance is the only one alive: measured, one statement per batch made one
   * instance faster and three instances on one busy key slower (bench/README.md, 2026-11-28 midday: one instance 1,930
   * against 1,620 req/s, three 763 against 982). Why three lose is not settled; not through the row locks or the
   * batch sizes, which doubling the batches left without effect. MySQL's batch alone (one text of several statements)
   * is not asked: three MariaDB instances did as well with it as without (2026-11-28 09:00: 582 / 810 / 728 against
   * 603 / 878 / 599 req/s, interleaved), and it holds the shared rows for one round trip instead of about seven.
   */
  runAloneWhile(allowed: () => boolean): void {
    this.mayRunAlone = allowed;
  }

  /** Records how far an in-flight request got (best effort: a lost update only makes a takeover charge less). */
  progress(progress: Progress): void {
    this.enqueue({ kind: 'progress', progress });
  }

  /**
   * A request held in a slice reported progress (it runs long): it moves to a reservation row of its own, whose
   * progress a takeover can charge. Answers the reservation to settle from then on.
   */
  promote(reservation: Reservation & { slice: string }, details: { model: string; promptEstimate: number; stream: boolean }, progress: Progress): Promise<Reservation> {
    return this.slices.promote(reservation, details, progress);
  }

  /**
   * Before a request of `userId` is refused for want of quota: gets back the slices of that user's balance that this
   * and the other instances hold (ledger-slices.ts), waiting up to RECALL_MS for them to come back. Answers whether
   * there were any (then the reservation is worth trying again).
   */
  async recall(userId: number): Promise<boolean> {
    const here = this.slices.holds(userId);
    this.slices.giveBack(userId);
    const held = async () => {
      const rows = await this.sql.run<{ n: number | string }>(this.db, `select count(*) as n from quota_reservations where user_id = ? and request_id like ?`, [userId, `${SLICE_PREFIX}%`]);
      return Number(rows.rows[0]?.n ?? 0);
    };
    let left = await held();
    if (!here && left === 0) return false;
    if (left > 0) this.tellCluster({ kind: 'slices', userId });
    const deadline = Date.now() + RECALL_MS;
    while (left > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      left = await held();
    }
    return true;
  }

  /**
   * Resolves when every queued job has been committed (or, for settlements that keep failing, is waiting to retry)
   * and every balance slice has gone back: the balances are then whole.
   */
  async drain(): Promise<void> {
    this.draining++;
    try {
      this.schedule();
      const slices = this.slices.drain();
      while (this.busy()) await new Promise((r) => setTimeout(r, 5));
      await slices;
      while (this.busy()) await new Promise((r) => setTimeout(r, 5));
    } finally {
      this.draining--;
    }
  }

  private busy(): boolean {
    return this.flushing || this.scheduled !== 'none' || this.queue.length > 0 || this.retrying > 0;
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    if (job.kind === 'reserve' && job.reservation.alongsideCall) this.callsAlongside = true;
    this.schedule();
  }

  /**
   * Makes sure a flush comes for what is queued: at once when a job is waited for (a reservation, an ordinary
   * settlement), the queue is full or drain() runs; else within LAZY_MS. A running flush takes what is queued.
   */
  private schedule(): void {
    if (this.flushing || this.queue.length === 0) return;
    if (this.draining > 0 || this.queue.length >= MAX_BATCH || this.queue.some((job) => !isLazy(job))) {
      if (this.scheduled === 'now') return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.scheduled = 'now';
      setImmediate(this.startFlush);
    } else if (this.scheduled === 'none') {
      this.scheduled = 'later';
      this.timer = setTimeout(this.startFlush, LAZY_MS);
    }
  }

  /**
   * Starts the queued batch; a batch holding a reservation whose upstream call is sent alongside starts a turn later
   * (once). undici writes a request on a reused keep-alive connection only in the check phase (setImmediate, after
   * checking the socket is still open), and a stream's optimistic reservation is queued just before its call: in
   * the same check phase, the commit (synchronous on SQLite) went first and held the call back for its whole length,
   * 0.2 ms of every stream's first byte (bench/README.md, 2026-11-28 evening). Now the call is on the wire while the
   * batch commits. Other batches are not held: a careful reservation's call waits for its commit anyway, and a
   * settlement has no call to let go first.
   */
  private readonly startFlush = (): void => {
    if (this.flushing) return;
    this.scheduled = 'none';
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.flushing = true;
    if (!this.callsAlongside) return void this.flush();
    this.callsAlongside = false;
    setImmediate(() => void this.flush());
  };

  private async flush(): Promise<void> {
    for (let first = true; this.queue.length > 0; first = false) {
      // Only lazy jobs came while the last batch committed: they wait for their timer (or for a job that cannot).
      if (!first && this.draining === 0 && this.queue.length < MAX_BATCH && this.queue.every(isLazy)) break;
      this.callsAlongside = false;
      const batch = this.queue.splice(0, MAX_BATCH);
      let outcomes: Outcome[] | undefined;
      let crossings: Crossings = [];
      const started = performance.now();
      const statements = this.sql.statements;
      const lockSeconds = this.sql.lockSeconds;
      try {
        await this.sql.detectServer(this.db);
        outcomes = await this.applyQuickly(batch, (crossings = [])).catch((error: unknown) => {
          // A balance the one-statement write could not take it from: the whole batch again, deciding from the balances.
          if (error instanceof NotCovered) return this.transaction((trx) => this.apply(trx, batch, (crossings = []), true));
          throw error;
        });
        this.onCommit?.(batch.length, (performance.now() - started) / 1000, this.sql.statements - statements, this.sql.lockSeconds - lockSeconds);
      } catch {
        // Retry one by one below, so a single failing job cannot fail the rest of the batch.
      }
      if (outcomes) {
        batch.forEach((job, i) => deliver(job, outcomes[i]));
        this.announce(crossings);
        continue;
      }
      for (const job of batch) {
        const single: Crossings = [];
        await this.transaction((trx) => this.apply(trx, [job], single, true)).then(
          ([outcome]) => {
            deliver(job, outcome);
            this.announce(single);
          },
          (error: unknown) => this.failed(job, error),
        );
      }
    }
    this.flushing = false;
    this.schedule();
  }

  /**
   * A job that failed on its own. A reservation is refused (the request fails before anything is spent); a
   * settlement is money owed and must land: it is retried with growing pauses until the database takes it.
   */
  private failed(job: Job, error: unknown): void {
    if (job.kind === 'reserve' || job.kind === 'promote') return job.reject(error);
    if (job.kind === 'progress') return;
    job.attempts++;
    this.retrying++;
    const timer = setTimeout(() => {
      this.retrying--;
      this.enqueue(job);
    }, Math.min(MAX_RETRY_DELAY_MS, 100 * 2 ** job.attempts));
    timer.unref();
  }

  /**
   * A batch the quick way: on its own in one statement where it can be (applyAlone), else in a transaction trying
   * writeIfCovered first. Either throws NotCovered when a balance does not plainly cover the batch.
   */
  private async applyQuickly(batch: Job[], crossings: Crossings): Promise<Outcome[]> {
    if (Date.now() >= this.aloneAfter && (this.dialect !== 'postgres' || this.mayRunAlone())) {
      try {
        const outcomes = await applyAlone(this.context(false), this.db, batch, crossings, this.multiStatement);
        if (outcomes) return outcomes;
      } catch (error) {
        if (error instanceof NotCovered) this.aloneAfter = Date.now() + ALONE_PAUSE_MS;
        throw error;
      }
    }
    return this.transaction((trx) => this.apply(trx, batch, crossings, false));
  }

  /**
   * One transaction. MySQL runs it at READ COMMITTED: its default, REPEATABLE READ, takes gap locks on the
   * missing keys a claim looks up, which can deadlock against another instance's inserts; PostgreSQL's default
   * is already READ COMMITTED and SQLite has a single writer.
   */
  private transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    const builder = this.db.transaction();
    // BEGIN and COMMIT are round trips too (ledger_statements_total counts them).
    this.sql.statements += 2;
    return (this.dialect === 'mysql' ? builder.setIsolationLevel('read committed') : builder).execute(work);
  }

  private apply(trx: Transaction<Database>, batch: Job[], crossings: Crossings, careful: boolean): Promise<Outcome[]> {
    return applyBatch(this.context(careful), trx, batch, crossings);
  }

  private context(careful: boolean): BatchContext {
    return { sql: this.sql, dialect: this.dialect, logs: this.logs, instanceId: this.instanceId, threshold: this.lowQuota?.threshold() ?? 0, careful };
  }

  private announce(crossings: Crossings): void {
    for (const { userId, quota } of crossings) this.lowQuota?.crossed(userId, quota);
  }
}

function deliver(job: Job, outcome: Outcome): void {
  if (job.kind === 'reserve') {
    if (outcome instanceof InsufficientQuotaError) job.reject(outcome);
    else job.resolve(outcome as Reservation);
  } else if (job.kind === 'settle') {
    job.onSlice?.(job.backed === true);
    job.resolve(outcome as number | undefined);
  } else if (job.kind === 'promote') job.resolve(outcome as Reservation | undefined);
}

/** Quota columns are 64-bit; anything beyond a safe integer (an absurd request) is held at the safe maximum. */
function safeAmount(amount: number): number {
  return Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.ceil(Number.isFinite(amount) ? amount : Number.MAX_SAFE_INTEGER)));
}
