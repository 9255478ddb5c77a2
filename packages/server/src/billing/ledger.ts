import { LogType, TokenStatus } from '@model-relay/contract';
import type { Kysely, Transaction } from 'kysely';
import type { Dialect } from '../storage/database.js';
import { chunks, placeholders, RawSql, valuesList } from '../storage/raw-sql.js';
import type { Database, NewLog } from '../storage/schema.js';
import type { LowQuotaWatch } from './quota-reminder.js';

export class InsufficientQuotaError extends Error {
  constructor(readonly who: 'token' | 'user') {
    super(who === 'token' ? '令牌额度不足' : '用户额度不足');
  }
}

export interface Reservation {
  /** The relay request's id; unique in quota_reservations, and the handle settle claims the row by. */
  requestId: string;
  userId: number;
  tokenId: number;
  unlimited: boolean;
  /** What was taken: the whole amount asked for, or (with `minimum`) as much of it as the balances held. */
  amount: number;
}

export interface Settlement {
  /** What the request really cost (before clamping to what is left). */
  cost: number;
  channelId: number;
  /**
   * What the request used, for the hourly usage rollups (written in the same transaction, so they always agree
   * with the logs); a relay request has one whether or not a log row is kept.
   */
  usage?: SettledUsage;
  /** Log row to write in the same transaction (a consume log unless `type` says otherwise); its quota is what was charged. */
  log?: Omit<NewLog, 'quota' | 'type'> & { type?: number };
}

export interface SettledUsage {
  model: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  latencyMs: number;
  /** The request failed (no answer reached the client): counted as a failure, not a request. */
  failed: boolean;
}

type ReserveInput = Reservation & {
  /**
   * Take less than `amount` when the balances cannot cover it, but at least this much (default: all of it).
   * The relay asks the upstream for fewer tokens when it got less, so the request still cannot cost more
   * than it holds.
   */
  minimum?: number;
  /** What a surviving instance needs to charge a takeover fairly if this one dies mid-request. */
  model?: string;
  promptEstimate?: number;
  stream?: boolean;
};
type Claim = ReserveInput & { minimum: number; requested: number };
/** How far an in-flight request got: recorded every few seconds so a takeover can charge what was delivered. */
export interface Progress {
  requestId: string;
  channelId: number;
  deliveredChars: number;
}
type Job =
  | { kind: 'reserve'; reservation: Claim; resolve: (value: Reservation) => void; reject: (error: unknown) => void }
  | { kind: 'settle'; reservation: Reservation; settlement: Settlement; attempts: number; resolve: (value: number | undefined) => void; reject: (error: unknown) => void }
  | { kind: 'progress'; progress: Progress };
type Outcome = Reservation | InsufficientQuotaError | number | undefined;
/** Users a commit took below the reminder threshold, with their quota after it. */
type Crossings = Array<{ userId: number; quota: number }>;

/** Largest number of jobs committed in one transaction, and of rows in one multi-row statement. */
const MAX_BATCH = 1024;
const ROWS_PER_STATEMENT = 64;
const LOG_COLUMNS = ['user_id', 'created_at', 'type', 'content', 'username', 'token_name', 'token_id', 'model_name', 'quota',
  'prompt_tokens', 'completion_tokens', 'channel_id', 'request_id', 'elapsed_time', 'is_stream',
  'first_byte_ms', 'channel_name', 'dialect', 'cached_tokens', 'cache_write_tokens', 'reasoning_tokens', 'error', 'attempts'] as const;
const ROLLUP_COLUMNS = ['hour', 'user_id', 'token_id', 'model', 'channel_id', 'instance_id', 'requests', 'failures', 'prompt_tokens', 'completion_tokens',
  'cached_tokens', 'reasoning_tokens', 'quota', 'latency_ms'] as const;
/** The rollup columns a conflicting insert adds to. */
const ROLLUP_SUMS = ROLLUP_COLUMNS.slice(6);
const RESERVATION_COLUMNS = ['request_id', 'user_id', 'token_id', 'amount', 'charged', 'status', 'created_at', 'settled_at', 'instance_id', 'model', 'prompt_estimate', 'is_stream'] as const;
/** A settlement that cannot be committed (database unreachable) is retried, waiting up to this long between tries. */
const MAX_RETRY_DELAY_MS = 30_000;

const now = () => Math.floor(Date.now() / 1000);
const hourOf = (seconds: number) => seconds - (seconds % 3600);

interface Rollup {
  hour: number;
  userId: number;
  tokenId: number;
  model: string;
  channelId: number;
  requests: number;
  failures: number;
  prompt: number;
  completion: number;
  cached: number;
  reasoning: number;
  quota: number;
  latency: number;
}

function addRollup(rollups: Map<string, Rollup>, hour: number, r: Reservation, s: Settlement, charged: number): void {
  const u = s.usage!;
  const model = u.model.slice(0, 255);
  const key = `${hour}\u0000${r.userId}\u0000${r.tokenId}\u0000${model}\u0000${s.channelId}`;
  let rollup = rollups.get(key);
  if (!rollup) {
    rollup = { hour, userId: r.userId, tokenId: r.tokenId, model, channelId: s.channelId, requests: 0, failures: 0, prompt: 0, completion: 0, cached: 0, reasoning: 0, quota: 0, latency: 0 };
    rollups.set(key, rollup);
  }
  if (u.failed) rollup.failures++;
  else rollup.requests++;
  rollup.prompt += u.promptTokens;
  rollup.completion += u.completionTokens;
  rollup.cached += u.cachedTokens;
  rollup.reasoning += u.reasoningTokens;
  rollup.quota += charged;
  rollup.latency += Math.max(0, Math.round(u.latencyMs));
}

interface Totals {
  refund: number;
  charged: number;
  count: number;
}
/** `count` is 0 for a failed request: it settles (refunds) but is not a request served. */
const add = <K>(map: Map<K, Totals>, key: K, refund: number, charged: number, count = 1) => {
  const totals = map.get(key);
  if (totals) {
    totals.refund += refund;
    totals.charged += charged;
    totals.count += count;
  } else map.set(key, { refund, charged, count });
};
const byKey = <K extends number | string>(map: Map<K, Totals>) => [...map].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

/**
 * The money ledger. `reserve` takes quota from the token and the user before the upstream call, atomically
 * and never below zero; `settle` runs exactly once per reservation (deleting the reservation row is the claim)
 * and charges the actual cost, refunds the rest, bumps the usage counters and writes the consume log.
 *
 * Group commit: reservations and settlements queue up and every queued job is committed in one transaction
 * per event-loop turn. Each reservation still decides on its own (its conditional updates either take the
 * whole amount or nothing), while the batch's settlements touch each key, user and channel row once with the
 * summed amounts and write their logs in multi-row inserts. If a batch fails, each job is retried in a
 * transaction of its own, so one bad job never takes the others down. Nothing is half-written: a job's
 * writes land together or not at all.
 */
export class QuotaLedger {
  private readonly sql: RawSql;
  private queue: Job[] = [];
  private flushing = false;
  private retrying = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly lowQuota?: LowQuotaWatch,
    /** The instance whose reservations these are (see billing/takeover.ts). */
    readonly instanceId = '',
  ) {
    this.sql = new RawSql(dialect);
  }

  reserve(input: ReserveInput): Promise<Reservation> {
    const amount = Math.max(0, Math.ceil(input.amount));
    const reservation: Claim = { ...input, amount, requested: amount, minimum: Math.min(amount, Math.max(0, Math.ceil(input.minimum ?? amount))) };
    return new Promise((resolve, reject) => this.enqueue({ kind: 'reserve', reservation, resolve, reject }));
  }

  /**
   * Settles a reservation once. Returns the amount charged, or undefined when it was already settled.
   * When the real cost exceeds the reservation, the extra is taken only as far as the balances allow:
   * quotas never go negative; the log records what was actually charged.
   */
  settle(reservation: Reservation, settlement: Settlement): Promise<number | undefined> {
    return new Promise((resolve, reject) => this.enqueue({ kind: 'settle', reservation, settlement, attempts: 0, resolve, reject }));
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
      try {
        outcomes = await this.transaction((trx) => this.apply(trx, batch, (crossings = [])));
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
   * Applies a batch inside one transaction. Rows are locked in one global order before anything changes:
   * reservation rows (the claims), then keys, then users, then channels, each by ascending id; no two
   * transactions, on any number of instances, can then wait on each other in a cycle (no deadlocks). Then
   * settlements (they free quota), reservations, and progress records.
   */
  private async apply(trx: Transaction<Database>, batch: Job[], crossings: Crossings): Promise<Outcome[]> {
    const outcomes: Outcome[] = new Array(batch.length);
    const settles = batch.flatMap((job, i) => (job.kind === 'settle' ? [{ job, i }] : []));
    const reserves = batch.flatMap((job, i) => (job.kind === 'reserve' ? [{ job, i }] : []));
    const open = settles.length > 0 ? await this.claim(trx, settles.map(({ job }) => job.reservation.requestId)) : new Set<string>();
    await this.lock(trx, 'tokens', [...settles.map(({ job }) => job.reservation.tokenId), ...reserves.filter(({ job }) => !job.reservation.unlimited).map(({ job }) => job.reservation.tokenId)]);
    await this.lock(trx, 'users', [...settles.map(({ job }) => job.reservation.userId), ...reserves.map(({ job }) => job.reservation.userId)]);
    await this.lock(trx, 'channels', settles.map(({ job }) => job.settlement.channelId).filter((id) => id > 0));

    if (settles.length > 0) await this.applySettlements(trx, settles, open, outcomes, crossings);
    const reserved: Claim[] = [];
    for (const { job, i } of reserves) {
      const refused = await this.take(trx, job.reservation);
      outcomes[i] = refused ?? job.reservation;
      if (!refused) reserved.push(job.reservation);
    }
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

  /** The claim: the reservation rows that still exist are deleted; each one pays out once. Returns their ids. */
  private async claim(trx: Transaction<Database>, requestIds: string[]): Promise<Set<string>> {
    const open = new Set<string>();
    const ids = [...new Set(requestIds)].sort();
    for (const part of chunks(ids, ROWS_PER_STATEMENT)) {
      const list = placeholders(part.length);
      const rows = await this.sql.run<{ request_id: string }>(trx, `select request_id from quota_reservations where request_id in (${list}) order by request_id${this.sql.forUpdate}`, part);
      for (const row of rows.rows) open.add(row.request_id);
      if (rows.rows.length > 0) await this.sql.run(trx, `delete from quota_reservations where request_id in (${list})`, part);
    }
    return open;
  }

  /** Locks rows by ascending id (PostgreSQL and MySQL; SQLite has one writer at a time). */
  private async lock(trx: Transaction<Database>, table: 'tokens' | 'users' | 'channels', ids: number[]): Promise<void> {
    if (this.dialect === 'sqlite' || ids.length === 0) return;
    const sorted = [...new Set(ids)].sort((a, b) => a - b);
    for (const part of chunks(sorted, ROWS_PER_STATEMENT)) {
      await this.sql.run(trx, `select id from ${table} where id in (${placeholders(part.length)}) order by id for update`, part);
    }
  }

  /**
   * A reservation's updates (token row, then user row: the lock order everywhere in the ledger). The whole
   * amount is taken with one conditional update per row when both balances cover it; otherwise, when a
   * minimum allows a partial reservation, the rows are locked and as much as both hold is taken.
   */
  private async take(trx: Transaction<Database>, r: Claim): Promise<InsufficientQuotaError | undefined> {
    r.amount = r.requested; // a batch that failed and is retried job by job starts over
    if (r.amount === 0) return undefined;
    let refused: InsufficientQuotaError | undefined;
    if (!r.unlimited) {
      const token = await this.sql.changes(trx, 'update tokens set remain_quota = remain_quota - ? where id = ? and remain_quota >= ?', [r.amount, r.tokenId, r.amount]);
      if (token === 0) refused = new InsufficientQuotaError('token');
    }
    if (!refused) {
      const user = await this.sql.changes(trx, 'update users set quota = quota - ? where id = ? and quota >= ?', [r.amount, r.userId, r.amount]);
      if (user > 0) return undefined;
      if (!r.unlimited) await this.sql.run(trx, 'update tokens set remain_quota = remain_quota + ? where id = ?', [r.amount, r.tokenId]);
      refused = new InsufficientQuotaError('user');
    }
    if (r.minimum >= r.amount) return refused;
    const tokenQuota = r.unlimited ? Number.MAX_SAFE_INTEGER : await this.balance(trx, 'tokens', 'remain_quota', r.tokenId);
    const userQuota = await this.balance(trx, 'users', 'quota', r.userId);
    const take = Math.min(r.amount, tokenQuota, userQuota);
    if (take < r.minimum || take <= 0) return new InsufficientQuotaError(tokenQuota < userQuota ? 'token' : 'user');
    if (!r.unlimited) await this.sql.run(trx, 'update tokens set remain_quota = remain_quota - ? where id = ?', [take, r.tokenId]);
    await this.sql.run(trx, 'update users set quota = quota - ? where id = ?', [take, r.userId]);
    r.amount = take;
    return undefined;
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
  ): Promise<void> {
    const tokens = new Map<string, Totals>();
    const users = new Map<number, Totals>();
    const channels = new Map<number, Totals>();
    const logs: unknown[][] = [];
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
      if (cost > charged) charged += await this.takeExtra(trx, reservation, cost - charged);
      outcomes[i] = charged;
      // Only when a provider went past the output cap and the balances could not cover it: never silent.
      const shortfall = cost > charged ? `（额度不足：应扣 ${cost}，实扣 ${charged}）` : '';
      const served = settlement.usage?.failed ? 0 : 1;
      add(tokens, `${reservation.tokenId}:${reservation.unlimited ? 1 : 0}`, reservation.unlimited ? 0 : refund, charged, served);
      add(users, reservation.userId, refund, charged, served);
      if (settlement.channelId > 0) add(channels, settlement.channelId, 0, charged);
      const log = settlement.log;
      if (log) {
        logs.push([log.user_id ?? reservation.userId, log.created_at, log.type ?? LogType.Consume, (log.content ?? '') + shortfall, log.username, log.token_name ?? '', log.token_id ?? reservation.tokenId,
          log.model_name ?? '', charged, log.prompt_tokens ?? 0, log.completion_tokens ?? 0, log.channel_id ?? 0, log.request_id ?? '', log.elapsed_time ?? 0, log.is_stream ?? 0,
          log.first_byte_ms ?? 0, (log.channel_name ?? '').slice(0, 64), (log.dialect ?? '').slice(0, 32), log.cached_tokens ?? 0, log.cache_write_tokens ?? 0, log.reasoning_tokens ?? 0,
          log.error ?? null, log.attempts ?? null]);
      }
      if (settlement.usage) addRollup(rollups, hourOf(accessed), reservation, settlement, charged);
    }

    for (const [key, t] of byKey(tokens)) {
      const [id, unlimited] = key.split(':').map(Number);
      if (unlimited) {
        await this.sql.run(trx, 'update tokens set used_quota = used_quota + ?, request_count = request_count + ?, accessed_time = ? where id = ?', [t.charged, t.count, accessed, id]);
      } else {
        // status first: MySQL evaluates SET left to right, so later expressions would see the new remain_quota.
        // A limited key that has nothing left becomes "exhausted" (status 4) in the same statement, but only when
        // no request of its own is still in flight: a balance that is zero because other requests hold it now
        // comes back when they settle, and must not lock the key for good.
        await this.sql.run(
          trx,
          'update tokens set status = case when remain_quota + ? <= 0 and status = ? and not exists (select 1 from quota_reservations r where r.token_id = tokens.id and r.amount > 0) then ? else status end, remain_quota = remain_quota + ?, used_quota = used_quota + ?, request_count = request_count + ?, accessed_time = ? where id = ?',
          [t.refund, TokenStatus.Enabled, TokenStatus.Exhausted, t.refund, t.charged, t.count, accessed, id],
        );
      }
    }
    for (const [id, t] of byKey(users)) {
      await this.sql.run(trx, 'update users set quota = quota + ?, used_quota = used_quota + ?, request_count = request_count + ? where id = ?', [t.refund, t.charged, t.count, id]);
    }
    await this.findCrossings(trx, users, crossings);
    for (const [id, t] of byKey(channels)) {
      await this.sql.run(trx, 'update channels set used_quota = used_quota + ?, request_count = request_count + ? where id = ?', [t.charged, t.count, id]);
    }
    for (const part of chunks(logs, ROWS_PER_STATEMENT)) {
      await this.sql.run(trx, `insert into logs (${LOG_COLUMNS.join(', ')}) values ${valuesList(part.length, LOG_COLUMNS.length)}`, part.flat());
    }
    await this.writeRollups(trx, rollups);
  }

  /**
   * The users these settlements took below the reminder threshold: their quota now is under it, and adding
   * back what the settled requests cost (their whole effect on the user) reaches it. One query per batch,
   * and none while reminders are off.
   */
  private async findCrossings(trx: Transaction<Database>, users: Map<number, Totals>, crossings: Crossings): Promise<void> {
    const threshold = this.lowQuota?.threshold() ?? 0;
    const charged = [...users].filter(([, t]) => t.charged > 0).map(([id]) => id);
    if (threshold <= 0 || charged.length === 0) return;
    for (const part of chunks(charged, ROWS_PER_STATEMENT)) {
      const rows = await this.sql.run<{ id: number; quota: number }>(trx, `select id, quota from users where id in (${placeholders(part.length)})`, part);
      for (const row of rows.rows) {
        const quota = Number(row.quota);
        const cost = users.get(Number(row.id))?.charged ?? 0;
        if (quota < threshold && quota + cost >= threshold) crossings.push({ userId: Number(row.id), quota });
      }
    }
  }

  /**
   * Adds the batch's sums to the hourly rollups: one upsert per row, in key order. Rows carry this instance's
   * id, so instances never write the same row and cannot wait on each other for it.
   */
  private async writeRollups(trx: Transaction<Database>, rollups: Map<string, Rollup>): Promise<void> {
    if (rollups.size === 0) return;
    const rows = [...rollups.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([, r]) => [r.hour, r.userId, r.tokenId, r.model, r.channelId, this.instanceId, r.requests, r.failures, r.prompt, r.completion, r.cached, r.reasoning, r.quota, r.latency]);
    const upsert =
      this.dialect === 'mysql'
        ? `on duplicate key update ${ROLLUP_SUMS.map((c) => `${c} = ${c} + values(${c})`).join(', ')}`
        : `on conflict (hour, user_id, token_id, model, channel_id, instance_id) do update set ${ROLLUP_SUMS.map((c) => `${c} = usage_rollups.${c} + excluded.${c}`).join(', ')}`;
    for (const part of chunks(rows, ROWS_PER_STATEMENT)) {
      await this.sql.run(trx, `insert into usage_rollups (${ROLLUP_COLUMNS.join(', ')}) values ${valuesList(part.length, ROLLUP_COLUMNS.length)} ${upsert}`, part.flat());
    }
  }

  /** Takes up to `extra` more from the token and the user, as far as both have it. */
  private async takeExtra(trx: Transaction<Database>, r: Reservation, extra: number): Promise<number> {
    const tokenQuota = r.unlimited ? Number.MAX_SAFE_INTEGER : await this.balance(trx, 'tokens', 'remain_quota', r.tokenId);
    const userQuota = await this.balance(trx, 'users', 'quota', r.userId);
    const take = Math.max(0, Math.min(extra, userQuota, tokenQuota));
    if (take > 0) {
      if (!r.unlimited) await this.sql.run(trx, 'update tokens set remain_quota = remain_quota - ? where id = ?', [take, r.tokenId]);
      await this.sql.run(trx, 'update users set quota = quota - ? where id = ?', [take, r.userId]);
    }
    return take;
  }
}

function deliver(job: Job, outcome: Outcome): void {
  if (job.kind === 'reserve') {
    if (outcome instanceof InsufficientQuotaError) job.reject(outcome);
    else job.resolve(outcome as Reservation);
  } else if (job.kind === 'settle') job.resolve(outcome as number | undefined);
}
