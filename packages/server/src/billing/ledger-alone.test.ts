import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../test-support/databases.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import type { Storage } from '../storage/database.js';
import { QuotaLedger } from './ledger.js';

// The batch in one round trip of ledger-alone.ts (PostgreSQL: one statement; MySQL and MariaDB: one text of several
// statements); on SQLite the same scenarios take the transaction.
describe.each(testDatabases())('a batch alone on $name', (database) => {
  let storage: Storage & { drop(): Promise<void> };
  let userId: number;
  beforeAll(async () => {
    storage = await database.open();
    userId = await seedUser(storage, 'payer', 10_000, 'PAY1');
  });
  afterAll(async () => {
    await storage?.drop();
  });

  const balances = async (tokenId: number) => ({
    user: await storage.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow(),
    token: await storage.db.selectFrom('tokens').selectAll().where('id', '=', tokenId).executeTakeFirstOrThrow(),
  });

  it('a busy key\'s batch is one round trip on PostgreSQL and MySQL: exact, exhausted only with nothing in flight; a settled reservation or a balance it cannot cover goes the careful way, nothing of the first try kept', async () => {
    const watched = () => {
      const ledger = new QuotaLedger(storage);
      const statements: number[] = [];
      ledger.observeCommits((_jobs, _seconds, n) => statements.push(n));
      return { ledger, statements };
    };
    const alone = storage.dialect !== 'sqlite';
    const channelId = await seedChannel(storage, { key: 'alone-test', baseUrl: 'http://127.0.0.1:9', models: 'm' });
    const usage = { model: 'alone-model', promptTokens: 1, completionTokens: 1, cachedTokens: 0, reasoningTokens: 0, latencyMs: 1, failed: false };
    const log = (tokenId: number, n: string) => ({ user_id: userId, username: 'payer', created_at: 3, token_id: tokenId, model_name: `alone-${n}` });
    const logsOf = async (n: string) => (await storage.db.selectFrom('logs').select(['quota']).where('model_name', '=', `alone-${n}`).execute()).map((l) => Number(l.quota));

    // A reservation, then its settlement with a log, a rollup and a channel: one round trip each.
    const one = watched();
    const token = await seedToken(storage, userId, { remain_quota: 200 });
    const before = await balances(token.id);
    const a = await one.ledger.reserve({ requestId: `alone-a-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 100 });
    // Settling a while b reserves the rest: the key is at zero with b in flight, so it stays enabled, though the
    // statement cannot see b's new row.
    const [charged, b] = await Promise.all([
      one.ledger.settle(a, { cost: 100, channelId, usage, log: log(token.id, 'a') }),
      one.ledger.reserve({ requestId: `alone-b-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 100 }),
    ]);
    expect(charged).toBe(100);
    expect((await balances(token.id)).token).toMatchObject({ remain_quota: 0, status: 1 });
    // b settles the rest: nothing left and nothing in flight (the statement's own claim of b does not count): exhausted.
    expect(await one.ledger.settle(b, { cost: 100, channelId, usage, log: log(token.id, 'b') })).toBe(100);
    const after = await balances(token.id);
    expect(after.token).toMatchObject({ remain_quota: 0, status: 4, used_quota: 200, request_count: 2 });
    expect([after.user.quota, after.user.used_quota]).toEqual([before.user.quota - 200, before.user.used_quota + 200]);
    expect([await logsOf('a'), await logsOf('b')]).toEqual([[100], [100]]);
    const rollup = await storage.db.selectFrom('usage_rollups').select(sql<number>`sum(quota)`.as('quota')).where('model', '=', 'alone-model').executeTakeFirstOrThrow();
    expect(Number(rollup.quota)).toBe(200);
    expect(await storage.db.selectFrom('quota_reservations').select('request_id').where('request_id', 'in', [a.requestId, b.requestId]).execute()).toEqual([]);
    // A batch with no shared row to write (a reservation of nothing) is one statement too.
    expect((await one.ledger.reserve({ requestId: `alone-z-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 0 })).amount).toBe(0);
    if (alone) expect(one.statements).toEqual([1, 1, 1, 1]);

    // One batch: a settlement of a reservation already settled, a good settlement and a new reservation. The
    // statement finds one claim missing and fails whole; the careful way pays the good one once and skips the other.
    const two = watched();
    const other = await seedToken(storage, userId, { remain_quota: 1000 });
    const c = await two.ledger.reserve({ requestId: `alone-c-${other.id}`, userId, tokenId: other.id, unlimited: false, amount: 100 });
    const mid = await balances(other.id);
    const results = await Promise.all([
      two.ledger.settle(a, { cost: 100, channelId, usage, log: log(token.id, 'a') }),
      two.ledger.settle(c, { cost: 30, channelId, usage, log: log(other.id, 'c') }),
      two.ledger.reserve({ requestId: `alone-d-${other.id}`, userId, tokenId: other.id, unlimited: false, amount: 50 }).then((r) => r.amount),
    ]);
    expect(results).toEqual([undefined, 30, 50]);
    const end = await balances(other.id);
    expect(end.token.remain_quota).toBe(1000 - 30 - 50);
    expect(end.user.quota).toBe(mid.user.quota + 70 - 50);
    expect([await logsOf('a'), await logsOf('c')]).toEqual([[100], [30]]);
    if (alone) expect(two.statements[1]).toBeGreaterThan(3);

    // A user whose balance cannot cover the reservation in full: the careful way grants what is left.
    const three = watched();
    const poor = await seedUser(storage, 'alonepoor', 150, 'ALN1');
    const key = await seedToken(storage, poor, { unlimited: true });
    await three.ledger.reserve({ requestId: `alone-e-${key.id}`, userId: poor, tokenId: key.id, unlimited: true, amount: 100 });
    const partial = await three.ledger.reserve({ requestId: `alone-f-${key.id}`, userId: poor, tokenId: key.id, unlimited: true, amount: 100, minimum: 10 });
    expect(partial.amount).toBe(50);
    expect((await storage.db.selectFrom('users').select('quota').where('id', '=', poor).executeTakeFirstOrThrow()).quota).toBe(0);
    if (alone) expect(three.statements[0]).toBe(1);
  });

  it('on MySQL and MariaDB progress records go in the same round trip, and the low-quota reminder reads the balance there', async () => {
    const crossed: Array<[number, number]> = [];
    const ledger = new QuotaLedger(storage, { lowQuota: { threshold: () => 1000, crossed: (id, quota) => crossed.push([id, quota]) } });
    const statements: number[] = [];
    const owner = await seedUser(storage, 'aloneremind', 1100, 'ALN2');
    const key = await seedToken(storage, owner, { unlimited: true });
    const first = await ledger.reserve({ requestId: `alone-g-${key.id}`, userId: owner, tokenId: key.id, unlimited: true, amount: 200 });
    const second = await ledger.reserve({ requestId: `alone-h-${key.id}`, userId: owner, tokenId: key.id, unlimited: true, amount: 50 });
    ledger.observeCommits((_jobs, _seconds, n) => statements.push(n));
    // One batch: how far the second request got, and the first one's settlement (150 of its 200).
    ledger.progress({ requestId: second.requestId, channelId: 7, deliveredChars: 42 });
    expect(await ledger.settle(first, { cost: 150, channelId: 0 })).toBe(150);
    const row = await storage.db.selectFrom('quota_reservations').select(['channel_id', 'delivered_chars']).where('request_id', '=', second.requestId).executeTakeFirstOrThrow();
    expect([Number(row.channel_id), Number(row.delivered_chars)]).toEqual([7, 42]);
    // 1,100 - 150 charged - 50 still held: 900, below the threshold of 1,000 that the settlement crossed.
    expect((await storage.db.selectFrom('users').select('quota').where('id', '=', owner).executeTakeFirstOrThrow()).quota).toBe(900);
    expect(crossed).toEqual([[owner, 900]]);
    if (storage.dialect === 'mysql') expect(statements).toEqual([1]);
  });

  it('on MySQL and MariaDB a batch of several users, keys and channels is one round trip too, every balance exact', async () => {
    const ledger = new QuotaLedger(storage);
    const person = (name: string) =>
      seedUser(storage, name, 1000, name.toUpperCase());
    const [first, second] = [await person('alonem1'), await person('alonem2')];
    const limited = await seedToken(storage, first, { remain_quota: 500 });
    const unlimited = await seedToken(storage, second, { unlimited: true });
    const channels = [await seedChannel(storage, { key: 'alone-m1', baseUrl: 'http://127.0.0.1:9', models: 'm' }), await seedChannel(storage, { key: 'alone-m2', baseUrl: 'http://127.0.0.1:9', models: 'm' })];
    const a = await ledger.reserve({ requestId: `alone-m-a-${limited.id}`, userId: first, tokenId: limited.id, unlimited: false, amount: 100 });
    const b = await ledger.reserve({ requestId: `alone-m-b-${unlimited.id}`, userId: second, tokenId: unlimited.id, unlimited: true, amount: 100 });
    const statements: number[] = [];
    ledger.observeCommits((_jobs, _seconds, n) => statements.push(n));
    // One batch: both settlements (on two channels) and a new reservation of the first user's key.
    const results = await Promise.all([
      ledger.settle(a, { cost: 60, channelId: channels[0] }),
      ledger.settle(b, { cost: 70, channelId: channels[1] }),
      ledger.reserve({ requestId: `alone-m-c-${limited.id}`, userId: first, tokenId: limited.id, unlimited: false, amount: 50 }).then((r) => r.amount),
    ]);
    expect(results).toEqual([60, 70, 50]);
    const row = async (table: 'users' | 'tokens' | 'channels', id: number) => storage.db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(await row('users', first)).toMatchObject({ quota: 1000 - 60 - 50, used_quota: 60, request_count: 1 });
    expect(await row('users', second)).toMatchObject({ quota: 1000 - 70, used_quota: 70, request_count: 1 });
    expect(await row('tokens', limited.id)).toMatchObject({ remain_quota: 500 - 60 - 50, used_quota: 60, request_count: 1, status: 1 });
    expect(await row('tokens', unlimited.id)).toMatchObject({ used_quota: 70, request_count: 1 });
    expect([(await row('channels', channels[0])).used_quota, (await row('channels', channels[1])).used_quota].map(Number)).toEqual([60, 70]);
    if (storage.dialect === 'mysql') expect(statements).toEqual([1]);
  });
});
