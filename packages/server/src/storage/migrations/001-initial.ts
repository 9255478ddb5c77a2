import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/** An auto-increment integer primary key in each dialect's own idiom. */
function withId<T extends string>(table: CreateTableBuilder<T, never>, dialect: Dialect): CreateTableBuilder<T, 'id'> {
  if (dialect === 'postgres') {
    return table.addColumn('id', 'integer', (c) => c.primaryKey().generatedByDefaultAsIdentity());
  }
  return table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

const str = (n: number) => sql`varchar(${sql.raw(String(n))})`;

/** The first schema: every entity of docs/console.md §3 plus the abilities index and the billing ledger. */
export function initialMigration(dialect: Dialect) {
  const big = 'bigint' as const;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db.schema.createTable('users'), dialect)
        .addColumn('username', str(64), (c) => c.notNull().unique())
        .addColumn('password', str(255), (c) => c.notNull())
        .addColumn('display_name', str(64), (c) => c.notNull().defaultTo(''))
        .addColumn('role', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('email', str(128), (c) => c.notNull().defaultTo(''))
        .addColumn('github_id', str(128), (c) => c.notNull().defaultTo(''))
        .addColumn('wechat_id', str(128), (c) => c.notNull().defaultTo(''))
        .addColumn('lark_id', str(128), (c) => c.notNull().defaultTo(''))
        .addColumn('access_token', str(64), (c) => c.unique())
        .addColumn('quota', big, (c) => c.notNull().defaultTo(0))
        .addColumn('used_quota', big, (c) => c.notNull().defaultTo(0))
        .addColumn('request_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('group', str(64), (c) => c.notNull().defaultTo('default'))
        .addColumn('aff_code', str(32), (c) => c.notNull().unique())
        .addColumn('inviter_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', big, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('users_email').on('users').column('email').execute();

      await withId(db.schema.createTable('tokens'), dialect)
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('key', str(64), (c) => c.notNull().unique())
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('name', str(64), (c) => c.notNull().defaultTo(''))
        .addColumn('created_time', big, (c) => c.notNull().defaultTo(0))
        .addColumn('accessed_time', big, (c) => c.notNull().defaultTo(0))
        .addColumn('expired_time', big, (c) => c.notNull().defaultTo(-1))
        .addColumn('remain_quota', big, (c) => c.notNull().defaultTo(0))
        .addColumn('unlimited_quota', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('used_quota', big, (c) => c.notNull().defaultTo(0))
        .addColumn('request_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('models', 'text')
        .addColumn('subnet', str(1024), (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.createIndex('tokens_user_id').on('tokens').column('user_id').execute();

      await withId(db.schema.createTable('channels'), dialect)
        .addColumn('type', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('name', str(128), (c) => c.notNull().defaultTo(''))
        .addColumn('weight', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_time', big, (c) => c.notNull().defaultTo(0))
        .addColumn('test_time', big, (c) => c.notNull().defaultTo(0))
        .addColumn('response_time', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('base_url', str(512), (c) => c.notNull().defaultTo(''))
        .addColumn('other', str(512), (c) => c.notNull().defaultTo(''))
        .addColumn('balance', 'double precision', (c) => c.notNull().defaultTo(0))
        .addColumn('balance_updated_time', big, (c) => c.notNull().defaultTo(0))
        .addColumn('models', 'text')
        .addColumn('group', str(255), (c) => c.notNull().defaultTo('default'))
        .addColumn('used_quota', big, (c) => c.notNull().defaultTo(0))
        .addColumn('request_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('model_mapping', 'text')
        .addColumn('priority', big, (c) => c.notNull().defaultTo(0))
        .addColumn('config', 'text')
        .addColumn('system_prompt', 'text')
        .execute();
      await db.schema.createIndex('channels_name').on('channels').column('name').execute();

      await db.schema
        .createTable('abilities')
        .addColumn('group', str(64), (c) => c.notNull())
        .addColumn('model', str(255), (c) => c.notNull())
        .addColumn('channel_id', 'integer', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('priority', big, (c) => c.notNull().defaultTo(0))
        .addColumn('weight', 'integer', (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('abilities_pk', ['group', 'model', 'channel_id'])
        .execute();
      await db.schema.createIndex('abilities_channel_id').on('abilities').column('channel_id').execute();

      await withId(db.schema.createTable('redemptions'), dialect)
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('key', str(64), (c) => c.notNull().unique())
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('name', str(64), (c) => c.notNull().defaultTo(''))
        .addColumn('quota', big, (c) => c.notNull().defaultTo(0))
        .addColumn('created_time', big, (c) => c.notNull().defaultTo(0))
        .addColumn('redeemed_time', big, (c) => c.notNull().defaultTo(0))
        .addColumn('used_user_id', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('redemptions_name').on('redemptions').column('name').execute();

      await withId(db.schema.createTable('logs'), dialect)
        .addColumn('user_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('type', 'integer', (c) => c.notNull())
        .addColumn('content', 'text')
        .addColumn('username', str(64), (c) => c.notNull().defaultTo(''))
        .addColumn('token_name', str(64), (c) => c.notNull().defaultTo(''))
        .addColumn('token_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('model_name', str(255), (c) => c.notNull().defaultTo(''))
        .addColumn('quota', big, (c) => c.notNull().defaultTo(0))
        .addColumn('prompt_tokens', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('completion_tokens', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('channel_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('request_id', str(64), (c) => c.notNull().defaultTo(''))
        .addColumn('elapsed_time', big, (c) => c.notNull().defaultTo(0))
        .addColumn('is_stream', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('logs_created_at').on('logs').column('created_at').execute();
      await db.schema.createIndex('logs_user_created').on('logs').columns(['user_id', 'created_at']).execute();
      await db.schema.createIndex('logs_type_created').on('logs').columns(['type', 'created_at']).execute();

      await db.schema
        .createTable('options')
        .addColumn('key', str(128), (c) => c.primaryKey())
        .addColumn('value', 'text')
        .execute();

      await withId(db.schema.createTable('quota_reservations'), dialect)
        .addColumn('request_id', str(64), (c) => c.notNull().unique())
        .addColumn('user_id', 'integer', (c) => c.notNull())
        .addColumn('token_id', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('amount', big, (c) => c.notNull())
        .addColumn('charged', big, (c) => c.notNull().defaultTo(0))
        .addColumn('status', str(16), (c) => c.notNull().defaultTo('open'))
        .addColumn('created_at', big, (c) => c.notNull())
        .addColumn('settled_at', big, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('quota_reservations_status').on('quota_reservations').column('status').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of ['quota_reservations', 'options', 'logs', 'redemptions', 'abilities', 'channels', 'tokens', 'users']) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
