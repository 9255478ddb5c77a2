import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../test-support/databases.js';
import type { Storage } from './database.js';
import type { Database } from './schema.js';
import { sql, type Transaction } from 'kysely';
import { insertRows, placeholders, PREPARED_NAMES, RawSql, repeatJoined, valuesList } from './raw-sql.js';

describe.each(testDatabases())('hand-written statements on $name', (database) => {
  let storage: Storage & { drop(): Promise<void> };
  beforeAll(async () => {
    storage = await database.open();
  });
  afterAll(async () => {
    await storage?.drop();
  });

  it.runIf(database.name === 'postgres')('its statements are prepared once per connection; a server that loses them gets unnamed ones from then on', async () => {
    const raw = new RawSql(storage.dialect);
    const text = 'select cast(? as integer) + cast(? as integer) as total';
    const numbered = 'select cast($1 as integer) + cast($2 as integer) as total';
    const preparedHere = async (trx: Transaction<Database>) =>
      (await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements where statement = ${numbered}`.execute(trx)).rows[0].n;
    expect(PREPARED_NAMES.has(numbered)).toBe(false);
    await storage.db.transaction().execute(async (trx) => {
      const first = await raw.run(trx, text, [1, 2]);
      expect(first.rows).toEqual([{ total: 3 }]);
      expect(PREPARED_NAMES.has(numbered)).toBe(true);
      expect(await preparedHere(trx)).toBe(1);
      expect((await raw.run(trx, text, [1, 2])).rows).toEqual(first.rows);
      expect(await preparedHere(trx)).toBe(1);
      // What a transaction-mode pooler does: the statement meets a server connection that never prepared it.
      await sql`deallocate all`.execute(trx);
      await expect(raw.run(trx, text, [1, 0])).rejects.toMatchObject({ code: '26000' });
    });
    expect(PREPARED_NAMES.size).toBe(0);
    await storage.db.transaction().execute(async (trx) => {
      await sql`deallocate all`.execute(trx);
      expect((await raw.run(trx, text, [2, 2])).rows).toEqual([{ total: 4 }]);
      expect(await preparedHere(trx)).toBe(0);
    });
  });

  it('insertRows: any number of rows in one constant text on PostgreSQL (VALUES elsewhere), every string and null as given', async () => {
    const raw = new RawSql(storage.dialect);
    const tricky = ['NULL', '', '{"a":"b,c"}', 'back\\slash', 'quote"d', "it's", '{1,2}', '  spaced  ', '中文，标点', 'line\nbreak'];
    const rows = tricky.map((text, i) => [`insert-rows-${i}`, i === 3 ? null : text]);
    rows.push(['insert-rows-null', null]);
    const columns = [['key', 'text'], ['value', 'text']] as const;
    const q = storage.dialect === 'mysql' ? '`' : '"';
    const statements = insertRows(storage.dialect, 'options', columns.map(([name, kind]) => [`${q}${name}${q}`, kind] as const), rows);
    if (storage.dialect === 'postgres') {
      expect(statements).toHaveLength(1);
      expect(statements[0].text).toBe(insertRows('postgres', 'options', columns.map(([name, kind]) => [`${q}${name}${q}`, kind] as const), rows.slice(0, 2))[0].text);
    }
    await raw.runAll(storage.db, statements);
    const written = await storage.db.selectFrom('options').select(['key', 'value']).where('key', 'like', 'insert-rows-%').execute();
    const byKey = new Map(written.map((row) => [row.key, row.value]));
    expect(byKey.size).toBe(rows.length);
    for (const [key, value] of rows) expect(byKey.get(key as string)).toBe(value);
  });

  it('runAll: independent inserts and an upsert, one round trip on PostgreSQL (one each elsewhere), every row written', async () => {
    const raw = new RawSql(storage.dialect);
    const q = storage.dialect === 'mysql' ? '`' : '"';
    const option = (key: string, value: string) => ({ text: `insert into options (${q}key${q}, value) values (?, ?)`, parameters: [key, value] });
    const rollup = (quota: number) => ({
      text:
        'insert into usage_rollups (hour, user_id, token_id, model, channel_id, instance_id, requests, failures, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, quota, latency_ms) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ' +
        (storage.dialect === 'mysql'
          ? 'on duplicate key update quota = quota + values(quota), requests = requests + values(requests)'
          : 'on conflict (hour, user_id, token_id, model, channel_id, instance_id) do update set quota = usage_rollups.quota + excluded.quota, requests = usage_rollups.requests + excluded.requests'),
      parameters: [3600, 7, 8, 'm', 9, 'raw-test', 1, 0, 0, 0, 0, 0, quota, 0],
    });
    await raw.runAll(storage.db, [option('raw-a', '1'), option('raw-b', '2'), rollup(5)]);
    expect(raw.statements).toBe(storage.dialect === 'postgres' ? 1 : 3);
    await raw.runAll(storage.db, [option('raw-c', '3'), rollup(6)]);
    const options = await storage.db.selectFrom('options').select(['key', 'value']).where('key', 'in', ['raw-a', 'raw-b', 'raw-c']).orderBy('key').execute();
    expect(options).toEqual([
      { key: 'raw-a', value: '1' },
      { key: 'raw-b', value: '2' },
      { key: 'raw-c', value: '3' },
    ]);
    const row = await storage.db.selectFrom('usage_rollups').select(['quota', 'requests']).where('instance_id', '=', 'raw-test').executeTakeFirstOrThrow();
    expect([Number(row.quota), Number(row.requests)]).toEqual([11, 2]);
  });

  it('runAll: a failing statement among them writes none of them on PostgreSQL (one statement) and stops the rest elsewhere', async () => {
    const raw = new RawSql(storage.dialect);
    const q = storage.dialect === 'mysql' ? '`' : '"';
    const statements = [
      { text: `insert into options (${q}key${q}, value) values (?, ?)`, parameters: ['raw-fail-1', 'x'] },
      { text: `insert into options (${q}key${q}, value) values (?, ?)`, parameters: ['raw-a', 'duplicate'] },
    ];
    await expect(raw.runAll(storage.db, statements)).rejects.toThrow();
    const written = await storage.db.selectFrom('options').select('key').where('key', '=', 'raw-fail-1').execute();
    // Outside a transaction SQLite and MySQL keep the first insert; PostgreSQL's single statement is all or nothing.
    expect(written.length).toBe(storage.dialect === 'postgres' ? 0 : 1);
  });
});

describe('the lists hand-written statements are built of', () => {
  it('placeholders and VALUES lists', () => {
    expect(placeholders(0)).toBe('');
    expect(placeholders(1)).toBe('?');
    expect(placeholders(3)).toBe('?, ?, ?');
    expect(valuesList(2, 3)).toBe('(?, ?, ?), (?, ?, ?)');
    expect(valuesList(0, 3)).toBe('');
    expect(repeatJoined('(?::bigint)', 2)).toBe('(?::bigint), (?::bigint)');
  });
});
