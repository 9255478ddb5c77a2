import type { Kysely } from 'kysely';

/**
 * users.session_version: the number every session cookie of a user carries. Changing a password, a ban or a
 * role change increments it, so every session issued before stops working on every instance at once (the
 * user row is read on each request anyway). Logging out ends one session through the shared store instead.
 */
export const sessionVersionMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('users').addColumn('session_version', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('users').dropColumn('session_version').execute();
  },
};
