import { LogType } from '@model-relay/contract';
import type { Kysely, Transaction } from 'kysely';
import type { Dialect } from '../storage/database.js';
import { chunks, placeholders, RawSql, ROWS_PER_STATEMENT, valuesList } from '../storage/raw-sql.js';
import { LogsRepository } from '../storage/repositories/logs.js';
import { TokenBalances } from '../storage/repositories/tokens.js';
import type { Database, NewLog } from '../storage/schema.js';
import { InsufficientQuotaError, type Progress, type Reservation, type ReserveInput, type Settlement } from './ledger-types.js';
import type { LowQuotaWatch } from './quota-reminder.js';
import { takeReservations, type Claim, type KnownBalances } from './ledger-reservations.js';
import { addRollup, hourOf, writeRollups, type Rollup } from './rollup-writer.js';

export { InsufficientQuotaError, type Progress, type Reservation, type ReserveInput, type SettledUsage, type Settlement } from './ledger-types.js';

type Job =
  | { kind: 'reserve'; reservation: Claim; resolve: (value: Reservation) => void; reject: (error: unknown) => void }
  | { kind: 'settle'; reservation: Reservation; settlement: Settlement; attempts: number; resolve: (value: number | undefined) => void; reject: (error: unknown) => void }
  | { kind: 'progress'; progress: Progress };
/** Told every committed batch: its jobs, its duration, its statements and the seconds it spent in row-locking statements. */
type CommitObserver = (jobs: number, seconds: number, statements: number, lockSeconds: number) => void;
type Outcome = Reservation | InsufficientQuotaError | number | undefined;
/** Users a commit took below the reminder threshold, with their quota after it. */
type Crossings = Array<{ userId: number; quota: number }>;

/** Largest number of jobs committed in one transaction. */
const MAX_BATCH = 1024;
const RESERVATION_COLUMNS = ['request_id', 'user_id', 'token_id', 'amount', 'charged', 'status', 'created_at', 'settled_at', 'instance_id', 'model', 'prompt_estimate', 'is_stream'] as const;
/** A settlement that cannot be committed (database unreachable) is retried, waiting up to this long between tries. */
const MAX_RETRY_DELAY_MS = 30_000;

const now = () => Math.floor(Date.now() / 1000);

interface Totals {
  refund: number;
  charged: number;
  count: number;
  anomalies: number;
}
/** `count` is 0 for a failed request: it settles (refunds) but is not a request served. */
const add = <K>(map: Map<K, Totals>, key: K, refund: number, charged: number, count = 1, anomalies = 0) => {
  const totals = map.get(key);
  if (totals) {
    totals.refund += refund;
    totals.charged += charged;
    totals.count += count;
    totals.anomalies += anomalies;
  } else map.set(key, { refund, charged, count, anomalies });
};
const byKey = <K extends number | string>(map: Map<K, Totals>) => [...map].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

/**
 * The money ledger. `reserve` takes quota from the token and the user before the upstream call, atomically
 * and never below zero; `settle` runs exactly once per reservation (deleting the reservation row is the claim)
 * and charges the actual cost, refunds the rest, bumps the usage counters and writes the consume log.
 *
 * Group commit: reservations and settlements queue up and every queued job is committed in one transaction
 * per event-loop turn. Each reservation still decides on its own (the whole amount, a partial one its minimum
 * allows, or nothing, against the balances its predecessors in the batch left), while the batch touches each
 * key, user and channel row once with the summed amounts and writes its logs in multi-row inserts. If a batch fails, each job is retried in a
 * transaction of its own, so one bad job never takes the others down. Nothing is half-written: a job's
 * writes land together or not at all.
 */
export class QuotaLedger {
  private readonly sql: RawSql;
  private readonly logs: LogsRepository;
  private readonly tokens: TokenBalances;
  private queue: Job[] = [];
  private flushing = false;
  private retrying = 0;
  private onCommit?: CommitObserver;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly lowQuota?: LowQuotaWatch,
    /** The instance whose reservations these are (see billing/takeover.ts). */
    readonly instanceId = '',
  ) {
    this.sql = new RawSql(dialect);
    this.logs = new LogsRepository(db, dialect);
    this.tokens = new TokenBalances(this.sql);
  }

  reserve(input: ReserveInput): Promise<Reservation> {
    // Quota columns are 64-bit; anything beyond a safe integer (an absurd request) is held at the safe maximum.
    const amount = Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.ceil(Number.isFinite(input.amount) ? input.amount : Number.MAX_SAFE_INTEGER)));
    const reservation: Claim = { ...input, amount, requested: amount, minimum: Math.min(amount, Math.max(0, Math.ceil(input.minimum ?? amount))) };
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
    return new Promise((resolve, reject) => this.enqueue({ kind: 'settle', reservation, settlement, attempts: 0, resolve, reject }));
  }

  /**
   * Told the size, duration, statements (round trips, besides BEGIN and COMMIT) and time spent in statements that
   * lock shared key, user and channel rows of every committed batch (the metrics' ledger_batch_jobs,
   * ledger_commit_seconds, ledger_statements_total, ledger_lock_wait_seconds).
   */
  observeCommits(observer: CommitObserver): void {
    this.onCommit = observer;
  }

  /** Records how far an in-flight request got (best effort: a lost update only makes a takeover charge less). */
  progress(progress: Progress): void {
    this.enqueue({ kind: 'progress', progress });
  }

  /** Resolves when every queued job has been committed (or, for settlements that keep failing, is waiting to retry). */
  async drain(): Promise<void> {
    while (this.flushing || this.queue.length > 0 || this.retrying > 0) await new Promise((r) => setTimeout(r, 10));
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => void this.flush());
    }
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      let outcomes: Outcome[] | undefined;
      let crossings: Crossings = [];
      const started = performance.now();
      const statements = this.sql.statements;
      const lockSeconds = this.sql.lockSeconds;
      try {
        outcomes = await this.transaction((trx) => this.apply(trx, batch, (crossings = [])));
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
        await this.transaction((trx) => this.apply(trx, [job], single)).then(
          ([outcome]) => {
            deliver(job, outcome);
            this.announce(single);
          },
          (error: unknown) => this.failed(job, error),
        );
      }
    }
    this.flushing = false;
  }

  /**
   * A job that failed on its own. A reservation is refused (the request fails before anything is spent); a
   * settlement is money owed and must land: it is retried with growing pauses until the database takes it.
   */
  private failed(job: Job, error: unknown): void {
    if (job.kind === 'reserve') return job.reject(error);
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
   * One transaction. MySQL runs it at READ COMMITTED: its default, REPEATABLE READ, takes gap locks on the
   * missing keys a claim looks up, which can deadlock against another instance's inserts; PostgreSQL's default
   * is already READ COMMITTED and SQLite has a single writer.
   */
  private transaction<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    const builder = this.db.transaction();
    return (this.dialect === 'mysql' ? builder.setIsolationLevel('read committed') : builder).execute(work);
  }

  private announce(crossings: Crossings): void {
    for (const { userId, quota } of crossings) this.lowQuota?.crossed(userId, quota);
  }

  /**
   * Applies a batch inside one transaction. Rows are locked in one global order: reservation rows (the claims),
   * then keys, then users, each by ascending id, before anything changes; channels are only ever added to, and
   * their rows are locked by those updates, in ascending id order after every key and user row (and before the
   * rollup rows). No two transactions, on any number of instances, can then wait on each other in a cycle (no
   * deadlocks). Then settlements (they free quota), reservations, and progress records.
   */
  private async apply(trx: Transaction<Database>, batch: Job[], crossings: Crossings): Promise<Outcome[]> {
    const outcomes: Outcome[] = new Array(batch.length);
    const settles = batch.flatMap((job, i) => (job.kind === 'settle' ? [{ job, i }] : []));
    const reserves = batch.flatMap((job, i) => (job.kind === 'reserve' ? [{ job, i }] : []));
    const open = settles.length > 0 ? await this.claim(trx, settles.map(({ job }) => job.reservation.requestId)) : new Set<string>();
    await this.lock(trx, 'tokens', [...settles.map(({ job }) => job.reservation.tokenId), ...reserves.filter(({ job }) => !job.reservation.unlimited).map(({ job }) => job.reservation.tokenId)]);
    await this.lock(trx, 'users', [...settles.map(({ job }) => job.reservation.userId), ...reserves.map(({ job }) => job.reservation.userId)]);

    // The balances the settlements' updates read back, so the reservations after them need not read them again.
    const known: KnownBalances = { keys: new Map(), users: new Map() };
    if (settles.length > 0) await this.applySettlements(trx, settles, open, outcomes, crossings, known);
    const reserved: Claim[] = [];
    const refusals = reserves.length > 0 ? await takeReservations(this.sql, this.tokens, trx, reserves.map(({ job }) => job.reservation), known) : [];
    reserves.forEach(({ job, i }, n) => {
      outcomes[i] = refusals[n] ?? job.reservation;
      if (!refusals[n]) reserved.push(job.reservation);
    });
    const createdAt = now();
    for (const part of chunks(reserved, ROWS_PER_STATEMENT)) {
      await this.sql.run(
        trx,
        `insert into quota_reservations (${RESERVATION_COLUMNS.join(', ')}) values ${valuesList(part.length, RESERVATION_COLUMNS.length)}`,
        part.flatMap((r) => [r.requestId, r.userId, r.tokenId, r.amount, 0, 'open', createdAt, 0, this.instanceId, (r.model ?? '').slice(0, 255), Math.max(0, Math.ceil(r.promptEstimate ?? 0)), r.stream ? 1 : 0]),
      );
    }
    const progress = batch.flatMap((job) => (job.kind === 'progress' ? [job.progress] : [])).sort((a, b) => (a.requestId < b.requestId ? -1 : 1));
    for (const p of progress) {
      await this.sql.run(trx, 'update quota_reservations set channel_id = ?, delivered_chars = ? where request_id = ?', [p.channelId, p.deliveredChars, p.requestId]);
    }
    return outcomes;
  }

  /**
   * The claim: the reservation rows that still exist are deleted; each one pays out once. Returns their ids.
   * PostgreSQL and SQLite say which rows they deleted (one statement); MySQL has no DELETE ... RETURNING, so the
   * rows are read locked first.
   */
  private async claim(trx: Transaction<Database>, requestIds: string[]): Promise<Set<string>> {
    const open = new Set<string>();
    const ids = [...new Set(requestIds)].sort();
    for (const part of chunks(ids, ROWS_PER_STATEMENT)) {
      const list = placeholders(part.length);
      if (this.dialect !== 'mysql') {
        // PostgreSQL locks the rows in request-id order first, as the MySQL path does: no lock cycle between claims.
        const rows = this.dialect === 'postgres' ? `select request_id from quota_reservations where request_id in (${list}) order by request_id for update` : list;
        const deleted = await this.sql.run<{ request_id: string }>(trx, `delete from quota_reservations where request_id in (${rows}) returning request_id`, part);
        for (const row of deleted.rows) open.add(row.request_id);
        continue;
      }
      const rows = await this.sql.run<{ request_id: string }>(trx, `select request_id from quota_reservations where request_id in (${list}) order by request_id${this.sql.forUpdate}`, part);
      for (const row of rows.rows) open.add(row.request_id);
      if (rows.rows.length > 0) await this.sql.run(trx, `delete from quota_reservations where request_id in (${list})`, part);
    }
    return open;
  }

  /** Locks rows by ascending id (PostgreSQL and MySQL; SQLite has one writer at a time). */
  private async lock(trx: Transaction<Database>, table: 'tokens' | 'users', ids: number[]): Promise<void> {
    if (this.dialect === 'sqlite' || ids.length === 0) return;
    const sorted = [...new Set(ids)].sort((a, b) => a - b);
    for (const part of chunks(sorted, ROWS_PER_STATEMENT)) {
      await this.sql.run(trx, `select id from ${table} where id in (${placeholders(part.length)}) order by id for update`, part);
    }
  }

  /** A balance read with the row locked for the rest of the transaction (PostgreSQL, MySQL; SQLite locks the database). */
  private async balance(trx: Transaction<Database>, table: 'tokens' | 'users', column: 'remain_quota' | 'quota', id: number): Promise<number> {
    const rows = await this.sql.run<Record<string, number>>(trx, `select ${column} from ${table} where id = ?${this.sql.forUpdate}`, [id]);
    return Math.max(0, Number(rows.rows[0]?.[column] ?? 0));
  }

  private async applySettlements(
    trx: Transaction<Database>,
    settles: Array<{ job: Extract<Job, { kind: 'settle' }>; i: number }>,
    open: Set<string>,
    outcomes: Outcome[],
    crossings: Crossings,
    /** Filled with the balances after these settlements, where the database says them with the update (RETURNING). */
    known: KnownBalances,
  ): Promise<void> {
    const tokens = new Map<string, Totals>();
    const users = new Map<number, Totals>();
    const channels = new Map<number, Totals>();
    const logs: NewLog[] = [];
    const rollups = new Map<string, Rollup>();
    const accessed = now();
    for (const { job, i } of settles) {
      const { reservation, settlement } = job;
      if (!open.delete(reservation.requestId)) {
        outcomes[i] = undefined;
        continue;
      }
      const cost = Math.max(0, Math.ceil(settlement.cost));
      let charged = Math.min(cost, reservation.amount);
      const refund = reservation.amount - charged;
      let extra = '';
      if (cost > charged) {
        const taken = await this.takeExtra(trx, reservation, cost - charged);
        charged += taken.user;
        // Never silent: the log says what the reservation missed and what the balances could pay of it.
        extra =
          charged < cost
            ? `（超出预留 ${cost - reservation.amount}，用户余额不足：应扣 ${cost}，实扣 ${charged}）`
            : `（超出预留 ${cost - reservation.amount}，已从用户余额补扣）`;
        if (taken.keyEmptied) extra += '（令牌额度已用尽）';
      }
      outcomes[i] = charged;
      const served = settlement.served === false || settlement.usage?.failed ? 0 : 1;
      add(tokens, `${reservation.tokenId}:${reservation.unlimited ? 1 : 0}`, reservation.unlimited ? 0 : refund, charged, served);
      add(users, reservation.userId, refund, charged, served);
      if (settlement.channelId > 0) add(channels, settlement.channelId, 0, charged, 1, settlement.usageAnomaly ? 1 : 0);
      const log = settlement.log;
      if (log) {
        logs.push({
          ...log,
          user_id: log.user_id ?? reservation.userId,
          type: log.type ?? LogType.Consume,
          content: (log.content ?? '') + extra,
          token_id: log.token_id ?? reservation.tokenId,
          quota: charged,
          channel_name: (log.channel_name ?? '').slice(0, 64),
          dialect: (log.dialect ?? '').slice(0, 32),
        });
      }
      if (settlement.usage) addRollup(rollups, hourOf(accessed), reservation, settlement, charged);
    }

    for (const [key, t] of byKey(tokens)) {
      const [id, unlimited] = key.split(':').map(Number);
      if (unlimited) {
        if (t.count > 0 || t.charged > 0) await this.tokens.settleUnlimited(trx, id, t.charged, t.count, accessed);
      } else {
        const remaining = await this.tokens.settleLimited(trx, id, t.refund, t.charged, t.count, accessed);
        if (remaining !== undefined) known.keys.set(id, remaining);
      }
    }
    for (const [id, t] of byKey(users)) {
      const updated = await this.sql.run<{ quota: number }>(trx, `update users set quota = quota + ?, used_quota = used_quota + ?, request_count = request_count + ? where id = ?${this.sql.updateReturning ? ' returning quota' : ''}`, [t.refund, t.charged, t.count, id]);
      if (updated.rows[0]) known.users.set(id, Number(updated.rows[0].quota));
    }
    await this.findCrossings(trx, users, crossings, known.users);
    for (const [id, t] of byKey(channels)) {
      if (t.anomalies > 0) {
        await this.sql.run(trx, 'update channels set used_quota = used_quota + ?, request_count = request_count + ?, usage_anomalies = usage_anomalies + ? where id = ?', [t.charged, t.count, t.anomalies, id]);
      } else await this.sql.run(trx, 'update channels set used_quota = used_quota + ?, request_count = request_count + ? where id = ?', [t.charged, t.count, id]);
    }
    await this.logs.insertMany(logs, trx);
    await writeRollups(this.sql, trx, this.dialect, this.instanceId, rollups);
  }

  /**
   * The users these settlements took below the reminder threshold: their quota now is under it, and adding
   * back what the settled requests cost (their whole effect on the user) reaches it. One query per batch,
   * and none while reminders are off.
   */
  private async findCrossings(trx: Transaction<Database>, users: Map<number, Totals>, crossings: Crossings, known: Map<number, number>): Promise<void> {
    const threshold = this.lowQuota?.threshold() ?? 0;
    const charged = [...users].filter(([, t]) => t.charged > 0).map(([id]) => id);
    if (threshold <= 0 || charged.length === 0) return;
    const quotas = charged.filter((id) => known.has(id)).map((id) => ({ id, quota: known.get(id) ?? 0 }));
    for (const part of chunks(charged.filter((id) => !known.has(id)), ROWS_PER_STATEMENT)) {
      const rows = await this.sql.run<{ id: number; quota: number }>(trx, `select id, quota from users where id in (${placeholders(part.length)})`, part);
      for (const row of rows.rows) quotas.push({ id: Number(row.id), quota: Number(row.quota) });
    }
    for (const { id, quota } of quotas) {
      const cost = users.get(id)?.charged ?? 0;
      if (quota < threshold && quota + cost >= threshold) crossings.push({ userId: id, quota });
    }
  }

  /**
   * Takes up to `extra` more from the user, as far as their balance goes; the key's remaining quota goes down by
   * the same amount but not below zero (it capped the request before the call; it cannot discount it after).
   */
  private async takeExtra(trx: Transaction<Database>, r: Reservation, extra: number): Promise<{ user: number; keyEmptied: boolean }> {
    const userQuota = await this.balance(trx, 'users', 'quota', r.userId);
    const take = Math.max(0, Math.min(extra, userQuota));
    let keyEmptied = false;
    if (!r.unlimited && take > 0) {
      const keyQuota = await this.balance(trx, 'tokens', 'remain_quota', r.tokenId);
      const fromKey = Math.min(take, keyQuota);
      keyEmptied = fromKey < take || keyQuota - fromKey === 0;
      if (fromKey > 0) await this.tokens.take(trx, r.tokenId, fromKey);
    }
    if (take > 0) await this.sql.run(trx, 'update users set quota = quota - ? where id = ?', [take, r.userId]);
    return { user: take, keyEmptied };
  }
}

function deliver(job: Job, outcome: Outcome): void {
  if (job.kind === 'reserve') {
    if (outcome instanceof InsufficientQuotaError) job.reject(outcome);
    else job.resolve(outcome as Reservation);
  } else if (job.kind === 'settle') job.resolve(outcome as number | undefined);
}
