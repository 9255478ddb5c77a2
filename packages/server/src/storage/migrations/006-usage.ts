import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

const str = (n: number) => sql`varchar(${sql.raw(String(n))})`;

/**
 * Seeing and steering usage:
 *  - logs keep each request's detail: time to first byte, the channel's name, the client's dialect, cache and
 *    reasoning tokens, the upstream error of a failed request (type 5), and the attempts it made (JSON: which
 *    channels were tried and why each was left);
 *  - usage_rollups: hourly sums per user x key x model x channel, written in the same transaction as the logs
 *    they sum (one row per instance as well, so instances never contend for a row), read by the dashboard;
 *  - limits per key and per user: requests and tokens per minute, quota per day and per month (0 = none).
 */
export function usageMigration(dialect: Dialect) {
  const text = dialect === 'mysql' ? sql`mediumtext` : sql`text`;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('logs').addColumn('first_byte_ms', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('logs').addColumn('channel_name', str(64), (c) => c.notNull().defaultTo('')).execute();
      await db.schema.alterTable('logs').addColumn('dialect', str(32), (c) => c.notNull().defaultTo('')).execute();
      await db.schema.alterTable('logs').addColumn('cached_tokens', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('logs').addColumn('cache_write_tokens', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('logs').addColumn('reasoning_tokens', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
      // MySQL refuses defaults on TEXT columns: these two are written on every insert instead.
      await db.schema.alterTable('logs').addColumn('error', text).execute();
      await db.schema.alterTable('logs').addColumn('attempts', text).execute();

      await db.schema
        .createTable('usage_rollups')
        .addColumn('hour', 'bigint', (c) => c.notNull())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('token_id', 'integer', (c) => c.notNull())
        .addColumn('model', str(255), (c) => c.notNull())
        .addColumn('channel_id', 'integer', (c) => c.notNull())
        .addColumn('instance_id', str(32), (c) => c.notNull())
        .addColumn('requests', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('failures', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('prompt_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('completion_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('cached_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('reasoning_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('quota', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('latency_ms', 'bigint', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('usage_rollups_pk', ['hour', 'user_id', 'token_id', 'model', 'channel_id', 'instance_id'])
        .execute();
      await db.schema.createIndex('usage_rollups_user_hour').on('usage_rollups').columns(['user_id', 'hour']).execute();
      await db.schema.createIndex('usage_rollups_hour').on('usage_rollups').column('hour').execute();

      for (const table of ['tokens', 'users']) {
        await db.schema.alterTable(table).addColumn('rpm_limit', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable(table).addColumn('tpm_limit', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable(table).addColumn('daily_quota_limit', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable(table).addColumn('monthly_quota_limit', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of ['tokens', 'users']) {
        for (const column of ['monthly_quota_limit', 'daily_quota_limit', 'tpm_limit', 'rpm_limit']) await db.schema.alterTable(table).dropColumn(column).execute();
      }
      await db.schema.dropTable('usage_rollups').ifExists().execute();
      for (const column of ['attempts', 'error', 'reasoning_tokens', 'cache_write_tokens', 'cached_tokens', 'dialect', 'channel_name', 'first_byte_ms']) {
        await db.schema.alterTable('logs').dropColumn(column).execute();
      }
    },
  };
}
