import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from './database.js';
import { readWorkerDialect, SqliteReadWorker } from './read-worker.js';
import { SQLITE_CACHE_KIB } from './sqlite-cache.js';
import type { Database } from './schema.js';

const dir = mkdtempSync(join(tmpdir(), 'mr-read-worker-'));
const opened: Storage[] = [];
afterAll(async () => {
  for (const storage of opened) await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

async function fileStorage(name: string): Promise<Storage> {
  const storage = await openStorage({ sqlitePath: join(dir, `${name}.db`) });
  opened.push(storage);
  return storage;
}

/** Runs `work` while a 5 ms timer measures the event loop: the longest gap between two ticks, and how long `work` took. */
async function loopWhile(work: () => Promise<unknown>): Promise<{ took: number; longestGap: number }> {
  let last = performance.now();
  let longestGap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - last);
    last = now;
  }, 5);
  const started = performance.now();
  await new Promise((r) => setTimeout(r, 20));
  last = performance.now();
  await work();
  const took = performance.now() - started;
  await new Promise((r) => setTimeout(r, 20));
  clearInterval(timer);
  return { took, longestGap };
}

/** A query that keeps SQLite busy for a while (counts a recursive sequence): stands in for a month of rollups. */
const busyQuery = (db: Kysely<Database>, n: number) =>
  sql<{ n: number }>`with recursive c(x) as (select 1 union all select x + 1 from c where x < ${n}) select count(*) as n from c`.execute(db);

describe('long reads of an SQLite file on a worker thread (Storage.reader)', () => {
  it('answers what the main connection answers, and sees its commits at once', async () => {
    const storage = await fileStorage('same');
    expect(storage.reader).not.toBe(storage.db);
    for (let i = 0; i < 5; i++) {
      await storage.db.insertInto('logs').values({ user_id: 1 + (i % 2), created_at: 1000 + i, type: 2, content: `第 ${i} 行`, username: 'amy', token_name: 'k', model_name: 'gpt-4o-mini', quota: 10 * i, prompt_tokens: i, completion_tokens: i, channel_id: 1 }).execute();
    }
    const query = (db: Kysely<Database>) =>
      db.selectFrom('logs').select(['user_id', 'content']).select((eb) => eb.fn.sum<number>('quota').as('quota')).where('username', '=', 'amy').where('created_at', '>=', 1001).groupBy(['user_id', 'content']).orderBy('content').execute();
    expect(await query(storage.reader)).toEqual(await query(storage.db));
    expect(await query(storage.reader)).toHaveLength(4);
    // a row committed on the main connection is in the worker's next read
    await storage.db.insertInto('logs').values({ user_id: 3, created_at: 2000, type: 2, content: '刚写入', username: 'amy', token_name: 'k', model_name: 'm', quota: 1, prompt_tokens: 0, completion_tokens: 0, channel_id: 1 }).execute();
    expect((await storage.reader.selectFrom('logs').select('content').where('user_id', '=', 3).execute()).map((r) => r.content)).toEqual(['刚写入']);
  });

  it('each connection keeps a bounded page cache of its own size, not the driver\'s 16 MB default', async () => {
    const storage = await fileStorage('cache');
    const cacheSize = async (db: Kysely<Database>) => Number((await sql<{ cache_size: number }>`pragma cache_size`.execute(db)).rows[0]?.cache_size);
    expect(await cacheSize(storage.db)).toBe(-SQLITE_CACHE_KIB.writer);
    expect(await cacheSize(storage.reader)).toBe(-SQLITE_CACHE_KIB.reader);
  });

  it('a long read leaves the event loop free (on the main connection the same read stops it)', async () => {
    const storage = await fileStorage('busy');
    // Big enough that the read takes a clear while on this machine, whatever its speed.
    let n = 500_000;
    while ((await loopWhile(() => busyQuery(storage.db, n))).took < 400 && n < 64_000_000) n *= 2;
    const onMain = await loopWhile(() => busyQuery(storage.db, n));
    const onWorker = await loopWhile(() => busyQuery(storage.reader, n));
    expect(Number((await busyQuery(storage.reader, n)).rows[0].n)).toBe(n);
    // the main connection holds the loop for (nearly) the whole read; the worker never does
    expect(onMain.longestGap).toBeGreaterThan(onMain.took * 0.6);
    expect(onWorker.longestGap).toBeLessThan(onWorker.took / 2);
  });

  it('a short read is not queued behind a long one: the reads go to the least busy of two workers', async () => {
    const storage = await fileStorage('two');
    let n = 500_000;
    while ((await loopWhile(() => busyQuery(storage.reader, n))).took < 400 && n < 64_000_000) n *= 2;
    const order: string[] = [];
    const long = busyQuery(storage.reader, n).then(() => order.push('long'));
    const short = storage.reader.selectFrom('logs').select('id').execute().then(() => order.push('short'));
    await Promise.all([long, short]);
    expect(order).toEqual(['short', 'long']);
  });

  it('refuses writes, and a reader whose worker has stopped reads on the main connection', async () => {
    const storage = await fileStorage('fallback');
    await expect(storage.reader.insertInto('logs').values({ user_id: 1, created_at: 1, type: 2, content: 'x', username: 'u', token_name: 't', model_name: 'm', quota: 1, prompt_tokens: 0, completion_tokens: 0, channel_id: 0 }).execute()).rejects.toThrow();
    expect(await storage.db.selectFrom('logs').select('id').execute()).toEqual([]);
    const worker = new SqliteReadWorker(join(dir, 'fallback.db'));
    const reader = new Kysely<Database>({ dialect: readWorkerDialect([worker], storage.db) });
    expect(Number((await busyQuery(reader, 10)).rows[0].n)).toBe(10);
    await worker.stop();
    expect(worker.alive).toBe(false);
    expect(Number((await busyQuery(reader, 20)).rows[0].n)).toBe(20);
  });

  it('an in-memory database and the server databases read on their own connection', async () => {
    const storage = await openStorage({ sqlitePath: ':memory:' });
    try {
      expect(storage.reader).toBe(storage.db);
    } finally {
      await storage.close();
    }
  });
});
