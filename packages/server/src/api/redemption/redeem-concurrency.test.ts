import { LogType, RedemptionStatus } from '@model-relay/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OptionStore } from '../../options/option-store.js';
import { RelayCache } from '../../storage/relay-cache.js';
import { LogsRepository } from '../../storage/repositories/logs.js';
import { OptionsRepository } from '../../storage/repositories/options.js';
import { RedemptionsRepository } from '../../storage/repositories/redemptions.js';
import type { Storage } from '../../storage/database.js';
import { testDatabases } from '../../test-support/databases.js';
import { seedUser } from '../../test-support/seed.js';
import type { Caller } from '../../auth/caller.js';
import { RedemptionService } from './redemption-service.js';

const REDEEMERS = 30;
const admin: Caller = { id: 1, role: 100, username: 'root' };

describe.each(testDatabases())('redeeming on $name', (database) => {
  let storage: Storage & { drop(): Promise<void> };
  let service: RedemptionService;
  let callers: Caller[];
  let cache: RelayCache;

  beforeAll(async () => {
    storage = await database.open();
    const options = new OptionStore(new OptionsRepository(storage.db));
    await options.load();
    cache = new RelayCache(60_000);
    service = new RedemptionService(new RedemptionsRepository(storage.db, new LogsRepository(storage.db, storage.dialect), cache), options);
    callers = [];
    for (let i = 0; i < REDEEMERS; i++) {
      const username = `buyer${i}`;
      const id = await seedUser(storage, username, 0, `aff${i}`, { display_name: username });
      callers.push({ id, role: 1, username });
    }
  }, 60_000);
  afterAll(async () => {
    await storage?.drop();
  });

  const quotas = async () => Object.fromEntries((await storage.db.selectFrom('users').select(['id', 'quota']).execute()).map((u) => [u.id, Number(u.quota)]));
  const topUpLogs = () => storage.db.selectFrom('logs').selectAll().where('type', '=', LogType.TopUp).execute();

  // covers S7-API-20
  it(`one code, ${REDEEMERS} users redeeming it at the same moment: exactly one is credited, once, with one top-up log`, async () => {
    const [key] = await service.create(admin, { name: 'race', quota: 5_000_000, count: 1 });
    const before = await quotas();
    const results = await Promise.allSettled(callers.map((caller) => service.redeem(caller, { key })));

    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [{ caller: callers[i], quota: r.value }] : []));
    expect(won).toHaveLength(1);
    expect(won[0].quota).toBe(5_000_000);
    const losers = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(losers).toHaveLength(REDEEMERS - 1);
    expect(new Set(losers.map((r) => (r.reason as Error).message))).toEqual(new Set(['该兑换码已被使用']));

    const after = await quotas();
    for (const caller of callers) expect(after[caller.id] - before[caller.id]).toBe(caller.id === won[0].caller.id ? 5_000_000 : 0);
    const code = await storage.db.selectFrom('redemptions').selectAll().where('key', '=', key).executeTakeFirstOrThrow();
    expect(code.status).toBe(RedemptionStatus.Used);
    expect(Number(code.used_user_id)).toBe(won[0].caller.id);
    expect(Number(code.redeemed_time)).toBeGreaterThan(0);
    const logs = (await topUpLogs()).filter((l) => l.content.includes(`兑换码 ID ${code.id}`));
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ user_id: won[0].caller.id, username: won[0].caller.username, type: LogType.TopUp });
    expect(Number(logs[0].quota)).toBe(5_000_000);
    expect(logs[0].content).toBe(`通过兑换码充值 $10.00，兑换码 ID ${code.id}`);
  }, 60_000);

  it('many codes, every user racing for every code, one user also racing itself: each code credits exactly once', async () => {
    const keys = await service.create(admin, { name: 'storm', quota: 1000, count: 5 });
    const before = await quotas();
    const logsBefore = (await topUpLogs()).length;
    const attempts = keys.flatMap((key) => [...callers, callers[0], callers[0]].map((caller) => ({ caller, key })));
    const results = await Promise.allSettled(attempts.map(({ caller, key }) => service.redeem(caller, { key })));

    const wins = attempts.filter((_, i) => results[i].status === 'fulfilled');
    expect(wins.map((w) => w.key).sort()).toEqual([...keys].sort());
    const after = await quotas();
    const gained = callers.reduce((sum, c) => sum + after[c.id] - before[c.id], 0);
    expect(gained).toBe(5 * 1000);
    for (const caller of callers) expect(after[caller.id] - before[caller.id]).toBe(1000 * wins.filter((w) => w.caller.id === caller.id).length);
    expect((await topUpLogs()).length - logsBefore).toBe(5);
    const rows = await storage.db.selectFrom('redemptions').selectAll().where('name', '=', 'storm').execute();
    expect(rows.every((r) => r.status === RedemptionStatus.Used)).toBe(true);
  }, 60_000);

  it('a disabled or unknown code credits nothing; the relay\'s cached copy of the user is dropped after a credit', async () => {
    const [disabled, fresh] = await service.create(admin, { name: 'misc', quota: 500, count: 2 });
    const id = (await storage.db.selectFrom('redemptions').select('id').where('key', '=', disabled).executeTakeFirstOrThrow()).id;
    await service.setStatus({ id, status: RedemptionStatus.Disabled });
    const caller = callers[1];
    const before = (await quotas())[caller.id];
    await expect(service.redeem(caller, { key: disabled })).rejects.toThrow('该兑换码已被禁用');
    await expect(service.redeem(caller, { key: 'f'.repeat(32) })).rejects.toThrow('无效的兑换码');
    await expect(service.redeem(caller, { key: '   ' })).rejects.toThrow('请输入兑换码！');
    expect((await quotas())[caller.id]).toBe(before);

    let loads = 0;
    const load = async () => (loads++, storage.db.selectFrom('users').selectAll().where('id', '=', caller.id).executeTakeFirst());
    expect(Number((await cache.user(caller.id, load))?.quota)).toBe(before);
    expect(await service.redeem(caller, { key: fresh })).toBe(500);
    expect(Number((await cache.user(caller.id, load))?.quota)).toBe(before + 500);
    expect(loads).toBe(2);
  }, 60_000);
});
