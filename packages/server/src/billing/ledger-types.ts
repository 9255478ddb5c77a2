import type { Dialect } from '../storage/database.js';
import type { RawSql } from '../storage/raw-sql.js';
import type { LogsRepository } from '../storage/repositories/logs.js';
import type { NewLog } from '../storage/schema.js';
import type { Claim } from './ledger-reservations.js';

/** What the ledger takes, settles and records: the contract between the relay and the money. */
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
  /**
   * Held in one of this instance's balance slices (ledger-slices.ts) instead of a row of its own: the slice's row id.
   * Such a reservation was taken in memory; its settlement charges the slice and writes no reservation row.
   */
  slice?: string;
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
  /** False when the request was never served (refused, failed): it is settled (refunded) but not counted as a request. */
  served?: boolean;
  /** The upstream's usage report was wrong (用量异常): counted on the channel (channels.usage_anomalies). */
  usageAnomaly?: boolean;
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

export type ReserveInput = Reservation & {
  /**
   * Take less than `amount` when the balances cannot cover it, but at least this much (default: all of it).
   * The relay asks the upstream for fewer tokens when it got less, so the request still cannot cost more
   * than it holds.
   */
  minimum?: number;
  /**
   * The request's upstream call is sent while this reservation commits (a stream's optimistic reservation): its
   * batch waits a turn of the event loop, so that the call is on the wire before the commit (ledger.ts, enqueue).
   */
  alongsideCall?: boolean;
  /** What a surviving instance needs to charge a takeover fairly if this one dies mid-request. */
  model?: string;
  promptEstimate?: number;
  stream?: boolean;
  /**
   * The key's and the user's balances as last read, when the reservation may be held in a balance slice (no daily or
   * monthly limit has to see it first): see ledger-slices.ts. Without it the reservation is always a row of its own.
   */
  sliceable?: { userQuota: number; keyQuota: number };
};
/** How far an in-flight request got: recorded every few seconds so a takeover can charge what was delivered. */
export interface Progress {
  requestId: string;
  channelId: number;
  deliveredChars: number;
}

/* The ledger's batches (ledger.ts, ledger-batch.ts, ledger-alone.ts, ledger-reservations.ts): what is queued, what each job is answered. */

export type Job =
  | { kind: 'reserve'; reservation: Claim; resolve: (value: Reservation) => void; reject: (error: unknown) => void }
  | {
      kind: 'settle';
      /** For a reservation held in a balance slice (`slice` set), `amount` is what the slice pays at most (ledger-slices.ts). */
      reservation: Reservation;
      settlement: Settlement;
      attempts: number;
      resolve: (value: number | undefined) => void;
      reject: (error: unknown) => void;
      /** A sliced settlement: told once its batch committed whether the slice's row was still there to pay from. */
      onSlice?: (backed: boolean) => void;
      /** Set by the batch that settles it (a sliced settlement): whether its slice's row paid. */
      backed?: boolean;
    }
  | { kind: 'progress'; progress: Progress }
  | {
      /** A request held in a slice that runs long gets a reservation row of its own (for a crash takeover's charge). */
      kind: 'promote';
      reservation: Reservation & { slice: string };
      details: { model: string; promptEstimate: number; stream: boolean };
      progress: Progress;
      /** The reservation as a row of its own, or undefined when the slice's row was gone (it stays unbacked). */
      resolve: (value: Reservation | undefined) => void;
      reject: (error: unknown) => void;
    };
export type Outcome = Reservation | InsufficientQuotaError | number | undefined;
/** Users a commit took below the reminder threshold, with their quota after it. */
export type Crossings = Array<{ userId: number; quota: number }>;

/**
 * The batch's jobs of one kind, each with its place in the batch (a loop: on node 20 `flatMap` costs about 100 ns an
 * element, several microseconds a batch).
 */
export function jobsOf<K extends Job['kind']>(batch: readonly Job[], kind: K): Array<{ job: Extract<Job, { kind: K }>; i: number }> {
  const out: Array<{ job: Extract<Job, { kind: K }>; i: number }> = [];
  for (let i = 0; i < batch.length; i++) if (batch[i].kind === kind) out.push({ job: batch[i] as Extract<Job, { kind: K }>, i });
  return out;
}

/** What a batch needs besides its transaction: the ledger's statements, writers and settings. */
export interface BatchContext {
  sql: RawSql;
  dialect: Dialect;
  logs: LogsRepository;
  instanceId: string;
  /** The low-quota reminder threshold (0: reminders off). */
  threshold: number;
  /** Decide from the locked balances without trying writeIfCovered first (it threw NotCovered for this batch). */
  careful: boolean;
}

export const now = () => Math.floor(Date.now() / 1000);
