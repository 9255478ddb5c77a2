import { CompiledQuery, type Kysely, type QueryResult, type Transaction } from 'kysely';
import { flatten } from '../lib/arrays.js';
import type { Dialect } from './database.js';
import type { Database } from './schema.js';

export type Executor = Kysely<Database> | Transaction<Database>;

/**
 * PostgreSQL parses and plans an unnamed statement anew at every call; RawSql's statements, run over and over, are
 * sent as named (prepared) statements instead (see namePreparedStatements in database.ts): each connection parses
 * one once and plans it the cheaper way PostgreSQL chooses after a few runs. Only these: they name the columns they
 * read (none reads a table with `*`, so a column added by a newer instance's migration cannot change what a prepared
 * statement returns), and their number is bounded: a connection holds every statement it prepared until it closes.
 */
export const PREPARED_NAMES = new Map<string, string>();
const MAX_PREPARED = 128;
/** Texts a RawSql remembers (PostgreSQL's numbered, and whether each locks shared rows). */
const MAX_TEXTS = 1_000;
let naming = true;

/**
 * No more named statements in this process: the server lost one a connection had prepared (a pooler such as
 * PgBouncer in transaction mode hands each transaction whichever server connection is free). The statement that
 * failed failed once (the ledger retries its jobs); everything after it is sent unnamed.
 */
export function stopNamingStatements(): void {
  naming = false;
  PREPARED_NAMES.clear();
}

/** Parameters per combined statement (PostgreSQL allows 65,535). */
const MAX_PARAMETERS = 30_000;

/**
 * Hand-written SQL for the few statements every relay request runs (the ledger's), executed through Kysely's
 * connection and transaction handling but without building a query tree for every call: building costs more
 * than running a small indexed statement on SQLite and makes garbage the collector has to pause for.
 * Statements use `?` placeholders; PostgreSQL gets `$1, $2, ...`. Texts must not contain a literal `?`.
 */
export class RawSql {
  private readonly texts = new Map<string, string>();
  private readonly locking = new Map<string, boolean>();
  /** Statements run so far: each is a round trip to PostgreSQL or MySQL (the ledger reports them per batch). */
  statements = 0;
  /**
   * Seconds spent so far in statements that lock a shared key, user or channel row (their updates and their
   * `for update` reads): the time the ledger waits for another transaction's locks on them, plus the statements'
   * own round trips. Every instance's batches lock the same rows of a busy key, so under a cluster this grows
   * with the wait (the ledger reports it per batch: ledger_lock_wait_seconds).
   */
  lockSeconds = 0;
  constructor(readonly dialect: Dialect) {
    this.deleteReturning = dialect !== 'mysql';
  }

  /** Whether a statement locks rows every instance shares (a busy key's, user's or channel's). */
  private locksSharedRows(source: string): boolean {
    let locks = this.locking.get(source);
    if (locks === undefined) {
      // Texts vary with their rows' numbers on MySQL, and more so combined (the ledger's batch run alone): bounded.
      if (this.locking.size >= MAX_TEXTS) this.locking.clear();
      // (also inside a WITH: the ledger's PostgreSQL statements lock and write them in common table expressions)
      locks = /\bupdate\s+(tokens|users|channels)\b/i.test(source) || (/\bfrom\s+(tokens|users)\b/i.test(source) && /\bfor update\b/i.test(source));
      this.locking.set(source, locks);
    }
    return locks;
  }

  /**
   * Whether a DELETE can return the rows it removed: PostgreSQL and SQLite, and MariaDB (10.0.5 and later) but not
   * MySQL, which share a dialect here: set from the server's version (`detectServer`) before it is relied on.
   */
  deleteReturning: boolean;
  private detected = false;

  /** Asks a MySQL-dialect server whether it is MariaDB (deleteReturning); once, the first time. */
  async detectServer(executor: Executor): Promise<void> {
    if (this.dialect !== 'mysql' || this.detected) return;
    const { rows } = await executor.executeQuery<{ v: string }>(CompiledQuery.raw('select version() as v', []));
    this.deleteReturning = /mariadb/i.test(String(rows[0]?.v ?? ''));
    this.detected = true;
  }

  /** Whether an UPDATE can return the rows it changed (PostgreSQL and SQLite; MySQL and MariaDB cannot). */
  get updateReturning(): boolean {
    return this.dialect !== 'mysql';
  }

  private text(source: string): string {
    if (this.dialect !== 'postgres') return source;
    let text = this.texts.get(source);
    if (text === undefined) {
      // Texts repeat (insertRows' never change with the number of rows); a caller that varies them cannot grow this.
      if (this.texts.size >= MAX_TEXTS) this.texts.clear();
      let n = 0;
      text = source.replace(/\?/g, () => `$${++n}`);
      this.texts.set(source, text);
      if (naming && !PREPARED_NAMES.has(text) && PREPARED_NAMES.size < MAX_PREPARED) PREPARED_NAMES.set(text, `mr_${PREPARED_NAMES.size + 1}`);
    }
    return text;
  }

  run<Row = Record<string, unknown>>(executor: Executor, source: string, parameters: readonly unknown[]): Promise<QueryResult<Row>> {
    this.statements++;
    const query = executor.executeQuery<Row>(CompiledQuery.raw(this.text(source), [...parameters]));
    if (this.dialect === 'sqlite' || !this.locksSharedRows(source)) return query;
    const started = performance.now();
    return query.finally(() => (this.lockSeconds += (performance.now() - started) / 1000));
  }

  /**
   * Runs statements whose results nobody reads, in order. On PostgreSQL several plain INSERTs (an upsert among them)
   * go as one statement, all but the last in data-modifying common table expressions: one round trip instead of
   * one each. They must not depend on each other's rows: a statement's sub-statements all see the same snapshot.
   */
  async runAll(executor: Executor, statements: readonly Statement[]): Promise<void> {
    if (this.dialect !== 'postgres') {
      for (const statement of statements) await this.run(executor, statement.text, statement.parameters);
      return;
    }
    // Grouped so no statement passes PostgreSQL's 65,535 parameters (a batch of a thousand jobs can come close).
    let group: Statement[] = [];
    let size = 0;
    for (const statement of statements) {
      if (group.length > 0 && size + statement.parameters.length > MAX_PARAMETERS) {
        await this.runTogether(executor, group);
        group = [];
        size = 0;
      }
      group.push(statement);
      size += statement.parameters.length;
    }
    if (group.length > 0) await this.runTogether(executor, group);
  }

  private async runTogether(executor: Executor, statements: Statement[]): Promise<void> {
    const last = statements[statements.length - 1];
    const ctes = statements.slice(0, -1).map((s, i) => `w${i} as (${s.text})`);
    await this.run(executor, ctes.length > 0 ? `with ${ctes.join(', ')} ${last.text}` : last.text, flatten(statements.map((s) => s.parameters)));
  }

  /** Rows changed by an INSERT, UPDATE or DELETE. */
  async changes(executor: Executor, source: string, parameters: readonly unknown[]): Promise<number> {
    return Number((await this.run(executor, source, parameters)).numAffectedRows ?? 0);
  }

  /** `FOR UPDATE` where the database has row locks (SQLite has one writer at a time: nothing to lock). */
  get forUpdate(): string {
    return this.dialect === 'sqlite' ? '' : ' for update';
  }
}

/** One statement's text (`?` placeholders) and parameters, built to be run later (see RawSql.runAll). */
export interface Statement {
  text: string;
  parameters: unknown[];
}

/** How PostgreSQL reads a column's values in insertRows: whole numbers (into any integer column) or text. */
export type ColumnKind = 'bigint' | 'text';

/**
 * A multi-row INSERT into `table` of `rows` (each row a value per column, in the order of `columns`), `suffix` after
 * the rows (an upsert clause). On PostgreSQL one statement whatever the number of rows, each column one array
 * parameter (`insert ... select * from unnest(?::bigint[], ?::text[], ...)`): its text never changes, so it is
 * parsed once per connection (PREPARED_NAMES), as is the combination runAll makes of several. Elsewhere multi-row
 * VALUES of at most ROWS_PER_STATEMENT rows each.
 */
export function insertRows(dialect: Dialect, table: string, columns: ReadonlyArray<readonly [name: string, kind: ColumnKind]>, rows: unknown[][], suffix = ''): Statement[] {
  if (rows.length === 0) return [];
  const head = `insert into ${table} (${columns.map(([name]) => name).join(', ')})`;
  const tail = suffix ? ` ${suffix}` : '';
  if (dialect === 'postgres') {
    return [{ text: `${head} select * from unnest(${columns.map(([, kind]) => `?::${kind}[]`).join(', ')})${tail}`, parameters: columns.map((_, i) => rows.map((row) => row[i])) }];
  }
  return chunks(rows, ROWS_PER_STATEMENT).map((part) => ({ text: `${head} values ${valuesList(part.length, columns.length)}${tail}`, parameters: flatten(part) }));
}

/** `(?, ?, ?), (?, ?, ?)` for a multi-row INSERT of `rows` rows of `columns` values. */
export function valuesList(rows: number, columns: number): string {
  return repeatJoined(`(${placeholders(columns)})`, rows);
}

/** `?, ?, ?` for an IN list. */
export function placeholders(count: number): string {
  return repeatJoined('?', count);
}

/**
 * `item` `count` times, joined by `, `. (`Array.from({ length }, ...).join` costs about 100 ns an item on node 20, and
 * the ledger builds such lists for every batch.)
 */
export function repeatJoined(item: string, count: number): string {
  return count <= 0 ? '' : item + `, ${item}`.repeat(count - 1);
}

/** Most rows in one multi-row statement or IN list (keeps statement texts, and so prepared statements, few). */
export const ROWS_PER_STATEMENT = 64;

/** Splits into chunks of at most `size` (keeps statement texts, and so prepared statements, few). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
