import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptionStore } from '../options/option-store.js';
import type { Storage } from '../storage/database.js';
import { OptionsRepository } from '../storage/repositories/options.js';
import { testDatabases } from '../test-support/databases.js';
import { seedToken, seedUser } from '../test-support/seed.js';
import { InsufficientQuotaError, QuotaLedger, type Reservation, type Settlement } from './ledger.js';
import { IDLE_MS, isSlice } from './ledger-slices.js';
import { Takeover } from './takeover.js';

/**
 * Balance slices (ledger-slices.ts, issue 17 item 5): a busy key's requests reserve from a slice of the balances the
 * instance holds, in memory, and the money still adds up to the unit: logs, counters, rollups and balances agree once
 * the slices are back, whether they come back on their own, on drain, through a takeover or a recall.
 */
describe.each(testDatabases())('balance slices on $name', (database) => {
  let storage: Storage & { drop(): Promise<void> };
  let options: OptionStore;
  let serial = 0;

  beforeAll(async () => {
    storage = await database.open();
    options = new OptionStore(new OptionsRepository(storage.db));
    await options.load();
  });
  afterAll(async () => {
    await storage?.drop();
  });

  async function payer(quota: number, key: { remain_quota?: number; unlimited?: boolean }) {
    serial++;
    const userId = await seedUser(storage, `slicer${serial}`, quota, `SLICE${serial}`);
    const token = await seedToken(storage, userId, key);
    return { userId, tokenId: token.id, unlimited: key.unlimited === true };
  }

  const state = async (userId: number, tokenId: number) => ({
    user: await storage.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow(),
    token: await storage.db.selectFrom('tokens').selectAll().where('id', '=', tokenId).executeTakeFirstOrThrow(),
    logs: await storage.db.selectFrom('logs').selectAll().where('token_id', '=', tokenId).execute(),
    rollups: await storage.db.selectFrom('usage_rollups').selectAll().where('token_id', '=', tokenId).execute(),
    open: await storage.db.selectFrom('quota_reservations').selectAll().where('token_id', '=', tokenId).execute(),
  });

  type Payer = Awaited<ReturnType<typeof payer>>;
  /** A relay request's reservation as the meter asks for it (balances as last read: the seeded ones). */
  const reserve = (ledger: QuotaLedger, p: Payer, amount: number, balances: { user: number; key: number }) =>
    ledger.reserve({ requestId: `req-${++serial}`, userId: p.userId, tokenId: p.tokenId, unlimited: p.unlimited, amount, model: 'm', stream: false, sliceable: { userQuota: balances.user, keyQuota: balances.key } });

  const settlement = (p: Payer, cost: number, requestId: string): Settlement => ({
    cost,
    channelId: 0,
    usage: { model: 'm', promptTokens: 10, completionTokens: 5, cachedTokens: 0, reasoningTokens: 0, latencyMs: 3, failed: false },
    log: { user_id: p.userId, username: 'slicer', created_at: 1, token_id: p.tokenId, model_name: 'm', request_id: requestId },
  });

  /** Reservations enough for a busy key (more than 32 in a second), until the ledger holds a slice for it. */
  async function untilSliced(ledger: QuotaLedger, p: Payer, amount: number, balances: { user: number; key: number }): Promise<Reservation[]> {
    const taken: Reservation[] = [];
    for (let i = 0; i < 200 && ledger.slices.size === 0; i++) {
      taken.push(...(await Promise.all(Array.from({ length: 8 }, () => reserve(ledger, p, amount, balances)))));
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(ledger.slices.size).toBeGreaterThan(0);
    return taken;
  }

  async function expectWhole(p: Payer, initial: { user: number; key: number }, requests: number) {
    const s = await state(p.userId, p.tokenId);
    const charged = s.logs.reduce((sum, log) => sum + Number(log.quota), 0);
    expect(s.open).toEqual([]);
    expect(s.logs).toHaveLength(requests);
    expect(s.user.quota).toBe(initial.user - charged);
    expect(s.user.used_quota).toBe(charged);
    expect(s.user.request_count).toBe(requests);
    expect(s.token.used_quota).toBe(charged);
    expect(s.token.request_count).toBe(requests);
    if (!p.unlimited) expect(s.token.remain_quota).toBe(initial.key - charged);
    expect(s.rollups.reduce((sum, r) => sum + Number(r.quota), 0)).toBe(charged);
    expect(s.rollups.reduce((sum, r) => sum + Number(r.requests), 0)).toBe(requests);
    return charged;
  }

  it("a busy key's requests reserve from a slice with no row of their own; logs, counters, rollups and balances agree after drain", async () => {
    const initial = { user: 50_000_000, key: 20_000_000 };
    const p = await payer(initial.user, { remain_quota: initial.key });
    const ledger = new QuotaLedger(storage, { instanceId: 'slices-a' });
    const first = await untilSliced(ledger, p, 1_000, initial);
    // The slice is one reservation row of the key, at most an eighth of its balance.
    const [slice] = (await state(p.userId, p.tokenId)).open.filter((r) => isSlice(r.request_id));
    expect(Number(slice.amount)).toBeLessThanOrEqual(initial.key / 8);
    expect(Number(slice.amount)).toBeGreaterThanOrEqual(16_000);
    const sliced = await Promise.all(Array.from({ length: 12 }, () => reserve(ledger, p, 1_000, initial)));
    expect(sliced.every((r) => r.slice !== undefined)).toBe(true);
    const rows = (await state(p.userId, p.tokenId)).open.map((r) => r.request_id);
    for (const r of sliced) expect(rows).not.toContain(r.requestId);
    const all = [...first, ...sliced];
    const charged = await Promise.all(all.map((r, i) => ledger.settle(r, settlement(p, 17 + (i % 5), r.requestId))));
    expect(charged).toEqual(all.map((_, i) => 17 + (i % 5)));
    // A settlement is claimed once, sliced or not.
    expect(await ledger.settle(first[0], settlement(p, 17, first[0].requestId))).toBeUndefined();
    await ledger.drain();
    expect(ledger.slices.size).toBe(0);
    await expectWhole(p, initial, all.length);
  });

  it('a slice nobody reserves from goes back by itself', async () => {
    const initial = { user: 80_000_000, key: 0 };
    const p = await payer(initial.user, { unlimited: true });
    const ledger = new QuotaLedger(storage, { instanceId: 'slices-idle' });
    const taken = await untilSliced(ledger, p, 500, initial);
    const sliced = await reserve(ledger, p, 500, initial);
    expect(sliced.slice).toBeDefined();
    await Promise.all([...taken, sliced].map((r) => ledger.settle(r, settlement(p, 3, r.requestId))));
    const deadline = Date.now() + IDLE_MS + 5_000;
    while (ledger.slices.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(ledger.slices.size).toBe(0);
    await ledger.drain();
    await expectWhole(p, initial, taken.length + 1);
  });

  it("a cost beyond what a request held is paid from its slice's free part, beyond that from the balances", async () => {
    const initial = { user: 40_000_000, key: 10_000_000 };
    const p = await payer(initial.user, { remain_quota: initial.key });
    const ledger = new QuotaLedger(storage, { instanceId: 'slices-extra' });
    const taken = await untilSliced(ledger, p, 1_000, initial);
    const over = await reserve(ledger, p, 1_000, initial);
    expect(over.slice).toBeDefined();
    expect(await ledger.settle(over, settlement(p, 4_321, over.requestId))).toBe(4_321);
    await Promise.all(taken.map((r) => ledger.settle(r, settlement(p, 5, r.requestId))));
    await ledger.drain();
    const charged = await expectWhole(p, initial, taken.length + 1);
    expect(charged).toBe(4_321 + 5 * taken.length);
  });

  it('a slice taken over while its instance looked dead: later settlements are charged to the balances, nothing twice', async () => {
    const initial = { user: 30_000_000, key: 9_000_000 };
    const p = await payer(initial.user, { remain_quota: initial.key });
    const frozen = new QuotaLedger(storage, { instanceId: 'slices-frozen' });
    const taken = await untilSliced(frozen, p, 1_000, initial);
    const held = await reserve(frozen, p, 1_000, initial);
    expect(held.slice).toBeDefined();
    // Another instance took this one for dead and gave its slice back.
    const survivor = new QuotaLedger(storage, { instanceId: 'slices-survivor' });
    expect(await new Takeover(storage.db, survivor, options, async (id) => id !== 'slices-frozen').run()).toBeGreaterThanOrEqual(1);
    expect((await state(p.userId, p.tokenId)).open.filter((r) => isSlice(r.request_id))).toEqual([]);
    // The frozen instance comes back and settles what it served.
    expect(await frozen.settle(held, settlement(p, 77, held.requestId))).toBe(77);
    await Promise.all(taken.map((r) => frozen.settle(r, settlement(p, 7, r.requestId))));
    await frozen.drain();
    // Its rows were taken over (refunded, logged as interrupted): the ones it settles itself find them gone.
    const s = await state(p.userId, p.tokenId);
    expect(s.open).toEqual([]);
    const consumed = s.logs.filter((log) => log.type === 2);
    const charged = consumed.reduce((sum, log) => sum + Number(log.quota), 0);
    expect(s.user.quota).toBe(initial.user - charged);
    expect(s.token.remain_quota).toBe(initial.key - charged);
    expect(s.user.used_quota).toBe(charged);
    expect(consumed.map((log) => log.request_id)).toContain(held.requestId);
  });

  it("a dead instance's slices go back whole with no log row; a request of it that had moved to its own row is charged what it delivered", async () => {
    await options.set('ModelRatio', JSON.stringify({ m: 1 }));
    const initial = { user: 30_000_000, key: 9_000_000 };
    const p = await payer(initial.user, { remain_quota: initial.key });
    const dead = new QuotaLedger(storage, { instanceId: 'slices-dead' });
    const taken = await untilSliced(dead, p, 2_000, initial);
    await Promise.all(taken.map((r) => dead.settle(r, settlement(p, 11, r.requestId))));
    const streaming = await reserve(dead, p, 2_000, initial);
    const silent = await reserve(dead, p, 2_000, initial);
    expect(streaming.slice).toBeDefined();
    expect(silent.slice).toBeDefined();
    const promoted = await dead.promote(streaming as Reservation & { slice: string }, { model: 'm', promptEstimate: 40, stream: true }, { requestId: streaming.requestId, channelId: 3, deliveredChars: 400 });
    expect(promoted.slice).toBeUndefined();
    expect(promoted.amount).toBe(2_000);
    // Committed what it settled, then died (no drain: its slice stays out).
    await new Promise((r) => setTimeout(r, 200));
    const row = (await state(p.userId, p.tokenId)).open.find((r) => r.request_id === streaming.requestId);
    expect(Number(row?.delivered_chars)).toBe(400);

    const survivor = new QuotaLedger(storage, { instanceId: 'slices-after' });
    await new Takeover(storage.db, survivor, options, async (id) => id !== 'slices-dead').run();
    await survivor.drain();
    const s = await state(p.userId, p.tokenId);
    expect(s.open).toEqual([]);
    const interrupted = s.logs.filter((log) => String(log.content).includes('实例中断'));
    expect(interrupted.map((log) => log.request_id)).toEqual([streaming.requestId]);
    expect(Number(interrupted[0].quota)).toBeGreaterThan(0);
    expect(Number(interrupted[0].quota)).toBeLessThanOrEqual(2_000);
    const charged = s.logs.reduce((sum, log) => sum + Number(log.quota), 0);
    expect(s.user.quota).toBe(initial.user - charged);
    expect(s.token.remain_quota).toBe(initial.key - charged);
    expect(s.logs.filter((log) => isSlice(String(log.request_id)))).toEqual([]);
  });

  it('a key made limited while its slice is out: the slice goes back as it was taken, and the limit holds from then on', async () => {
    const initial = { user: 50_000_000, key: 3_000 };
    const p = await payer(initial.user, { unlimited: true });
    await storage.db.updateTable('tokens').set({ remain_quota: initial.key }).where('id', '=', p.tokenId).execute();
    const ledger = new QuotaLedger(storage, { instanceId: 'slices-switch' });
    const taken = await untilSliced(ledger, p, 1_000, initial);
    const sliced = await reserve(ledger, p, 1_000, initial);
    expect(sliced.slice).toBeDefined();
    // The admin limits the key to 3,000: the next requests are held against it, never in the unlimited slice.
    await storage.db.updateTable('tokens').set({ unlimited_quota: 0 }).where('id', '=', p.tokenId).execute();
    const limited = { ...p, unlimited: false };
    const next = await reserve(ledger, limited, 1_000, initial);
    expect(next.slice).toBeUndefined();
    await expect(ledger.reserve({ requestId: `over-${++serial}`, userId: p.userId, tokenId: p.tokenId, unlimited: false, amount: 2_500, sliceable: { userQuota: initial.user, keyQuota: initial.key } })).rejects.toBeInstanceOf(InsufficientQuotaError);
    await Promise.all([...taken, sliced].map((r) => ledger.settle(r, settlement(p, 4, r.requestId))));
    await ledger.settle(next, settlement(limited, 6, next.requestId));
    await ledger.drain();
    const s = await state(p.userId, p.tokenId);
    const charged = s.logs.reduce((sum, log) => sum + Number(log.quota), 0);
    expect(charged).toBe(4 * (taken.length + 1) + 6);
    expect(s.open).toEqual([]);
    expect(s.user.quota).toBe(initial.user - charged);
    // Only the request held against the limit came off the key.
    expect(s.token.remain_quota).toBe(initial.key - 6);
  });

  it('takes no slice for a balance an eighth of which cannot cover a few requests, nor without sliceable', async () => {
    // An eighth of 30,000 is 3,750: fewer than four requests of 1,000.
    const initial = { user: 30_000, key: 30_000 };
    const p = await payer(initial.user, { remain_quota: initial.key });
    const ledger = new QuotaLedger(storage, { instanceId: 'slices-small' });
    for (let i = 0; i < 48; i++) {
      const r = await reserve(ledger, p, 1_000, initial);
      expect(r.slice).toBeUndefined();
      await ledger.settle(r, settlement(p, 2, r.requestId));
    }
    expect(ledger.slices.size).toBe(0);
    const rich = await payer(90_000_000, { unlimited: true });
    const plain = await Promise.all(Array.from({ length: 64 }, () => ledger.reserve({ requestId: `plain-${++serial}`, userId: rich.userId, tokenId: rich.tokenId, unlimited: true, amount: 100 })));
    expect(ledger.slices.size).toBe(0);
    await Promise.all(plain.map((r) => ledger.settle(r, { cost: 1, channelId: 0 })));
    await ledger.drain();
  });

  it("before a refusal, the slices of the user's balance another instance holds are recalled", async () => {
    const initial = { user: 8_000_000, key: 0 };
    const p = await payer(initial.user, { unlimited: true });
    const a = new QuotaLedger(storage, { instanceId: 'slices-holder', announce: (event) => b.slices.changed(event) });
    const b: QuotaLedger = new QuotaLedger(storage, { instanceId: 'slices-asker', announce: (event) => a.slices.changed(event) });
    const taken = await untilSliced(a, p, 1_000, initial);
    await Promise.all(taken.map((r) => a.settle(r, settlement(p, 1, r.requestId))));
    await new Promise((r) => setTimeout(r, 100));
    const inSlice = (await state(p.userId, p.tokenId)).open.filter((r) => isSlice(r.request_id)).reduce((sum, r) => sum + Number(r.amount), 0);
    expect(inSlice).toBeGreaterThan(0);
    const balance = Number((await state(p.userId, p.tokenId)).user.quota);
    // More than the database's balance, less than the balance and the slice together.
    const amount = balance + Math.floor(inSlice / 2);
    await expect(b.reserve({ requestId: `recall-${++serial}`, userId: p.userId, tokenId: p.tokenId, unlimited: true, amount })).rejects.toBeInstanceOf(InsufficientQuotaError);
    expect(await b.recall(p.userId)).toBe(true);
    const granted = await b.reserve({ requestId: `recall-${++serial}`, userId: p.userId, tokenId: p.tokenId, unlimited: true, amount });
    expect(granted.amount).toBe(amount);
    await b.settle(granted, settlement(p, 100, granted.requestId));
    await a.drain();
    await b.drain();
    await expectWhole(p, initial, taken.length + 1);
  });
});
