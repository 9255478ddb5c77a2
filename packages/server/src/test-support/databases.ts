import { randomBytes } from 'node:crypto';
import { Kysely, MysqlDialect, PostgresDialect, sql } from 'kysely';
import { createPool } from 'mysql2';
import pg from 'pg';
import { openStorage, type Storage } from '../storage/database.js';

/**
 * The real databases a test suite runs against: SQLite always; PostgreSQL and MariaDB when the test command
 * provides TEST_PG_DSN / TEST_MYSQL_DSN (scripts/test.sh does). Each suite gets a database of its own,
 * created fresh and dropped afterwards, so suites run in parallel without seeing each other's rows.
 */
export interface TestDatabase {
  name: 'sqlite' | 'postgres' | 'mysql';
  open(): Promise<Storage & { drop(): Promise<void> }>;
}

const testEnv = process.env;

export function testDatabases(): TestDatabase[] {
  const list: TestDatabase[] = [{ name: 'sqlite', open: openSqlite }];
  if (testEnv.TEST_PG_DSN) list.push({ name: 'postgres', open: () => openServerDatabase('postgres', testEnv.TEST_PG_DSN!) });
  if (testEnv.TEST_MYSQL_DSN) list.push({ name: 'mysql', open: () => openServerDatabase('mysql', testEnv.TEST_MYSQL_DSN!) });
  return list;
}

async function openSqlite() {
  const storage = await openStorage({ sqlitePath: ':memory:' });
  return { ...storage, drop: () => storage.close() };
}

function withDatabase(dsn: string, database: string): string {
  const url = new URL(dsn);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * A fresh, empty database on a server (for tests that start whole instances on it): its DSN, and how to drop
 * it afterwards.
 */
export async function createServerDatabase(kind: 'postgres' | 'mysql', adminDsn: string): Promise<{ dsn: string; drop(): Promise<void> }> {
  const name = `mr_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin =
    kind === 'postgres'
      ? new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: adminDsn, max: 1 }) }) })
      : new Kysely<unknown>({ dialect: new MysqlDialect({ pool: createPool({ uri: adminDsn, connectionLimit: 1 }) }) });
  await sql`create database ${sql.id(name)}`.execute(admin);
  return {
    dsn: withDatabase(adminDsn, name),
    async drop() {
      await sql`drop database ${sql.id(name)}`.execute(admin);
      await admin.destroy();
    },
  };
}

async function openServerDatabase(kind: 'postgres' | 'mysql', adminDsn: string) {
  const database = await createServerDatabase(kind, adminDsn);
  const storage = await openStorage({ dsn: database.dsn });
  return {
    ...storage,
    async drop() {
      await storage.close();
      await database.drop();
    },
  };
}

/**
 * The same three databases as a DSN for a whole app (createTestApp({ SQL_DSN })): SQLite in memory always,
 * PostgreSQL and MariaDB when the test command provides them, each a fresh database dropped by `drop()`.
 */
export interface TestDsn {
  name: 'sqlite' | 'postgres' | 'mysql';
  create(): Promise<{ env: Record<string, string>; drop(): Promise<void> }>;
}

export function testDsns(): TestDsn[] {
  const list: TestDsn[] = [{ name: 'sqlite', create: async () => ({ env: { SQLITE_PATH: ':memory:' }, drop: async () => undefined }) }];
  if (testEnv.TEST_PG_DSN) list.push({ name: 'postgres', create: () => createServerDsn('postgres', testEnv.TEST_PG_DSN!) });
  if (testEnv.TEST_MYSQL_DSN) list.push({ name: 'mysql', create: () => createServerDsn('mysql', testEnv.TEST_MYSQL_DSN!) });
  return list;
}

async function createServerDsn(kind: 'postgres' | 'mysql', adminDsn: string) {
  const database = await createServerDatabase(kind, adminDsn);
  return { env: { SQL_DSN: database.dsn }, drop: database.drop };
}
