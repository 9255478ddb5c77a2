import { pricesPerMillion, type PricingModel } from '@model-relay/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import { seedChannel } from '../../test-support/seed.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

let t: TestApp;
let root: string;
let vip: string;

beforeAll(async () => {
  t = await createTestApp();
  root = await t.login('root', '123456');
  const set = async (key: string, value: string) => expect((await t.call({ method: 'PUT', url: '/api/option/', cookie: root, payload: { key, value } })).body.success).toBe(true);
  await set('ModelRatio', '{"gpt-4o":1.25,"claude-sonnet-4-5":1.5,"vip-model":2}');
  await set('CompletionRatio', '{"gpt-4o":4,"claude-sonnet-4-5":5}');
  await set('GroupRatio', '{"default":1,"vip":0.5}');
  await set('CacheReadRatio', '{"gpt-4o":0.5}');
  await seedChannel(t.ctx.storage, { name: 'a', key: 'k1', baseUrl: 'http://127.0.0.1:1', models: 'gpt-4o,claude-sonnet-4-5,mystery-model' });
  await seedChannel(t.ctx.storage, { name: 'b', key: 'k2', baseUrl: 'http://127.0.0.1:1', models: 'gpt-4o,vip-model', group: 'vip' });
  const off = await seedChannel(t.ctx.storage, { name: 'c', key: 'k3', baseUrl: 'http://127.0.0.1:1', models: 'retired-model' });
  await t.ctx.storage.db.updateTable('abilities').set({ enabled: 0 }).where('channel_id', '=', off).execute();
  await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'vera', password: 'password123' } });
  await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id: (await t.ctx.repositories.users.findByUsername('vera'))!.id, group: 'vip' } });
  vip = await t.login('vera', 'password123');
});
afterAll(async () => {
  await t.close();
});

const pricing = async (cookie?: string, headers: Record<string, string> = {}) => (await t.call({ method: 'GET', url: '/api/pricing', cookie, headers })).body;
const byName = (data: PricingModel[]) => Object.fromEntries(data.map((m) => [m.model_name, m]));

describe('GET /api/pricing', () => {
  it("visitors get the default group's models in new-api's shape, with the ratios billing applies (family cache defaults included)", async () => {
    const body = await pricing();
    expect(body).toMatchObject({ success: true, group_ratio: { default: 1 }, usable_group: { default: '默认分组' } });
    expect(body.data.map((m: PricingModel) => m.model_name)).toEqual(['claude-sonnet-4-5', 'gpt-4o', 'mystery-model']);
    const models = byName(body.data);
    expect(models['gpt-4o']).toEqual({
      model_name: 'gpt-4o', quota_type: 0, model_ratio: 1.25, model_price: 0, owner_by: '', completion_ratio: 4,
      cache_ratio: 0.5, create_cache_ratio: 1, create_cache_1h_ratio: 1, reasoning_ratio: 4, ratio_configured: true,
      enable_groups: ['default'], supported_endpoint_types: ['openai', 'openai-response', 'anthropic', 'gemini'],
    });
    // Claude's cache prices come from its family when no ratio is configured
    expect(models['claude-sonnet-4-5']).toMatchObject({ model_ratio: 1.5, completion_ratio: 5, cache_ratio: 0.1, create_cache_ratio: 1.25, create_cache_1h_ratio: 2 });
    // a model without a ratio is priced (expensively) all the same, and says so
    expect(models['mystery-model']).toMatchObject({ model_ratio: 30, completion_ratio: 1, ratio_configured: false });
  });

  it("a signed-in user gets their own group's models and ratio", async () => {
    const body = await pricing(vip);
    expect(body).toMatchObject({ success: true, group_ratio: { vip: 0.5 }, usable_group: { vip: 'vip 分组' } });
    expect(body.data.map((m: PricingModel) => [m.model_name, m.enable_groups])).toEqual([
      ['gpt-4o', ['vip']],
      ['vip-model', ['vip']],
    ]);
  });

  it('the page prices a million tokens of each kind exactly as a request is charged', async () => {
    const body = await pricing(vip);
    for (const model of body.data as PricingModel[]) {
      const page = pricesPerMillion(model, body.group_ratio.vip);
      const billing = pricesFor(t.ctx.options, model.model_name, 'vip');
      const M = 1_000_000;
      expect(page.input).toBeCloseTo(costOf({ prompt_tokens: M, completion_tokens: 0 }, billing), 6);
      expect(page.output).toBeCloseTo(costOf({ prompt_tokens: 0, completion_tokens: M }, billing), 6);
      expect(page.cacheRead).toBeCloseTo(costOf({ prompt_tokens: M, cached_tokens: M, completion_tokens: 0 }, billing), 6);
      expect(page.cacheWrite).toBeCloseTo(costOf({ prompt_tokens: M, cache_write_tokens: M, completion_tokens: 0 }, billing), 6);
    }
  });

  it('PricingPageEnabled off: visitors are refused, signed-in users still see their prices; the status tells the console', async () => {
    expect((await t.call({ method: 'GET', url: '/api/status' })).body.data.pricing_page).toBe(true);
    await t.call({ method: 'PUT', url: '/api/option/', cookie: root, payload: { key: 'PricingPageEnabled', value: 'false' } });
    try {
      expect((await t.call({ method: 'GET', url: '/api/status' })).body.data.pricing_page).toBe(false);
      expect(await pricing()).toEqual({ success: false, message: '管理员未开放定价页面，请登录后查看' });
      expect((await pricing(vip)).success).toBe(true);
    } finally {
      await t.call({ method: 'PUT', url: '/api/option/', cookie: root, payload: { key: 'PricingPageEnabled', value: 'true' } });
    }
  });

  it('a client sending an API key (not an access token) is read as a visitor, not refused', async () => {
    const body = await pricing(undefined, { authorization: 'Bearer sk-not-a-system-token' });
    expect(body).toMatchObject({ success: true, group_ratio: { default: 1 } });
  });
});

describe('GET /api/pricing/unpriced', () => {
  const unpriced = async (cookie?: string) => (await t.call({ method: 'GET', url: '/api/pricing/unpriced', cookie })).body;

  it('lists the models enabled channels serve (any group) that would be billed at the unknown-model ratio, for admins only', async () => {
    // mystery-model has no ratio; vip-model (vip group) has one; retired-model's channel is disabled.
    expect(await unpriced(root)).toEqual({ success: true, message: '', data: ['mystery-model'] });
    expect((await unpriced(vip)).success).toBe(false);
    expect((await unpriced()).success).toBe(false);
    await t.call({ method: 'PUT', url: '/api/option/', cookie: root, payload: { key: 'ModelRatio', value: '{"gpt-4o":1.25,"claude-sonnet-4-5":1.5,"vip-model":2,"mystery-model":3}' } });
    try {
      expect((await unpriced(root)).data).toEqual([]);
    } finally {
      await t.call({ method: 'PUT', url: '/api/option/', cookie: root, payload: { key: 'ModelRatio', value: '{"gpt-4o":1.25,"claude-sonnet-4-5":1.5,"vip-model":2}' } });
    }
  });

  it('?models= (the channel form, before a channel exists) checks the given names', async () => {
    const asked = async (models: string) => (await t.call({ method: 'GET', url: `/api/pricing/unpriced?models=${encodeURIComponent(models)}`, cookie: root })).body;
    expect(await asked('gpt-4o, brand-new-model,vip-model,brand-new-model,,another-one')).toEqual({ success: true, message: '', data: ['brand-new-model', 'another-one'] });
    expect((await asked('x'.repeat(70_000))).success).toBe(false);
    expect((await t.call({ method: 'GET', url: '/api/pricing/unpriced?models=a', cookie: vip })).body.success).toBe(false);
  });
});

describe('long-context bands', () => {
  it("are listed with the ratios billing applies above each prompt length, smallest first; a model of one price has none", async () => {
    await seedChannel(t.ctx.storage, { name: 'long', key: 'k4', baseUrl: 'http://127.0.0.1:1', models: 'gemini-2.5-pro,qwen3-coder-plus', group: 'long' });
    const { data } = await t.ctx.services.pricing.pricing('long');
    const models = byName(data);
    expect(models['gemini-2.5-pro'].long_context).toEqual([{ above: 200_000, input: 2, output: 1.5 }]);
    expect(models['qwen3-coder-plus'].long_context).toEqual([
      { above: 32_000, input: 1.5, output: 1.5 },
      { above: 128_000, input: 2.5, output: 2.5 },
      { above: 256_000, input: 5, output: 12.5 },
    ]);
    // What the page shows above 200K is what billing charges for such a prompt.
    const prices = pricesFor(t.ctx.options, 'gemini-2.5-pro', 'long');
    const band = models['gemini-2.5-pro'].long_context![0];
    expect(costOf({ prompt_tokens: 300_000, completion_tokens: 0 }, prices)).toBe(Math.ceil(300_000 * prices.modelRatio * prices.groupRatio * band.input));
    expect(byName((await t.ctx.services.pricing.pricing()).data)['gpt-4o'].long_context).toBeUndefined();
  });
});
