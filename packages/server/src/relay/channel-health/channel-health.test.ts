import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';
import { startMockUpstream, type MockUpstream } from '../../test-support/mock-openai.js';
import { seedChannel } from '../../test-support/seed.js';
import { sendJson, startMockServer } from '../../test-support/upstreams/mock-server.js';
import { queryBalance } from './query-balance.js';
import { MemorySharedStore } from '../../cluster/shared-store.js';
import { ChannelTestRunner } from './test-all.js';
import { testChannel, type ChannelHealthDeps } from './test-channel.js';

let t: TestApp;
let mock: MockUpstream;
let deps: ChannelHealthDeps;

const channel = async (id: number) => t.ctx.storage.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp();
  deps = { store: t.ctx.relay.store, options: t.ctx.options, pools: t.ctx.relay.pools, notifier: t.ctx.notifier, credentials: t.ctx.relay.credentials };
});
afterAll(async () => {
  await t.close();
  await mock.close();
});
beforeEach(async () => {
  await t.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
  await t.ctx.options.set('AutomaticEnableChannelEnabled', 'false');
  mock.requests.length = 0;
});

describe('channel test', () => {
  it('tests with the first model of the channel, stores response and test time', async () => {
    const id = await seedChannel(t.ctx.storage, { name: 'test-ok', key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini,gpt-4o' });
    const result = await testChannel(deps, await channel(id));
    expect(result).toMatchObject({ success: true, model: 'gpt-4o-mini' });
    expect(result.time).toBeGreaterThanOrEqual(0);
    expect(mock.requests[0].body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 5 });
    const row = await channel(id);
    expect(row.test_time).toBeGreaterThan(0);
    const withModel = await testChannel(deps, row, 'gpt-4o');
    expect(withModel.model).toBe('gpt-4o');
  });

  it('auto-disables a dead key and auto-enables on a later success, with a system log each time', async () => {
    await t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    await t.ctx.options.set('AutomaticEnableChannelEnabled', 'true');
    const id = await seedChannel(t.ctx.storage, { name: 'flaky', key: 'fail-401', baseUrl: mock.url, models: 'gpt-4o-mini' });
    expect((await testChannel(deps, await channel(id))).success).toBe(false);
    expect((await channel(id)).status).toBe(3);
    const abilities = await t.ctx.storage.db.selectFrom('abilities').selectAll().where('channel_id', '=', id).execute();
    expect(abilities.every((a) => a.enabled === 0)).toBe(true);
    await t.ctx.storage.db.updateTable('channels').set({ key: 'ok' }).where('id', '=', id).execute();
    expect((await testChannel(deps, await channel(id))).success).toBe(true);
    expect((await channel(id)).status).toBe(1);
    const notes = await t.ctx.storage.db.selectFrom('logs').select('content').where('type', '=', 4).execute();
    expect(notes.map((n) => n.content).join('\n')).toMatch(/flaky.*自动禁用[\s\S]*flaky.*自动启用/);
  });

  it('disables a channel slower than ChannelDisableThreshold', async () => {
    await t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    await t.ctx.options.set('ChannelDisableThreshold', '0.1');
    const id = await seedChannel(t.ctx.storage, { name: 'laggy', key: 'lag', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const result = await testChannel(deps, await channel(id));
    expect(result.success).toBe(true);
    expect((await channel(id)).status).toBe(3);
    await t.ctx.options.set('ChannelDisableThreshold', '5');
  });

  it('leaves a manually disabled channel alone', async () => {
    await t.ctx.options.set('AutomaticEnableChannelEnabled', 'true');
    const id = await seedChannel(t.ctx.storage, { name: 'manual', key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    await t.ctx.relay.store.setChannelStatus(id, 2);
    await testChannel(deps, await channel(id));
    expect((await channel(id)).status).toBe(2);
  });

  it('test all runs once at a time in the background', async () => {
    const runner = new ChannelTestRunner(deps);
    expect(await runner.start('all')).toBe(true);
    expect(await runner.start('all')).toBe(false);
    await runner.idle();
    expect(runner.isRunning).toBe(false);
    expect(mock.requests.length).toBeGreaterThan(0);
  });

  it('two instances sharing one store: only one runs test all, and both report its progress', async () => {
    const shared = new MemorySharedStore();
    const a = new ChannelTestRunner(deps, shared);
    const b = new ChannelTestRunner(deps, shared);
    expect(await a.start('all')).toBe(true);
    expect(await b.start('disabled')).toBe(false);
    expect(await b.progress()).toMatchObject({ running: true, scope: 'all' });
    await a.idle();
    const done = await b.progress();
    expect(done).toMatchObject({ running: false, scope: 'all' });
    expect(done.done).toBe(done.total);
    expect(done.total).toBeGreaterThan(0);
    // The lock is released at the end: the other instance may run now.
    expect(await b.start('disabled')).toBe(true);
    await b.idle();
  });
});

describe('balance', () => {
  it('OpenAI: hard limit minus usage in dollars', async () => {
    const id = await seedChannel(t.ctx.storage, { name: 'bal-openai', type: 1, key: 'ok', baseUrl: mock.url, models: 'gpt-4o' });
    expect(await queryBalance(t.ctx.relay.pools, await channel(id))).toBeCloseTo(120 - 20.5);
  });
  it('credit_grants types read total_available', async () => {
    const id = await seedChannel(t.ctx.storage, { name: 'bal-closeai', type: 4, key: 'ok', baseUrl: mock.url, models: 'gpt-4o' });
    expect(await queryBalance(t.ctx.relay.pools, await channel(id))).toBe(33.5);
  });
  it('Moonshot: available_balance of /v1/users/me/balance; a SiliconFlow-style custom channel: data.totalBalance of /v1/user/info', async () => {
    const vendor = await startMockServer((_req, res, recorded) => {
      if (recorded.headers.authorization !== 'Bearer ok') return sendJson(res, 401, { error: { message: 'bad key' } });
      if (recorded.path === '/v1/users/me/balance') return sendJson(res, 200, { code: 0, data: { available_balance: 49.58894, voucher_balance: 46.58893, cash_balance: 3.00001 }, scode: '0x0', status: true });
      if (recorded.path === '/v1/user/info') return sendJson(res, 200, { code: 20000, message: 'OK', status: true, data: { id: 'u1', balance: '0.88', chargeBalance: '88.00', totalBalance: '88.88' } });
      return sendJson(res, 404, { error: { message: 'not found' } });
    });
    try {
      const moonshot = await seedChannel(t.ctx.storage, { name: 'bal-moonshot', type: 25, key: 'ok', baseUrl: vendor.url, models: 'moonshot-v1-8k' });
      expect(await queryBalance(t.ctx.relay.pools, await channel(moonshot))).toBeCloseTo(49.58894);
      const custom = await seedChannel(t.ctx.storage, { name: 'bal-siliconflow', type: 8, key: 'ok', baseUrl: vendor.url, models: 'Qwen/Qwen2.5-7B-Instruct' });
      expect(await queryBalance(t.ctx.relay.pools, await channel(custom))).toBeCloseTo(88.88);
    } finally {
      await vendor.close();
    }
  });
  it('refuses types without a balance endpoint', async () => {
    const id = await seedChannel(t.ctx.storage, { name: 'bal-none', type: 14, key: 'ok', baseUrl: mock.url, models: 'claude' });
    await expect(queryBalance(t.ctx.relay.pools, await channel(id))).rejects.toThrow('不支持');
  });
});
