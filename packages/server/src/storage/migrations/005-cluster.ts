import { sql, type Kysely } from 'kysely';

const str = (n: number) => sql`varchar(${sql.raw(String(n))})`;

/**
 * Several instances on one database:
 *  - quota_reservations records which instance holds each open reservation and what it has delivered so far
 *    (model, prompt estimate, channel, delivered characters), so that when an instance dies a surviving one
 *    can settle its reservations: charge what was delivered as far as it can be known, refund the rest;
 *  - cluster_leases: named leases with an expiry (instance liveness, jobs that run once per cluster) for
 *    clusters without Redis.
 */
export const clusterMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable('quota_reservations')
      .addColumn('instance_id', str(32), (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema.alterTable('quota_reservations').addColumn('model', str(255), (c) => c.notNull().defaultTo('')).execute();
    await db.schema.alterTable('quota_reservations').addColumn('prompt_estimate', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('quota_reservations').addColumn('channel_id', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('quota_reservations').addColumn('delivered_chars', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable('quota_reservations').addColumn('is_stream', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.createIndex('quota_reservations_instance').on('quota_reservations').column('instance_id').execute();
    await db.schema.createIndex('quota_reservations_token').on('quota_reservations').column('token_id').execute();
    await db.schema
      .createTable('cluster_leases')
      .addColumn('name', str(191), (c) => c.primaryKey())
      .addColumn('holder', str(64), (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('cluster_leases').ifExists().execute();
    await db.schema.dropIndex('quota_reservations_token').on('quota_reservations').execute();
    await db.schema.dropIndex('quota_reservations_instance').on('quota_reservations').execute();
    for (const column of ['is_stream', 'delivered_chars', 'channel_id', 'prompt_estimate', 'model', 'instance_id']) {
      await db.schema.alterTable('quota_reservations').dropColumn(column).execute();
    }
  },
};
