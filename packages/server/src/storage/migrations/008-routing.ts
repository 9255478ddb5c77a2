import type { Kysely } from 'kysely';

/**
 * Issue 15: logs.routing, how a relay request found its channel (JSON: session affinity, the fallback models it went
 * through), shown in the request detail.
 */
export const routingMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // MySQL refuses defaults on TEXT columns: written on every insert instead (null when there is nothing to say).
    await db.schema.alterTable('logs').addColumn('routing', 'text').execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('logs').dropColumn('routing').execute();
  },
};
