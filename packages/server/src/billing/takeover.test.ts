import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptionStore } from '../options/option-store.js';
import type { Storage } from '../storage/database.js';
import { OptionsRepository } from '../storage/repositories/options.js';
import { testDatabases } from '../test-support/databases.js';
import { seedToken, seedUser } from '../test-support/seed.js';
import { QuotaLedger } from './ledger.js';
import { Takeover } from './takeover.js';

describe.each(testDatabases())('crash takeover on $name', (database) => {
  let storage: Storage & { drop(): Promise<void> };
  let options: OptionStore;
  let userId: number;
  const alive = new Set(['survivor', 'busy']);
  const isAlive = async (id: string) => alive.has(id);

  beforeAll(async () => {
    storage = await database.open();
    options = new OptionStore(new OptionsRepository(storage.db));
    await options.load();
    await options.set('ModelRatio', JSON.stringify({ 'gpt-4o-mini': 0.075 }));
    await options.set('CompletionRatio', JSON.stringify({ 'gpt-4o-mini': 4 }));
    userId = await seedUser(storage, 'victim', 100_000, 'VIC1');
  });
  afterAll(async () => {
    await storage?.drop();
  });

  const state = async (tokenId: number) => ({
    user: await storage.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow(),
    token: await storage.db.selectFrom('tokens').selectAll().where('id', '=', tokenId).executeTakeFirstOrThrow(),
    logs: await storage.db.selectFrom('logs').selectAll().where('token_id', '=', tokenId).execute(),
    open: await storage.db.selectFrom('quota_reservations').selectAll().where('token_id', '=', tokenId).execute(),
  });

  it("settles a dead instance's reservations: what it delivered is charged, the rest refunded, each logged, once", async () => {
    const token = await seedToken(storage, userId, { remain_quota: 10_000 });
    const before = await state(token.id);
    const dead = new QuotaLedger(storage, { instanceId: 'dead' });
    const streaming = await dead.reserve({ requestId: `tk-stream-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 2_000, model: 'gpt-4o-mini', promptEstimate: 100, stream: true });
    const silent = await dead.reserve({ requestId: `tk-silent-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 1_500, model: 'gpt-4o-mini' });
    dead.progress({ requestId: streaming.requestId, channelId: 7, deliveredChars: 1_000 });
    await dead.drain();
    const busy = new QuotaLedger(storage, { instanceId: 'busy' });
    await busy.reserve({ requestId: `tk-busy-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 500 });
    expect((await state(token.id)).token.remain_quota).toBe(10_000 - 4_000);

    const survivor = new QuotaLedger(storage, { instanceId: 'survivor' });
    const takeover = new Takeover(storage.db, survivor, options, isAlive);
    expect(await takeover.run()).toBe(2);
    // 1,000 characters delivered ~ 380 tokens; prompt 100: ceil((100 + 380 x 4) x 0.075) = 122
    const after = await state(token.id);
    expect(after.logs.map((l) => [l.request_id, Number(l.quota)]).sort()).toEqual([
      [`tk-silent-${token.id}`, 0],
      [`tk-stream-${token.id}`, 122],
    ]);
    expect(after.logs.find((l) => l.request_id === `tk-stream-${token.id}`)).toMatchObject({ channel_id: 7, prompt_tokens: 100, completion_tokens: 380, is_stream: 1 });
    expect(after.logs.find((l) => l.request_id === `tk-silent-${token.id}`)?.content).toContain('已全额退还');
    // the busy (live) instance's reservation is untouched
    expect(after.open.map((r) => r.request_id)).toEqual([`tk-busy-${token.id}`]);
    expect(after.token.remain_quota).toBe(10_000 - 500 - 122);
    expect(after.user.quota).toBe(before.user.quota - 500 - 122);

    // the dead instance comes back and settles: nothing happens twice
    expect(await dead.settle(streaming, { cost: 50, channelId: 0 })).toBeUndefined();
    expect(await dead.settle(silent, { cost: 50, channelId: 0 })).toBeUndefined();
    expect(await takeover.run()).toBe(0);
    expect((await state(token.id)).token.remain_quota).toBe(10_000 - 500 - 122);
  });

  it('never charges a takeover more than was reserved', async () => {
    const token = await seedToken(storage, userId, { remain_quota: 10_000 });
    const dead = new QuotaLedger(storage, { instanceId: 'dead2' });
    const r = await dead.reserve({ requestId: `tk-big-${token.id}`, userId, tokenId: token.id, unlimited: false, amount: 50, model: 'gpt-4o-mini', promptEstimate: 10, stream: true });
    dead.progress({ requestId: r.requestId, channelId: 1, deliveredChars: 100_000 });
    await dead.drain();
    await new Takeover(storage.db, new QuotaLedger(storage, { instanceId: 'survivor' }), options, isAlive).run();
    const after = await state(token.id);
    expect(after.logs[0].quota).toBe(50);
    expect(after.token.remain_quota).toBe(10_000 - 50);
  });
});
