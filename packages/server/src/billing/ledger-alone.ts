import type { Kysely } from 'kysely';
import { flatten } from '../lib/arrays.js';
import { placeholders, type Statement } from '../storage/raw-sql.js';
import type { Database } from '../storage/schema.js';
import { chargeOf, findCrossings, recordStatements, settlementChanges, takenInFull, type Charge } from './ledger-batch.js';
import { reservationStatements, type Claim } from './ledger-reservations.js';
import { jobsOf, now, type BatchContext, type Crossings, type Job, type Outcome } from './ledger-types.js';
import { coveredRows, NotCovered, rowStatements, sharedRowsStatement, userBalances, type Taken } from './ledger-shared-rows.js';

/** Marks the error a PostgreSQL batch run alone raises when it is not covered (see applyAlone). */
const NOT_COVERED_MARK = 'model-relay ledger: batch not covered';
/** MySQL's "Subquery returns more than 1 row": how a MySQL batch run alone says it is not covered (see inMysql). */
const ER_SUBQUERY_NO_1_ROW = 1242;
/** Parameters in a batch run alone at most (PostgreSQL allows 65,535 in a statement). */
const MAX_ALONE_PARAMETERS = 30_000;

/** A batch that can run alone, taken apart: every reservation granted in full, every settlement within its own. */
interface AloneBatch {
  ctx: BatchContext;
  batch: Job[];
  charges: Charge[];
  claims: Claim[];
  reserves: Array<{ i: number }>;
  /** The settled reservations' request ids, in the order they are locked (ascending). */
  claimed: string[];
  taken: Taken;
  rows: NonNullable<ReturnType<typeof coveredRows>>;
  accessed: number;
  /** The batch's own rows: new reservations, logs, rollups. */
  own: Statement[];
}

/**
 * The usual batch (settlements within their reservations, and reservations; on PostgreSQL of one key, one user and
 * one channel: a busy key's) in one round trip where the database allows it: on PostgreSQL one statement with no transaction around
 * it (inPostgres), on MySQL and MariaDB one text of several statements that is a whole transaction (inMysql, over
 * `multi`, a connection that takes such texts). Either writes the shared rows only where their balances plainly
 * cover the batch (as writeIfCovered), checks that every reservation it settles was still open (a second settlement
 * of one, or one a takeover settled, finds it gone), and keeps nothing when a check fails: it throws NotCovered,
 * and the ledger runs the batch again in a transaction, deciding from the locked balances. Answers undefined when
 * the batch is not of that kind (or the database cannot).
 */
export async function applyAlone(ctx: BatchContext, db: Kysely<Database>, batch: Job[], crossings: Crossings, multi?: Kysely<Database>): Promise<Outcome[] | undefined> {
  if (ctx.careful || (ctx.dialect === 'mysql' ? !multi : ctx.dialect !== 'postgres')) return undefined;
  // Balance slices (charged, or promoted from) are the transaction path's (ledger-batch.ts takeFromSlices).
  if (batch.some((job) => job.kind === 'promote' || (job.kind === 'settle' && job.reservation.slice !== undefined))) return undefined;
  // Progress records update reservation rows a PostgreSQL statement's claims may delete (its parts all see the rows
  // as they were before it); MySQL's statements run one after another.
  if (ctx.dialect === 'postgres' && batch.some((job) => job.kind === 'progress')) return undefined;
  const settles = jobsOf(batch, 'settle');
  const reserves = jobsOf(batch, 'reserve');
  const claimed = settles.map(({ job }) => job.reservation.requestId).sort();
  if (new Set(claimed).size !== claimed.length) return undefined;
  const charges = settles.map(({ job, i }) => chargeOf(job, i));
  if (charges.some((c) => c.cost > c.charged)) return undefined;
  const claims = reserves.map(({ job }) => job.reservation);
  for (const r of claims) r.amount = r.requested;
  const taken: Taken = takenInFull(claims);
  // MySQL's statements run one after another, each table's rows by ascending id: any number of rows (the batch of
  // many users' requests at once).
  const rows = coveredRows(settlementChanges(charges), taken, ctx.dialect === 'postgres');
  if (!rows) return undefined;
  const accessed = now();
  const own = [...reservationStatements(ctx, claims), ...recordStatements(ctx, charges, accessed)];
  const alone: AloneBatch = { ctx, batch, charges, claims, reserves, claimed, taken, rows, accessed, own };
  const users = ctx.dialect === 'postgres' ? await inPostgres(alone, db) : await inMysql(alone, multi!);
  if (!users) return undefined;

  const outcomes: Outcome[] = new Array(batch.length);
  for (const c of charges) outcomes[c.i] = c.charged;
  reserves.forEach(({ i }, n) => (outcomes[i] = claims[n]));
  // The users' quota after the settlements is what the batch left plus what the reservations took.
  if (ctx.threshold > 0) findCrossings(ctx.threshold, charges, (id) => users.get(id)! + (taken.users.get(id) ?? 0), users, crossings);
  return outcomes;
}

/**
 * PostgreSQL: the claims, the new reservation rows, the logs and rollups, and the key, user and channel rows, each a
 * data-modifying CTE of one statement. A statement on its own is its own transaction, so the batch costs one round
 * trip instead of BEGIN, three statements and COMMIT, and the shared rows are held for that one statement's
 * execution and flush only. After claiming and writing, the statement checks the claims and the shared rows; if
 * one is short it fails (a text cast to boolean that cannot be, so nothing of it is kept). The check reads the CTEs
 * in the ledger's lock order (reservation rows, the batch's own rows, limited key, user, unlimited key, channel),
 * which is the order PostgreSQL runs them in. Answers the users' balances after the batch.
 */
async function inPostgres({ ctx, claimed, rows, accessed, taken, own }: AloneBatch, db: Kysely<Database>): Promise<Map<number, number> | undefined> {
  const shared = sharedRowsStatement(rows, accessed, taken, claimed);
  const ctes: string[] = [];
  const parameters: unknown[] = [];
  // What the check expects, in the order it reads (and so runs, and locks) the CTEs.
  const expected: Array<[string, number]> = [];
  if (claimed.length > 0) {
    // The reservation rows locked in request-id order, as every claim does.
    ctes.push('claimed as (delete from quota_reservations where request_id in (select request_id from quota_reservations where request_id = any(?::text[]) order by request_id for update) returning request_id)');
    parameters.push(claimed);
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
  try {
    const result = await ctx.sql.run<{ kind: string; id: number; balance: number }>(db, `with ${ctes.join(', ')} select kind, id, balance from (${selects}) s${check}`, parameters);
    return userBalances(result.rows);
  } catch (error) {
    if (error instanceof Error && error.message.includes(NOT_COVERED_MARK)) throw new NotCovered();
    throw error;
  }
}

/**
 * MySQL and MariaDB: the batch's statements as the transaction path runs them, without the reads that lock the
 * balances first, sent as one text of several statements (START TRANSACTION to COMMIT): one round trip instead of
 * about eight, and the shared rows are held for the execution of their statements and the COMMIT only. The text
 * checks twice: right after the claims that every settled reservation was still open, and after the shared rows
 * that every one exists and every balance the batch takes from is still at or above zero. A check that fails asks
 * for one value from a subquery that then has two rows (MySQL and MariaDB have no other way to fail a statement
 * outside a stored program): the server stops the text there, the transaction is rolled back, and this throws
 * NotCovered. Any other failure is rolled back too. Answers the users' balances after the batch (read only when the
 * low-quota reminder is on).
 */
async function inMysql({ ctx, claimed, rows, accessed, own, taken, batch }: AloneBatch, multi: Kysely<Database>): Promise<Map<number, number> | undefined> {
  const statements: Statement[] = [{ text: 'set transaction isolation level read committed', parameters: [] }, { text: 'start transaction', parameters: [] }];
  // (A SELECT: MariaDB's DO turns the subquery's error into a warning.)
  const fail = (condition: string) => `select (select 1 from (select 1 as n union all select 2) two where (${condition}) is not true) as short`;
  if (claimed.length > 0) {
    const list = placeholders(claimed.length);
    // Rows locked in request-id order, as every claim does (MariaDB's DELETE walks its IN list in order; MySQL's
    // is locked by an ordered read first).
    if (!ctx.sql.deleteReturning) statements.push({ text: `select request_id from quota_reservations where request_id in (${list}) order by request_id for update`, parameters: claimed });
    statements.push({ text: `delete from quota_reservations where request_id in (${list})`, parameters: claimed });
    statements.push({ text: fail('row_count() = ?'), parameters: [claimed.length] });
  }
  const progress = jobsOf(batch, 'progress').map(({ job }) => job.progress).sort((a, b) => (a.requestId < b.requestId ? -1 : 1));
  for (const p of progress) statements.push({ text: 'update quota_reservations set channel_id = ?, delivered_chars = ? where request_id = ?', parameters: [p.channelId, p.deliveredChars, p.requestId] });
  statements.push(...own, ...rowStatements(rows, accessed));
  const conditions: string[] = [];
  const parameters: unknown[] = [];
  for (const t of rows.keys) {
    const from = !t.unlimited && (taken.keys.get(t.id) ?? 0) > 0;
    conditions.push(from ? '(select remain_quota from tokens where id = ?) >= 0' : 'exists (select 1 from tokens where id = ?)');
    parameters.push(t.id);
  }
  for (const t of rows.users) {
    conditions.push((taken.users.get(t.id) ?? 0) > 0 ? '(select quota from users where id = ?) >= 0' : 'exists (select 1 from users where id = ?)');
    parameters.push(t.id);
  }
  for (const t of rows.channels) {
    conditions.push('exists (select 1 from channels where id = ?)');
    parameters.push(t.id);
  }
  if (conditions.length > 0) statements.push({ text: fail(conditions.join(' and ')), parameters });
  const read = ctx.threshold > 0 && rows.users.length > 0;
  if (read) statements.push({ text: `select id, quota from users where id in (${placeholders(rows.users.length)})`, parameters: rows.users.map((t) => t.id) });
  statements.push({ text: 'commit', parameters: [] });
  const all = flatten(statements.map((s) => s.parameters));
  if (all.length > MAX_ALONE_PARAMETERS) return undefined;

  return multi.connection().execute(async (connection) => {
    try {
      const result = await ctx.sql.run<unknown>(connection, statements.map((s) => s.text).join(';\n'), all);
      const users = new Map<number, number>();
      if (read) {
        // One result per statement; the balances are the last rows (the checks' and MySQL's claim reads come before).
        const selected = (result.rows as unknown[]).filter((r): r is Array<{ id: number; quota: number }> => Array.isArray(r)).pop() ?? [];
        for (const row of selected) users.set(Number(row.id), Number(row.quota));
      }
      return users;
    } catch (error) {
      await ctx.sql.run(connection, 'rollback', []).catch(() => undefined);
      if ((error as { errno?: number }).errno === ER_SUBQUERY_NO_1_ROW) throw new NotCovered();
      throw error;
    }
  });
}
