import { InsufficientQuotaError, type ReserveInput } from './ledger-types.js';

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
