// Preloaded into the gateway by cpu.mjs (node --import): counts the SQL statements the gateway's main thread sends,
// on PostgreSQL (pg's Client#query: every statement, BEGIN and COMMIT included, is one round trip) and on SQLite
// (better-sqlite3's Statement#run/get/all/iterate and Database#exec), grouped by the statement's first words.
// On SIGUSR2 it writes the counts so far, as JSON, to MR_COUNT_FILE. A counter increment per statement: nothing
// the CPU measurement can see. (The SQLite read worker's statements, in worker threads, are not counted.)
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

const file = process.env.MR_COUNT_FILE;
if (file && isMainThread) {
  const require = createRequire(join(process.cwd(), 'package.json'));
  const serverRequire = createRequire(new URL('../../packages/server/package.json', import.meta.url));
  const load = (name) => {
    try {
      return serverRequire(name);
    } catch {
      try {
        return require(name);
      } catch {
        return undefined;
      }
    }
  };
  const counts = { total: 0, byKind: {} };
  // "select from tokens", "update users", "insert into logs", "begin": enough to tell the statements apart.
  const kindOf = (sql) => {
    const text = String(sql).replace(/\s+/g, ' ').trim().toLowerCase();
    const verb = /^\w+/.exec(text)?.[0] ?? '?';
    const table = /\b(?:from|into|update|table)\s+"?(\w+)"?/.exec(text)?.[1];
    return table ? `${verb} ${table}` : verb;
  };
  const count = (sql) => {
    counts.total++;
    const kind = kindOf(sql);
    counts.byKind[kind] = (counts.byKind[kind] ?? 0) + 1;
  };
  const pg = load('pg');
  if (pg?.Client) {
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (config, ...rest) {
      count(typeof config === 'string' ? config : config?.text);
      return query.call(this, config, ...rest);
    };
  }
  const SQLite = load('better-sqlite3');
  if (SQLite) {
    // A prepared statement's class is only reachable through an instance.
    const probe = new SQLite(':memory:');
    const Statement = Object.getPrototypeOf(probe.prepare('select 1'));
    probe.close();
    for (const method of ['run', 'get', 'all', 'iterate']) {
      const original = Statement[method];
      Statement[method] = function (...args) {
        count(this.source);
        return original.apply(this, args);
      };
    }
    const exec = SQLite.prototype.exec;
    SQLite.prototype.exec = function (sql) {
      count(sql);
      return exec.call(this, sql);
    };
  }
  process.on('SIGUSR2', () => writeFileSync(file, JSON.stringify(counts)));
}
