import { existsSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { loadPg, optional } from '../../lib/optional-modules.js';
import { ImportError } from '../import-error.js';

export type SourceDialect = 'sqlite' | 'postgres' | 'mysql';
export type SourceRow = Record<string, unknown>;

/**
 * A one-api / new-api database opened read-only (as far as the driver allows): tables, columns, rows. Statements
 * use `?` placeholders in every dialect. `exec` exists for the tests that build such databases.
 */
export interface SourceDatabase {
  dialect: SourceDialect;
  /** Where it is, with any password hidden (for messages). */
  label: string;
  /** The quoted identifier, in the dialect's own quotes. */
  id(name: string): string;
  query(text: string, parameters?: readonly unknown[]): Promise<SourceRow[]>;
  exec(text: string, parameters?: readonly unknown[]): Promise<void>;
  tables(): Promise<Set<string>>;
  columns(table: string): Promise<Set<string>>;
  close(): Promise<void>;
}

/**
 * The source as the user typed it: an SQLite file path, `mysql://` / `postgres://` URL, or one-api's own MySQL DSN
 * form `user:pass@tcp(host:port)/db?params` (its SQL_DSN), which becomes a mysql:// URL.
 */
export function parseSource(source: string): { dialect: SourceDialect; location: string } {
  const text = source.trim();
  if (/^postgres(ql)?:\/\//i.test(text)) return { dialect: 'postgres', location: text };
  if (/^(mysql|mariadb):\/\//i.test(text)) return { dialect: 'mysql', location: text.replace(/^mariadb:/i, 'mysql:') };
  const goDsn = /^(?:([^:@]*)(?::(.*))?@)?tcp\(([^)]+)\)\/([^?]*)(?:\?.*)?$/.exec(text);
  if (goDsn) {
    const [, user = '', password, host, database] = goDsn;
    const auth = user ? `${encodeURIComponent(user)}${password !== undefined ? `:${encodeURIComponent(password)}` : ''}@` : '';
    return { dialect: 'mysql', location: `mysql://${auth}${host}/${database}` };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) throw new ImportError(`不支持的数据源：${text.split(':')[0]}://（支持 SQLite 文件路径、mysql://、postgres:// 或 one-api 的 user:pass@tcp(host:port)/db 形式）`);
  return { dialect: 'sqlite', location: text };
}

/** A URL with its password replaced by ***. */
export function hidePassword(location: string): string {
  return location.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}

const toPg = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

export async function openSource(source: string, options: { create?: boolean } = {}): Promise<SourceDatabase> {
  const { dialect, location } = parseSource(source);
  const label = hidePassword(location);
  try {
    if (dialect === 'sqlite') {
      if (!options.create && !existsSync(location)) throw new ImportError(`找不到源数据库文件：${location}`);
      const db = new SQLite(location, options.create ? {} : { readonly: true, fileMustExist: true });
      const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
      return {
        dialect,
        label,
        id: quote,
        async query(text, parameters = []) {
          return db.prepare(text).all(...parameters.map(sqliteValue)) as SourceRow[];
        },
        async exec(text, parameters = []) {
          if (parameters.length === 0 && !text.includes('?')) db.exec(text);
          else db.prepare(text).run(...parameters.map(sqliteValue));
        },
        async tables() {
          const rows = db.prepare(`select name from sqlite_master where type = 'table'`).all() as Array<{ name: string }>;
          return new Set(rows.map((r) => r.name.toLowerCase()));
        },
        async columns(table) {
          const rows = db.prepare(`pragma table_info(${quote(table)})`).all() as Array<{ name: string }>;
          return new Set(rows.map((r) => r.name.toLowerCase()));
        },
        async close() {
          db.close();
        },
      };
    }
    if (dialect === 'postgres') {
      const pool = new (loadPg().Pool)({ connectionString: location, max: 2 });
      await pool.query('select 1');
      const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
      return {
        dialect,
        label,
        id: quote,
        async query(text, parameters = []) {
          return (await pool.query(toPg(text), [...parameters])).rows as SourceRow[];
        },
        async exec(text, parameters = []) {
          await pool.query(toPg(text), [...parameters]);
        },
        async tables() {
          const rows = (await pool.query(`select table_name from information_schema.tables where table_schema = current_schema()`)).rows as Array<{ table_name: string }>;
          return new Set(rows.map((r) => r.table_name.toLowerCase()));
        },
        async columns(table) {
          const rows = (await pool.query(`select column_name from information_schema.columns where table_schema = current_schema() and table_name = $1`, [table])).rows as Array<{ column_name: string }>;
          return new Set(rows.map((r) => r.column_name.toLowerCase()));
        },
        async close() {
          await pool.end();
        },
      };
    }
    const pool = optional.mysqlPromise().createPool({ uri: location, connectionLimit: 2, supportBigNumbers: true, bigNumberStrings: false, decimalNumbers: true, dateStrings: true });
    await pool.query('select 1');
    const quote = (name: string) => `\`${name.replace(/`/g, '``')}\``;
    return {
      dialect,
      label,
      id: quote,
      async query(text, parameters = []) {
        const [rows] = await pool.query(text, [...parameters]);
        return rows as SourceRow[];
      },
      async exec(text, parameters = []) {
        await pool.query(text, [...parameters]);
      },
      async tables() {
        const [rows] = await pool.query(`select table_name as name from information_schema.tables where table_schema = database()`);
        return new Set((rows as Array<{ name: string }>).map((r) => r.name.toLowerCase()));
      },
      async columns(table) {
        const [rows] = await pool.query(`select column_name as name from information_schema.columns where table_schema = database() and table_name = ?`, [table]);
        return new Set((rows as Array<{ name: string }>).map((r) => r.name.toLowerCase()));
      },
      async close() {
        await pool.end();
      },
    };
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError(`无法打开源数据库 ${label}：${error instanceof Error ? error.message : String(error)}`);
  }
}

/** better-sqlite3 binds numbers, strings, bigints, buffers and null only. */
function sqliteValue(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === undefined) return null;
  return value;
}
