import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogType } from '@model-relay/contract';
import type { Kysely } from 'kysely';
import { openStorage } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';
import { createServerDatabase } from '../databases.js';

export type TargetKind = 'sqlite' | 'postgres' | 'mysql';

/** The databases the import can write to here: SQLite always, PostgreSQL and MariaDB when the test command gives them. */
export function targetKinds(): TargetKind[] {
  return ['sqlite', ...(process.env.TEST_PG_DSN ? ['postgres' as const] : []), ...(process.env.TEST_MYSQL_DSN ? ['mysql' as const] : [])];
}

/** A fresh target: a temporary SQLite file (the import and then the app open it) or a new server database. */
export async function createTarget(kind: TargetKind): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mr-import-target-'));
    return { env: { SQLITE_PATH: join(dir, 'gateway.db') }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const server = await createServerDatabase(kind, (kind === 'postgres' ? process.env.TEST_PG_DSN : process.env.TEST_MYSQL_DSN)!);
  return { env: { SQL_DSN: server.dsn }, drop: server.drop };
}

/** Every row of the tables an import writes, to compare a target before and after. */
export async function snapshot(env: Record<string, string>): Promise<string> {
  const storage = await openStorage({ dsn: env.SQL_DSN, sqlitePath: env.SQLITE_PATH, migrate: false });
  try {
    const db = storage.db as Kysely<Database>;
    const tables = ['users', 'tokens', 'channels', 'abilities', 'redemptions', 'options', 'usage_rollups'] as const;
    const out: Record<string, unknown> = {};
    const sorted = (rows: unknown[]) => rows.map((row) => JSON.stringify(row)).sort();
    for (const table of tables) out[table] = await db.selectFrom(table).selectAll().execute().then(sorted, () => 'missing');
    out.logs = await db.selectFrom('logs').selectAll().where('type', '!=', LogType.System).execute().then(sorted, () => 'missing');
    return JSON.stringify(out);
  } finally {
    await storage.close();
  }
}
