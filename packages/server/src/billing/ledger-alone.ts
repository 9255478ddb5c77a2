import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import { chargeOf, findCrossings, now, recordStatements, reservationStatements, settlementChanges, takenInFull, type BatchContext, type Crossings, type Job, type Outcome } from './ledger-batch.js';
import { coveredRows, NotCovered, sharedRowsStatement, userBalances, type Taken } from './ledger-shared-rows.js';

/** Marks the error a batch run alone raises when it is not covered (see applyAlone). */
const NOT_COVERED_MARK = 'model-relay ledger: batch not covered';
/** Parameters in applyAlone's statement at most (PostgreSQL allows 65,535). */
const MAX_ALONE_PARAMETERS = 30_000;

/**
 * PostgreSQL, the usual batch of a busy key (settlements within their reservations, reservations, one key, one user,
 * one channel, no progress records) as one statement with no transaction around it: the claims, the new reservation
 * rows, the logs and rollups, and the key, user and channel rows, each a data-modifying CTE, the shared rows only
 * where their balances plainly cover the batch (as writeIfCovered). A statement on its own is its own transaction,
 * so the batch costs one round trip instead of BEGIN, three statements and COMMIT, and the shared rows are held for
 * that one statement's execution and flush only, not across the round trips to the COMMIT.
 *
 * All or nothing: the statement checks, after claiming and writing, that every reservation it settles was still
 * open (a second settlement of one, or one a takeover settled, finds it gone) and that every shared row was covered;
 * if not, it fails (a text cast to boolean that cannot be, so nothing of it is kept) and this throws NotCovered: the
 * ledger runs the batch again in a transaction, deciding from the locked balances. The check reads the CTEs in the
 * ledger's lock order (reservation rows, limited key, user, unlimited key, channel), which is the order PostgreSQL
 * runs them in. Answers undefined when the batch is not of that kind.
 */
export async function applyAlone(ctx: BatchContext, db: Kysely<Database>, batch: Job[], crossings: Crossings): Promise<Outcome[] | undefined> {
  if (ctx.dialect !== 'postgres' || ctx.careful || batch.some((job) => job.kind === 'progress')) return undefined;
  const settles = batch.flatMap((job, i) => (job.kind === 'settle' ? [{ job, i }] : []));
  const reserves = batch.flatMap((job, i) => (job.kind === 'reserve' ? [{ job, i }] : []));
  const claimed = settles.map(({ job }) => job.reservation.requestId);
  if (new Set(claimed).size !== claimed.length) return undefined;
  const charges = settles.map(({ job, i }) => chargeOf(job, i));
  if (charges.some((c) => c.cost > c.charged)) return undefined;
  const claims = reserves.map(({ job }) => job.reservation);
  for (const r of claims) r.amount = r.requested;
  const taken: Taken = takenInFull(claims);
  const rows = coveredRows(settlementChanges(charges), taken);
  if (!rows) return undefined;
  const accessed = now();
  const own = [...reservationStatements(ctx, claims), ...recordStatements(ctx, charges, accessed)];
  const shared = sharedRowsStatement(rows, accessed, taken, claimed);

  const ctes: string[] = [];
  const parameters: unknown[] = [];
  // What the check expects, in the order it reads (and so runs, and locks) the CTEs.
  const expected: Array<[string, number]> = [];
  if (claimed.length > 0) {
    // The reservation rows locked in request-id order, as every claim does.
    ctes.push('claimed as (delete from quota_reservations where request_id in (select request_id from quota_reservations where request_id = any(?::text[]) order by request_id for update) returning request_id)');
    parameters.push([...claimed].sort());
    expected.push(['claimed', claimed.length]);
  }
  // This batch's own rows (no other instance waits on them), read by the check before the shared rows so that they
  // are written before those are locked: PostgreSQL runs a CTE the query does not read only after the query.
  own.forEach((statement, n) => {
    ctes.push(`w${n} as (${statement.text} returning 1)`);
    parameters.push(...statement.parameters);
  });
  ctes.push(...shared.ctes);
  parameters.push(...shared.parameters);
  const counts = { k: rows.keys.length, u: rows.users.length, c: rows.channels.length };
  for (const name of shared.names) expected.push([name, counts[name]]);
  for (const [, count] of expected) parameters.push(count);
  if (parameters.length > MAX_ALONE_PARAMETERS) return undefined;
  const reads = expected.map(([name]) => `(select count(*) from ${name})`);
  const written = own.map((_, n) => `(select count(*) from w${n})`);
  const first = claimed.length > 0 ? 1 : 0;
  const conditions = [...reads.slice(0, first).map((read) => `${read} = ?::bigint`), ...written.map((read) => `${read} >= 0`), ...reads.slice(first).map((read) => `${read} = ?::bigint`)];
  // The failure's text names the counts: it must not be a constant, which PostgreSQL would evaluate (and fail on)
  // while planning, whatever the condition.
  const check = conditions.length > 0 ? ` where (select case when ${conditions.join(' and ')} then true else ('${NOT_COVERED_MARK}: ' || ${[...reads, ...written].join(" || ' ' || ")})::boolean end)` : '';
  const selects = shared.selects.length > 0 ? shared.selects.join(' union all ') : `select 'n' as kind, 0 as id, 0 as balance`;
  let rowsWritten: Array<{ kind: string; id: number; balance: number }>;
  try {
    rowsWritten = (await ctx.sql.run<{ kind: string; id: number; balance: number }>(db, `with ${ctes.join(', ')} select kind, id, balance from (${selects}) s${check}`, parameters)).rows;
  } catch (error) {
    if (error instanceof Error && error.message.includes(NOT_COVERED_MARK)) throw new NotCovered();
    throw error;
  }
  const outcomes: Outcome[] = new Array(batch.length);
  for (const c of charges) outcomes[c.i] = c.charged;
  reserves.forEach(({ i }, n) => (outcomes[i] = claims[n]));
  const users = userBalances(rowsWritten);
  // The users' quota after the settlements is what the statement left plus what the reservations took.
  if (ctx.threshold > 0) findCrossings(ctx.threshold, charges, (id) => users.get(id)! + (taken.users.get(id) ?? 0), users, crossings);
  return outcomes;
}
