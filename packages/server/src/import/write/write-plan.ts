import { sql, type Transaction } from 'kysely';
import type { Dialect } from '../../storage/database.js';
import { abilitiesOf } from '../../storage/repositories/channels.js';
import type { Database } from '../../storage/schema.js';
import type { ImportPlan } from '../plan/plan-import.js';
import type { ImportReport } from '../report/import-report.js';

/** Rows per INSERT statement: far below every database's parameter limit at ~25 columns. */
const ROWS_PER_INSERT = 200;

async function insertAll<T extends keyof Database>(trx: Transaction<Database>, table: T, rows: readonly object[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    await trx.insertInto(table).values(rows.slice(i, i + ROWS_PER_INSERT) as never).execute();
  }
}

/**
 * Writes the plan inside the caller's transaction. `checkpoint` is called between tables (the tests make it throw
 * half-way to prove nothing stays written).
 */
export async function writePlan(trx: Transaction<Database>, plan: ImportPlan, report: ImportReport, checkpoint: (table: string) => void): Promise<void> {
  if (plan.deleteUserId !== undefined) await trx.deleteFrom('users').where('id', '=', plan.deleteUserId).execute();
  await insertAll(trx, 'users', plan.users.insert);
  for (const { id, ...values } of plan.users.update) await trx.updateTable('users').set(values).where('id', '=', id).execute();
  checkpoint('users');

  await insertAll(trx, 'tokens', plan.tokens.insert);
  for (const { id, ...values } of plan.tokens.update) await trx.updateTable('tokens').set(values).where('id', '=', id).execute();
  checkpoint('tokens');

  await insertAll(trx, 'channels', plan.channels.insert);
  for (const { id, ...values } of plan.channels.update) {
    await trx.updateTable('channels').set(values).where('id', '=', id).execute();
    await trx.deleteFrom('abilities').where('channel_id', '=', id).execute();
  }
  const abilities = [...plan.channels.insert, ...plan.channels.update].flatMap((channel) => abilitiesOf(channel));
  await insertAll(trx, 'abilities', abilities);
  report.count('abilities', 'inserted', abilities.length);
  checkpoint('channels');

  await insertAll(trx, 'redemptions', plan.redemptions.insert);
  for (const { id, ...values } of plan.redemptions.update) await trx.updateTable('redemptions').set(values).where('id', '=', id).execute();
  checkpoint('redemptions');

  for (const [key, value] of plan.options) await setOption(trx, key, value);
  checkpoint('options');
}

/** Insert-or-update of one option row. */
export async function setOption(trx: Transaction<Database>, key: string, value: string): Promise<void> {
  const existing = await trx.selectFrom('options').select('key').where('key', '=', key).executeTakeFirst();
  if (existing) await trx.updateTable('options').set({ value }).where('key', '=', key).execute();
  else await trx.insertInto('options').values({ key, value }).execute();
}

/** PostgreSQL's identity sequences do not move for explicit ids: set them past the highest id, or the next insert fails. */
export async function resetSequences(trx: Transaction<Database>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const table of ['users', 'tokens', 'channels', 'redemptions', 'logs']) {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), greatest((select coalesce(max(id), 0) from ${sql.table(table)}), 1))`.execute(trx);
  }
}
