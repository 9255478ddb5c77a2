import { sql, type Kysely } from 'kysely';

/**
 * Channels remember why their last test failed (`test_error`, empty after a pass), so the list can show a
 * failed channel as failed instead of as a fast healthy one.
 */
export function channelTestErrorMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('channels')
        .addColumn('test_error', sql`varchar(512)`, (c) => c.notNull().defaultTo(''))
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('channels').dropColumn('test_error').execute();
    },
  };
}
