import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../test-support/databases.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import type { Storage } from '../storage/database.js';
import { InsufficientQuotaError, QuotaLedger } from './ledger.js';

describe.each(testDatabases())('quota ledger on $name', (database) => {
  let storage: Storage & { drop(): Promise<void> };
  let ledger: QuotaLedger;
  let userId: number;
  beforeAll(async () => {
    storage = await database.open();
    ledger = new QuotaLedger(storage);
    userId = await seedUser(storage, 'payer', 10_000, 'PAY1');
  });
  afterAll(async () => {
    await storage?.drop();
  });

  const balances = async (tokenId: number) => ({
    user: await storage.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow(),
    token: await storage.db.selectFrom('tokens').selectAll().where('id', '=', tokenId).executeTakeFirstOrThrow(),
  });

  it('reserves, settles the actual cost once and refunds the rest', async () => {
    const token = await seedToken(storage, userId, { remain_quota: 1000 });
    const before = await balances(token.id);
    const reservation = await ledger.reserve({ requestId: `r-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 300 });
    expect((await balances(token.id)).token.remain_quota).toBe(700);
    const charged = await ledger.settle(reservation, { cost: 120, channelId: 0, log: { user_id: userId, username: 'payer', created_at: 1, token_id: token.id } });
    expect(charged).toBe(120);
    expect(await ledger.settle(reservation, { cost: 120, channelId: 0 })).toBeUndefined();
    const after = await balances(token.id);
    expect(after.token.remain_quota).toBe(880);
    expect(after.token.used_quota).toBe(120);
    expect(after.user.quota).toBe(before.user.quota - 120);
    expect(after.user.used_quota).toBe(before.user.used_quota + 120);
    const logs = await storage.db.selectFrom('logs').selectAll().where('token_id', '=', token.id).execute();
    expect(logs.map((l) => [l.type, Number(l.quota)])).toEqual([[2, 120]]);
  });

  it('a settlement on a channel deleted meanwhile still charges the key and the user; on a live channel all three rows move', async () => {
    const channelId = await seedChannel(storage, { key: 'gone-test', baseUrl: 'http://127.0.0.1:9', models: 'm' });
    for (const unlimited of [true, false]) {
      for (const channel of [channelId, 987_654]) {
        const token = await seedToken(storage, userId, { remain_quota: 1000, unlimited });
        const before = await balances(token.id);
        const channelBefore = await storage.db.selectFrom('channels').select(['used_quota', 'request_count']).where('id', '=', channelId).executeTakeFirstOrThrow();
        const reservation = await ledger.reserve({ requestId: `gone-${token.id}`, userId, tokenId: token.id, unlimited, amount: 100 });
        expect(await ledger.settle(reservation, { cost: 40, channelId: channel, usage: { model: 'm', promptTokens: 1, completionTokens: 1, cachedTokens: 0, reasoningTokens: 0, latencyMs: 1, failed: false } })).toBe(40);
        const after = await balances(token.id);
        expect(after.user.quota).toBe(before.user.quota - 40);
        expect(after.user.used_quota).toBe(before.user.used_quota + 40);
        expect(after.user.request_count).toBe(before.user.request_count + 1);
        expect(after.token.used_quota).toBe(40);
        expect(after.token.request_count).toBe(1);
        expect(after.token.remain_quota).toBe(unlimited ? 1000 : 960);
        const channelAfter = await storage.db.selectFrom('channels').select(['used_quota', 'request_count']).where('id', '=', channelId).executeTakeFirstOrThrow();
        expect([Number(channelAfter.used_quota) - Number(channelBefore.used_quota), channelAfter.request_count - channelBefore.request_count]).toEqual(channel === channelId ? [40, 1] : [0, 0]);
      }
    }
  });

  it('refuses a reservation beyond the token or the user balance, changing nothing', async () => {
    const token = await seedToken(storage, userId, { remain_quota: 50 });
    await expect(ledger.reserve({ requestId: `big-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 51 })).rejects.toBeInstanceOf(InsufficientQuotaError);
    const unlimited = await seedToken(storage, userId, { unlimited: true });
    await expect(ledger.reserve({ requestId: `huge-${unlimited.id}`, userId, tokenId: unlimited.id, unlimited: true, amount: 10_000_000 })).rejects.toMatchObject({ who: 'user' });
    expect((await balances(token.id)).token.remain_quota).toBe(50);
    const open = await storage.db.selectFrom('quota_reservations').selectAll().where('request_id', 'in', [`big-${token.id}`, `huge-${unlimited.id}`]).execute();
    expect(open).toEqual([]);
  });

  // covers issue 19 item 2: what a request costs is paid from the user's balance; the key's quota is a cap, not a discount
  it('a cost above the reservation is paid from the user balance in full: the key goes to zero and is exhausted, the log says so', async () => {
    const token = await seedToken(storage, userId, { remain_quota: 100 });
    const userBefore = (await balances(token.id)).user.quota;
    const reservation = await ledger.reserve({ requestId: `over-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 60 });
    const log = { user_id: userId, username: 'payer', created_at: 1, token_id: token.id, content: 'x', request_id: `over-${token.id}` };
    expect(await ledger.settle(reservation, { cost: 500, channelId: 0, log })).toBe(500);
    const after = await balances(token.id);
    expect(after.user.quota).toBe(userBefore - 500);
    expect(after.token.remain_quota).toBe(0);
    expect(after.token.status).toBe(4);
    const row = await storage.db.selectFrom('logs').selectAll().where('request_id', '=', `over-${token.id}`).executeTakeFirstOrThrow();
    expect(row.quota).toBe(500);
    expect(row.content).toContain('超出预留 440');
    expect(row.content).toContain('令牌额度已用尽');
  });

  it('a cost above the reservation never takes more than the user has', async () => {
    const poor = await seedUser(storage, 'poor', 1_000, 'POOR1');
    const token = await seedToken(storage, poor, { unlimited: true });
    const reservation = await ledger.reserve({ requestId: `drain-${token.id}`, userId: poor, tokenId: token.id, unlimited: true, amount: 100 });
    expect(await ledger.settle(reservation, { cost: 50_000, channelId: 0 })).toBe(1_000);
    expect((await storage.db.selectFrom('users').select('quota').where('id', '=', poor).executeTakeFirstOrThrow()).quota).toBe(0);
  });

  it('parallel reserve/settle on one token never overdraws and every unit is accounted for', async () => {
    const token = await seedToken(storage, userId, { remain_quota: 1000 });
    const userBefore = (await balances(token.id)).user.quota;
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, async (_, i) => {
        const reservation = await ledger.reserve({ requestId: `par-${token.id}-${i}`, userId, tokenId: token.id, unlimited: false, amount: 50 });
        return ledger.settle(reservation, { cost: 30, channelId: 0 });
      }),
    );
    const charged = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<number | undefined>).value ?? 0);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(InsufficientQuotaError);
    const total = charged.reduce((a, b) => a + b, 0);
    const after = await balances(token.id);
    expect(after.token.remain_quota).toBe(1000 - total);
    expect(after.token.remain_quota).toBeGreaterThanOrEqual(0);
    expect(after.user.quota).toBe(userBefore - total);
    expect(charged.length).toBeGreaterThanOrEqual(20);
  });

  it('two instances on one user, a limited and an unlimited key and two channels: every unit accounted for, no deadlock, row-lock time reported', async () => {
    const limited = await seedToken(storage, userId, { remain_quota: 3000 });
    const unlimited = await seedToken(storage, userId, { unlimited: true });
    const channels = [await seedChannel(storage, { name: 'two-a', key: 'two-a', baseUrl: 'http://127.0.0.1:9', models: 'm' }), await seedChannel(storage, { name: 'two-b', key: 'two-b', baseUrl: 'http://127.0.0.1:9', models: 'm' })];
    const channelUsed = async () => Number((await storage.db.selectFrom('channels').select((eb) => eb.fn.sum<number>('used_quota').as('q')).where('id', 'in', channels).executeTakeFirstOrThrow()).q ?? 0);
    const before = await balances(limited.id);
    const lockSeconds: number[] = [0, 0];
    const instances = ['one', 'two'].map((name, n) => {
      const instance = new QuotaLedger(storage, { instanceId: name });
      instance.observeCommits((_jobs, _seconds, _statements, lock) => (lockSeconds[n] += lock));
      return instance;
    });
    const results = await Promise.allSettled(
      Array.from({ length: 200 }, async (_, i) => {
        const token = i % 2 === 0 ? limited : unlimited;
        const reservation = await instances[i % 2 === 0 ? (i >> 1) % 2 : ((i >> 1) + 1) % 2].reserve({ requestId: `two-${limited.id}-${i}`, userId, tokenId: token.id, unlimited: token === unlimited, amount: 40 });
        return instances[(i >> 2) % 2].settle(reservation, { cost: 25 + (i % 7), channelId: channels[i % 2], served: true });
      }),
    );
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(InsufficientQuotaError);
    const charged = results.map((r) => (r.status === 'fulfilled' ? (r.value ?? 0) : 0));
    const onLimited = charged.filter((_, i) => i % 2 === 0).reduce((a, b) => a + b, 0);
    const onUnlimited = charged.filter((_, i) => i % 2 === 1).reduce((a, b) => a + b, 0);
    const after = await balances(limited.id);
    const unlimitedAfter = (await balances(unlimited.id)).token;
    expect(after.token.remain_quota).toBe(3000 - onLimited);
    expect(after.token.used_quota).toBe(onLimited);
    expect(unlimitedAfter.used_quota).toBe(onUnlimited);
    expect(after.user.quota).toBe(before.user.quota - onLimited - onUnlimited);
    expect(after.user.used_quota).toBe(before.user.used_quota + onLimited + onUnlimited);
    expect(after.user.request_count).toBe(before.user.request_count + charged.filter((c, i) => c > 0 || results[i].status === 'fulfilled').length);
    expect(await channelUsed()).toBe(onLimited + onUnlimited);
    const open = await storage.db.selectFrom('quota_reservations').select('request_id').where('request_id', 'like', `two-${limited.id}-%`).execute();
    expect(open).toHaveLength(0);
    // Time in row-locking statements is measured where rows are locked (PostgreSQL, MySQL); SQLite has none.
    if (storage.dialect === 'sqlite') expect(lockSeconds).toEqual([0, 0]);
    else expect(Math.min(...lockSeconds)).toBeGreaterThan(0);
  });

  it('one busy unlimited key on two instances while a third settles batches of several users: exact, and no deadlock', async () => {
    const owner = await seedUser(storage, 'busy-owner', 1_000_000, 'BUSY1');
    const user = (id: number) => storage.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const other = await seedUser(storage, 'busy-other', 1_000_000, 'BUSY2');
    const busy = await seedToken(storage, owner, { unlimited: true });
    const otherKey = await seedToken(storage, other, { remain_quota: 500_000 });
    const channel = await seedChannel(storage, { name: 'busy', key: 'busy', baseUrl: 'http://127.0.0.1:9', models: 'm' });
    const deadlocks = async () =>
      storage.dialect === 'postgres' ? Number((await sql<{ n: number }>`select deadlocks as n from pg_stat_database where datname = current_database()`.execute(storage.db)).rows[0].n) : 0;
    const deadlocksBefore = await deadlocks();
    const before = await user(owner);
    const instances = ['a', 'b', 'c'].map((name) => new QuotaLedger(storage, { instanceId: `busy-${name}` }));
    const charged = await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        // Instances a and b serve only the busy key; c serves both users, so its batches hold several users and keys.
        const instance = instances[i % 3];
        const mine = i % 3 !== 2 || i % 2 === 0;
        const r = await instance.reserve({ requestId: `busy-${busy.id}-${i}`, userId: mine ? owner : other, tokenId: mine ? busy.id : otherKey.id, unlimited: mine, amount: 30 });
        return { mine, charged: (await instance.settle(r, { cost: 10 + (i % 5), channelId: channel, served: true })) ?? 0 };
      }),
    );
    const sum = (mine: boolean) => charged.filter((c) => c.mine === mine).reduce((total, c) => total + c.charged, 0);
    const after = await user(owner);
    expect(Number(after.quota)).toBe(Number(before.quota) - sum(true));
    expect(Number(after.used_quota)).toBe(sum(true));
    expect(Number(after.request_count)).toBe(charged.filter((c) => c.mine).length);
    expect(Number((await storage.db.selectFrom('tokens').select('used_quota').where('id', '=', busy.id).executeTakeFirstOrThrow()).used_quota)).toBe(sum(true));
    expect(Number((await user(other)).quota)).toBe(1_000_000 - sum(false));
    expect(Number((await storage.db.selectFrom('tokens').select('remain_quota').where('id', '=', otherKey.id).executeTakeFirstOrThrow()).remain_quota)).toBe(500_000 - sum(false));
    const channelRow = await storage.db.selectFrom('channels').select(['used_quota', 'request_count']).where('id', '=', channel).executeTakeFirstOrThrow();
    expect([Number(channelRow.used_quota), Number(channelRow.request_count)]).toEqual([sum(true) + sum(false), 300]);
    expect(await deadlocks()).toBe(deadlocksBefore);
  });

  it('one batch: settlements and reservations of many keys commit together, a double settle pays once, counters summed per row', async () => {
    const a = await seedToken(storage, userId, { remain_quota: 1000 });
    const b = await seedToken(storage, userId, { unlimited: true });
    const userBefore = (await balances(a.id)).user;
    const first = await Promise.all([
      ledger.reserve({ requestId: `batch-a1-${a.id}`, userId, tokenId: a.id, unlimited: false, amount: 200 }),
      ledger.reserve({ requestId: `batch-a2-${a.id}`, userId, tokenId: a.id, unlimited: false, amount: 200 }),
      ledger.reserve({ requestId: `batch-b1-${b.id}`, userId, tokenId: b.id, unlimited: true, amount: 200 }),
    ]);
    // All settled in the same event-loop turn, so in one transaction; the first one twice.
    const log = (tokenId: number) => ({ user_id: userId, username: 'payer', created_at: 2, token_id: tokenId, model_name: 'batch-model' });
    const charged = await Promise.all([
      ledger.settle(first[0], { cost: 50, channelId: 0, log: log(a.id) }),
      ledger.settle(first[0], { cost: 50, channelId: 0, log: log(a.id) }),
      ledger.settle(first[1], { cost: 70, channelId: 0, log: log(a.id) }),
      ledger.settle(first[2], { cost: 90, channelId: 0, log: log(b.id) }),
      ledger.reserve({ requestId: `batch-a3-${a.id}`, userId, tokenId: a.id, unlimited: false, amount: 10 }).then(() => -1),
    ]);
    expect(charged).toEqual([50, undefined, 70, 90, -1]);
    const after = await balances(a.id);
    expect(after.token.remain_quota).toBe(1000 - 50 - 70 - 10);
    expect(after.token.used_quota).toBe(120);
    expect(after.token.request_count).toBe(2);
    const unlimited = (await balances(b.id)).token;
    expect([unlimited.used_quota, unlimited.request_count]).toEqual([90, 1]);
    expect(after.user.quota).toBe(userBefore.quota - 50 - 70 - 90 - 10);
    expect(after.user.used_quota).toBe(userBefore.used_quota + 210);
    expect(after.user.request_count).toBe(userBefore.request_count + 3);
    const logs = await storage.db.selectFrom('logs').select(['token_id', 'quota', 'type', 'model_name']).where('model_name', '=', 'batch-model').orderBy('quota').execute();
    expect(logs.map((l) => [Number(l.token_id), Number(l.quota), l.type])).toEqual([[a.id, 50, 2], [a.id, 70, 2], [b.id, 90, 2]]);
  });

  it('a failing job in a batch fails alone: the others commit, its own writes roll back', async () => {
    const token = await seedToken(storage, userId, { remain_quota: 1000 });
    const results = await Promise.allSettled([
      ledger.reserve({ requestId: `dup-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 100 }),
      ledger.reserve({ requestId: `dup-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 200 }),
      ledger.reserve({ requestId: `ok-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 300 }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await balances(token.id)).token.remain_quota).toBe(600);
  });

  it('a key whose settlement leaves nothing is marked exhausted (status 4); one with quota left stays enabled', async () => {
    const spent = await seedToken(storage, userId, { remain_quota: 100 });
    const left = await seedToken(storage, userId, { remain_quota: 100 });
    const r1 = await ledger.reserve({ requestId: `ex-${spent.id}`, userId, tokenId: spent.id, unlimited: false, amount: 100 });
    const r2 = await ledger.reserve({ requestId: `ex-${left.id}`, userId, tokenId: left.id, unlimited: false, amount: 100 });
    await Promise.all([ledger.settle(r1, { cost: 100, channelId: 0 }), ledger.settle(r2, { cost: 40, channelId: 0 })]);
    expect((await balances(spent.id)).token).toMatchObject({ remain_quota: 0, status: 4 });
    expect((await balances(left.id)).token).toMatchObject({ remain_quota: 60, status: 1 });
  });

  it('a reservation with a minimum takes what both balances hold, never below the minimum', async () => {
    const token = await seedToken(storage, userId, { remain_quota: 700 });
    const partial = await ledger.reserve({ requestId: `part-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 5_000, minimum: 100 });
    expect(partial.amount).toBe(700);
    expect((await balances(token.id)).token.remain_quota).toBe(0);
    await expect(ledger.reserve({ requestId: `part2-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 5_000, minimum: 1 })).rejects.toMatchObject({ who: 'token' });
    await ledger.settle(partial, { cost: 650, channelId: 0 });
    const after = await balances(token.id);
    expect(after.token).toMatchObject({ remain_quota: 50, status: 1 });
    await expect(ledger.reserve({ requestId: `part3-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 5_000, minimum: 60 })).rejects.toBeInstanceOf(InsufficientQuotaError);
    expect((await balances(token.id)).token.remain_quota).toBe(50);
  });

  it('parallel partial reservations on one user never take more than the user has', async () => {
    const poor = await seedUser(storage, 'partialuser', 1_000, 'PART1');
    const token = await seedToken(storage, poor, { unlimited: true });
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => ledger.reserve({ requestId: `pp-${token.id}-${i}`, userId: poor, tokenId: token.id, unlimited: true, amount: 300, minimum: 50 })),
    );
    const taken = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.amount] : []));
    expect(taken.reduce((a, b) => a + b, 0)).toBe(1_000);
    expect(taken.every((amount) => amount >= 50 && amount <= 300)).toBe(true);
    const user = await storage.db.selectFrom('users').select('quota').where('id', '=', poor).executeTakeFirstOrThrow();
    expect(user.quota).toBe(0);
  });

  it('reservations of one batch decide in queue order against what the earlier ones left: whole, partial or refused', async () => {
    const user = await seedUser(storage, 'batchuser', 1_000, 'BATCH1');
    const limited = await seedToken(storage, user, { remain_quota: 500 });
    const unlimited = await seedToken(storage, user, { unlimited: true });
    const ask = (n: number, token: { id: number }, amount: number, minimum: number) =>
      ledger.reserve({ requestId: `batch-${user}-${n}`, userId: user, tokenId: token.id, unlimited: token === unlimited, amount, minimum });
    // One event-loop turn: all seven commit in one transaction.
    const results = await Promise.allSettled([
      ask(1, limited, 300, 300), // key 500 -> 200, user 1000 -> 700
      ask(2, limited, 300, 300), // the key has 200: refused
      ask(3, limited, 300, 100), // partial: the key's 200 (key 0, user 500)
      ask(4, unlimited, 400, 400), // user 500 -> 100
      ask(5, unlimited, 200, 200), // the user has 100: refused
      ask(6, unlimited, 200, 50), // partial: the user's 100
      ask(7, unlimited, 0, 0), // nothing to take
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value.amount : (r.reason as InsufficientQuotaError).who))).toEqual([300, 'token', 200, 400, 'user', 100, 0]);
    const after = await balances(limited.id);
    expect(after.token.remain_quota).toBe(0);
    expect((await storage.db.selectFrom('users').select('quota').where('id', '=', user).executeTakeFirstOrThrow()).quota).toBe(0);
    const open = await storage.db.selectFrom('quota_reservations').select(['request_id', 'amount']).where('user_id', '=', user).orderBy('request_id').execute();
    expect(open.map((r) => [r.request_id, Number(r.amount)])).toEqual([[`batch-${user}-1`, 300], [`batch-${user}-3`, 200], [`batch-${user}-4`, 400], [`batch-${user}-6`, 100], [`batch-${user}-7`, 0]]);
  });

  it('a key at zero while its own reservations are in flight is not marked exhausted', async () => {
    const token = await seedToken(storage, userId, { remain_quota: 1_000 });
    const a = await ledger.reserve({ requestId: `fl-a-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 500 });
    const b = await ledger.reserve({ requestId: `fl-b-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 500 });
    await ledger.settle(a, { cost: 500, channelId: 0 });
    expect((await balances(token.id)).token).toMatchObject({ remain_quota: 0, status: 1 });
    await ledger.settle(b, { cost: 10, channelId: 0 });
    expect((await balances(token.id)).token).toMatchObject({ remain_quota: 490, status: 1 });
  });

  it('a key found exhausted by a statement that waited for another reservation of it is enabled again by that reservation\'s refund', async () => {
    const token = await seedToken(storage, userId, { remain_quota: 200 });
    const a = await ledger.reserve({ requestId: `race-a-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 100 });
    // b reserves the key's last 100 in a transaction of its own (another batch, of this instance or another), holding
    // the key's row while a's settlement, which leaves nothing, runs.
    const b = { requestId: `race-b-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 100 };
    let settledA: Promise<number | undefined> | undefined;
    await storage.db.transaction().execute(async (trx) => {
      await trx.updateTable('tokens').set({ remain_quota: sql`remain_quota - 100` }).where('id', '=', token.id).execute();
      await trx.updateTable('users').set({ quota: sql`quota - 100` }).where('id', '=', userId).execute();
      await trx.insertInto('quota_reservations').values({ request_id: b.requestId, user_id: userId, token_id: token.id, amount: 100, charged: 0, status: 'open', created_at: 1, settled_at: 0 }).execute();
      settledA = ledger.settle(a, { cost: 100, channelId: 0 });
      // SQLite has one writer: a's settlement waits for this transaction as a whole. Elsewhere it waits on the key's row.
      if (storage.dialect !== 'sqlite') await waitForLockWait(storage);
    });
    expect(await settledA).toBe(100);
    // Whether or not a's statement saw b's reservation (PostgreSQL's does not: it decides from rows as they were when
    // it began), b's refund leaves the key enabled with what it gave back.
    expect(await ledger.settle(b, { cost: 10, channelId: 0 })).toBe(10);
    expect((await balances(token.id)).token).toMatchObject({ remain_quota: 90, status: 1 });
  });

  it('reports a user whose quota a settlement took below the reminder threshold, once, after the commit', async () => {
    const crossed: Array<[number, number]> = [];
    const watched = new QuotaLedger(storage, { lowQuota: { threshold: () => 1000, crossed: (id, quota) => crossed.push([id, quota]) } });
    const low = await seedUser(storage, 'lowuser', 1500, 'LOW1');
    const token = await seedToken(storage, low, { unlimited: true });
    const spend = async (n: string, cost: number) => {
      const r = await watched.reserve({ requestId: `low-${n}-${token.id}`, userId: low, tokenId: token.id, unlimited: true, amount: 100 });
      await watched.settle(r, { cost, channelId: 0 });
    };
    await spend('a', 400); // 1500 -> 1100: still above
    expect(crossed).toEqual([]);
    await spend('b', 300); // 1100 -> 800: crossed
    expect(crossed).toEqual([[low, 800]]);
    await spend('c', 100); // 800 -> 700: already below, not again
    expect(crossed).toEqual([[low, 800]]);
  });
});

/** Resolves once some connection of the test's database waits for a row lock (PostgreSQL), or runs a statement on tokens (MySQL). */
async function waitForLockWait(storage: Storage): Promise<void> {
  const query =
    storage.dialect === 'postgres'
      ? sql<{ n: number }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`
      : // (MariaDB's innodb_trx does not say LOCK WAIT for a locking read the optimizer makes: any statement on tokens under way.)
        sql<{ n: number }>`select count(*) as n from information_schema.processlist where db = database() and command = 'Query' and info like '%tokens%' and info not like '%processlist%'`;
  for (const started = Date.now(); Date.now() - started < 30_000; await new Promise((r) => setTimeout(r, 5))) {
    const { rows } = await query.execute(storage.db);
    if (Number(rows[0]?.n) > 0) return;
  }
  throw new Error('no statement came to wait for the row lock');
}
