import type { NewLog } from '../storage/schema.js';

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
