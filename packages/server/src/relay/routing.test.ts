import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../billing/pricing.js';
import { startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';

/** Session affinity and model fallbacks (issue 15, items 3 and 4). */
let mock: MockUpstream;
let t: TestApp;
let gateway: string;
let serial = 0;

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp();
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  await mock.close();
});
beforeEach(async () => {
  await t.ctx.storage.db.deleteFrom('abilities').execute();
  await t.ctx.storage.db.deleteFrom('channels').execute();
  await t.ctx.options.set('RetryTimes', '0');
  await t.ctx.options.set('ModelFallbacks', '{}');
  await t.ctx.options.set('GroupModelFallbacks', '{}');
});

async function key(app: TestApp = t) {
  serial++;
  const userId = await seedUser(app.ctx.storage, `route${serial}`, 100_000_000, `ROUTE${serial}`);
  return seedToken(app.ctx.storage, userId, { unlimited: true });
}

/** The settled log rows of a key, oldest first, once there are `count` of them. */
async function logsOf(tokenId: number, count: number, app: TestApp = t) {
  for (let i = 0; i < 250; i++) {
    const logs = await app.ctx.storage.db.selectFrom('logs').selectAll().where('token_id', '=', tokenId).where('type', '=', 2).orderBy('id').execute();
    if (logs.length >= count) return logs;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('not settled');
}

const SYSTEM = 'You are a coding agent. '.repeat(200);

describe('session affinity', () => {
  // covers issue 15 item 3
  it("a session's requests stay on one of three channels and read its cache after the first; when it fails they move and stick again", async () => {
    const ids = [];
    for (const n of [1, 2, 3]) ids.push(await seedChannel(t.ctx.storage, { name: `cache-${n}`, key: `cache-memory:${n}`, baseUrl: mock.url, models: 'gpt-4o-mini' }));
    await t.ctx.options.set('RetryTimes', '2');
    const token = await key();
    const openai = new OpenAI({ apiKey: `sk-${token.key}`, baseURL: `${gateway}/v1`, maxRetries: 0 });
    const ask = (turn: number) => openai.chat.completions.create({ model: 'gpt-4o-mini', prompt_cache_key: 'session-42', messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: `turn ${turn}` }] });
    for (let turn = 0; turn < 6; turn++) await ask(turn);
    let logs = await logsOf(token.id, 6);
    const first = logs[0].channel_id;
    expect(logs.map((l) => l.channel_id)).toEqual(Array(6).fill(first));
    expect(logs[0].cached_tokens).toBe(0);
    for (const log of logs.slice(1)) expect(log.cached_tokens).toBeGreaterThan(0);
    expect(JSON.parse(logs[1].routing!)).toMatchObject({ affinity: true, requested_model: 'gpt-4o-mini' });

    // The session's channel starts failing: the next request moves at once, and the session sticks to the new one.
    await t.ctx.storage.db.updateTable('channels').set({ key: 'fail-500' }).where('id', '=', first).execute();
    for (let turn = 6; turn < 10; turn++) await ask(turn);
    logs = (await logsOf(token.id, 10)).slice(6);
    const moved = logs[0].channel_id;
    expect(moved).not.toBe(first);
    expect(logs.map((l) => l.channel_id)).toEqual(Array(4).fill(moved));
    expect(logs[0].cached_tokens).toBe(0);
    for (const log of logs.slice(1)) expect(log.cached_tokens).toBeGreaterThan(0);

    // Another session of the same key is not bound to it.
    const other = await openai.chat.completions.create({ model: 'gpt-4o-mini', prompt_cache_key: 'session-43', messages: [{ role: 'user', content: 'hi' }] });
    expect(other.choices[0].message.content).toBeTruthy();
  });

  it("Claude Code's session (metadata.user_id) sticks through translation; with affinity off, nothing sticks", async () => {
    for (const n of [4, 5, 6]) await seedChannel(t.ctx.storage, { name: `cache-${n}`, key: `cache-memory:${n}`, baseUrl: mock.url, models: 'claude-sonnet-4-5' });
    const token = await key();
    const claude = new Anthropic({ apiKey: `sk-${token.key}`, baseURL: gateway, maxRetries: 0 });
    const metadata = { user_id: 'user_abc_account_def_session_0f4c' };
    for (let turn = 0; turn < 5; turn++) await claude.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, metadata, system: SYSTEM, messages: [{ role: 'user', content: `turn ${turn}` }] });
    const logs = await logsOf(token.id, 5);
    expect(new Set(logs.map((l) => l.channel_id)).size).toBe(1);
    for (const log of logs.slice(1)) expect(log.cached_tokens).toBeGreaterThan(0);

    await t.ctx.options.set('SessionAffinityMinutes', '0');
    try {
      const loose = await key();
      const client = new Anthropic({ apiKey: `sk-${loose.key}`, baseURL: gateway, maxRetries: 0 });
      for (let turn = 0; turn < 12; turn++) await client.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 64, metadata, system: SYSTEM, messages: [{ role: 'user', content: `turn ${turn}` }] });
      const spread = await logsOf(loose.id, 12);
      expect(new Set(spread.map((l) => l.channel_id)).size).toBeGreaterThan(1);
      expect(spread.every((l) => l.routing === null)).toBe(true);
    } finally {
      await t.ctx.options.set('SessionAffinityMinutes', '60');
    }
  });

  it.runIf(process.env.TEST_REDIS_URL)('two instances sharing Redis follow one session to one channel', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mr-affinity-'));
    const env = { SQLITE_PATH: join(dir, 'gateway.db'), REDIS_CONN_STRING: process.env.TEST_REDIS_URL!, SESSION_SECRET: 'affinity' };
    const a = await createTestApp(env);
    const b = await createTestApp(env);
    try {
      for (const n of [7, 8, 9, 10]) await seedChannel(a.ctx.storage, { name: `cache-${n}`, key: `cache-memory:${n}`, baseUrl: mock.url, models: 'gpt-4o-mini' });
      const token = await key(a);
      const urls = [await a.app.listen({ port: 0, host: '127.0.0.1' }), await b.app.listen({ port: 0, host: '127.0.0.1' })];
      const session = `cluster-${Date.now()}`;
      for (let turn = 0; turn < 6; turn++) {
        const client = new OpenAI({ apiKey: `sk-${token.key}`, baseURL: `${urls[turn % 2]}/v1`, maxRetries: 0 });
        await client.chat.completions.create({ model: 'gpt-4o-mini', prompt_cache_key: session, messages: [{ role: 'system', content: SYSTEM }, { role: 'user', content: `turn ${turn}` }] });
      }
      const logs = await logsOf(token.id, 6, a);
      expect(new Set(logs.map((l) => l.channel_id)).size).toBe(1);
      for (const log of logs.slice(1)) expect(log.cached_tokens).toBeGreaterThan(0);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('model fallbacks', () => {
  // covers issue 15 item 4
  it('when no channel can serve the model, the fallbacks are tried in order and the one that answers is billed; the chain is logged', async () => {
    await seedChannel(t.ctx.storage, { key: 'fail-500', baseUrl: mock.url, models: 'gpt-4o' });
    await seedChannel(t.ctx.storage, { key: 'fail-429', baseUrl: mock.url, models: 'gpt-4.1' });
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    await t.ctx.options.set('ModelFallbacks', JSON.stringify({ 'gpt-4o': ['o-unserved', 'gpt-4.1', 'gpt-4o-mini'] }));
    const token = await key();
    const openai = new OpenAI({ apiKey: `sk-${token.key}`, baseURL: `${gateway}/v1`, maxRetries: 0 });
    const answer = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(answer.choices[0].message.content).toBeTruthy();
    const [log] = await logsOf(token.id, 1);
    expect(log.model_name).toBe('gpt-4o-mini');
    expect(log.quota).toBe(costOf({ prompt_tokens: log.prompt_tokens, completion_tokens: log.completion_tokens }, pricesFor(t.ctx.options, 'gpt-4o-mini', 'default')));
    // The model no channel serves is skipped; the two that failed are in the chain, each channel in the attempts.
    expect(JSON.parse(log.routing!)).toEqual({ affinity: false, requested_model: 'gpt-4o', models: ['gpt-4o', 'gpt-4.1', 'gpt-4o-mini'] });
    expect(JSON.parse(log.attempts!).map((a: { status: number }) => a.status)).toEqual([500, 429]);

    // Never when the client asks for the exact model (the README's header).
    const exact = await fetch(`${gateway}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json', 'x-relay-exact-model': 'true' }, body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }) });
    expect(exact.status).toBe(500);
  });

  it('a model with no channel at all is served by its fallback; a group has its own list; the key scope holds', async () => {
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini,gpt-4.1' });
    await t.ctx.options.set('ModelFallbacks', JSON.stringify({ 'retired-model': ['gpt-4o-mini'] }));
    await t.ctx.options.set('GroupModelFallbacks', JSON.stringify({ default: { 'retired-model': ['gpt-4.1'] } }));
    const token = await key();
    const openai = new OpenAI({ apiKey: `sk-${token.key}`, baseURL: `${gateway}/v1`, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'retired-model', messages: [{ role: 'user', content: 'hi' }] });
    expect((await logsOf(token.id, 1))[0].model_name).toBe('gpt-4.1');

    // A key limited to retired-model may not be answered by another model.
    const scoped = await key();
    await t.ctx.storage.db.updateTable('tokens').set({ models: 'retired-model' }).where('id', '=', scoped.id).execute();
    const refused = await new OpenAI({ apiKey: `sk-${scoped.key}`, baseURL: `${gateway}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'retired-model', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 404 });
  });

  it('fallback lists are checked when saved', async () => {
    await expect(t.ctx.options.set('ModelFallbacks', '{"gpt-4o": "gpt-4o-mini"}')).rejects.toThrow('模型回退不是合法的 JSON');
    await expect(t.ctx.options.set('GroupModelFallbacks', '{"vip": ["x"]}')).rejects.toThrow('分组模型回退不是合法的 JSON');
  });
});
