import { monitorEventLoopDelay } from 'node:perf_hooks';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../billing/pricing.js';
import { startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';

/**
 * Money under hostile conditions (issue 10, items 1, 2, 4, 5): requests whose real cost exceeds what they
 * reserved, keys at zero because their own requests are in flight, bodies that break counting, prompts that
 * used to stall the event loop while they were counted.
 */
let t: TestApp;
let mock: MockUpstream;
let gatewayUrl: string;
let serial = 0;

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp({ RELAY_TIMEOUT_SECONDS: '5' });
  gatewayUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  await mock.close();
});
beforeEach(async () => {
  await t.ctx.storage.db.deleteFrom('abilities').execute();
  await t.ctx.storage.db.deleteFrom('channels').execute();
  await t.ctx.options.set('RetryTimes', '0');
  await t.ctx.options.set('PreConsumedQuota', '500');
  mock.requests.length = 0;
});

async function plainUser(quota: number): Promise<number> {
  serial++;
  return seedUser(t.ctx.storage, `money${serial}`, quota, `MONEY${serial}`);
}

async function state(userId: number, tokenId: number) {
  const db = t.ctx.storage.db;
  const user = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
  const token = await db.selectFrom('tokens').selectAll().where('id', '=', tokenId).executeTakeFirstOrThrow();
  const logs = await db.selectFrom('logs').selectAll().where('token_id', '=', tokenId).where('type', '=', 2).execute();
  const open = await db.selectFrom('quota_reservations').selectAll().where('token_id', '=', tokenId).execute();
  return { user, token, logs, open };
}

async function settled(userId: number, tokenId: number, logs: number) {
  let s = await state(userId, tokenId);
  for (let i = 0; i < 250 && (s.logs.length < logs || s.open.length > 0); i++) {
    await new Promise((r) => setTimeout(r, 20));
    s = await state(userId, tokenId);
  }
  return s;
}

const client = (key: string) => new OpenAI({ apiKey: `sk-${key}`, baseURL: `${gatewayUrl}/v1`, maxRetries: 0 });
const chat = { model: 'gpt-4o-mini', messages: [{ role: 'user' as const, content: 'write a long story' }] };

describe('a request never costs more than it holds (no discount through in-flight reservations)', () => {
  it('40 parallel requests without max_tokens on a user balance that cannot cover all: each pays its full price, nothing goes negative', async () => {
    await seedChannel(t.ctx.storage, { key: 'long', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const userId = await plainUser(60_000);
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    const results = await Promise.allSettled(Array.from({ length: 40 }, () => client(token.key).chat.completions.create(chat)));
    const ok = results.filter((r) => r.status === 'fulfilled');
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ status: 429 });
    expect(ok.length).toBeGreaterThan(0);
    const after = await settled(userId, token.id, ok.length);
    const prices = pricesFor(t.ctx.options, 'gpt-4o-mini', 'default');
    // Every answer is billed at its full price: usage x ratios, never clipped to what happened to be left.
    for (const log of after.logs) {
      expect(log.quota).toBe(costOf({ prompt_tokens: log.prompt_tokens, completion_tokens: log.completion_tokens }, prices));
      expect(log.content).not.toContain('额度不足');
    }
    const charged = after.logs.reduce((sum, log) => sum + Number(log.quota), 0);
    expect(after.user.quota).toBe(60_000 - charged);
    expect(after.user.quota).toBeGreaterThanOrEqual(0);
    expect(after.user.used_quota).toBe(charged);
    // Where the balance could not cover a whole answer, the upstream was told to write less.
    const capped = mock.requests.filter((r) => (r.body as { max_tokens?: number }).max_tokens !== undefined);
    expect(capped.length).toBeGreaterThan(0);
    expect(after.open).toEqual([]);
  });

  it('the cap sent upstream is what the reservation pays for, in the field the model understands', async () => {
    await seedChannel(t.ctx.storage, { key: 'long', baseUrl: mock.url, models: 'gpt-4o-mini,o3-mini' });
    const userId = await plainUser(1_000);
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    await client(token.key).chat.completions.create(chat);
    const sent = mock.requests[0].body as { max_tokens?: number; max_completion_tokens?: number };
    const prices = pricesFor(t.ctx.options, 'gpt-4o-mini', 'default');
    // The whole balance was reserved; the prompt bound is paid first and the rest buys output tokens.
    expect(sent.max_tokens).toBeGreaterThan(3000);
    expect(sent.max_tokens).toBeLessThan(3400);
    const after = await settled(userId, token.id, 1);
    expect(after.logs[0].completion_tokens).toBe(sent.max_tokens);
    expect(after.logs[0].quota).toBe(costOf({ prompt_tokens: 12, completion_tokens: sent.max_tokens! }, prices));
    expect(after.logs[0].quota).toBeLessThanOrEqual(1_000);

    mock.requests.length = 0;
    await t.ctx.storage.db.updateTable('users').set({ quota: 100_000 }).where('id', '=', userId).execute();
    await client(token.key).chat.completions.create({ ...chat, model: 'o3-mini', max_completion_tokens: 100_000 });
    const reasoning = mock.requests[0].body as { max_tokens?: number; max_completion_tokens?: number };
    expect(reasoning.max_tokens).toBeUndefined();
    expect(reasoning.max_completion_tokens).toBeLessThan(100_000);
  });

  // covers issue 19 item 4: absurd upstream usage cannot drain a balance
  it('a provider that ignores the cap is billed at the bound it was sent: flagged 用量异常, counted on the channel', async () => {
    const channelId = await seedChannel(t.ctx.storage, { key: 'overrun', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const userId = await plainUser(1_000);
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    await client(token.key).chat.completions.create({ ...chat, max_tokens: 10 });
    const after = await settled(userId, token.id, 1);
    const prices = pricesFor(t.ctx.options, 'gpt-4o-mini', 'default');
    expect(after.logs[0].completion_tokens).toBe(10);
    expect(after.logs[0].quota).toBe(costOf({ prompt_tokens: after.logs[0].prompt_tokens, completion_tokens: 10 }, prices));
    expect(after.user.quota).toBe(1_000 - after.logs[0].quota);
    expect(after.logs[0].content).toContain('用量异常');
    expect(after.logs[0].content).toContain('上游报告输出 5000 tokens');
    const channel = await t.ctx.storage.db.selectFrom('channels').select('usage_anomalies').where('id', '=', channelId).executeTakeFirstOrThrow();
    expect(Number(channel.usage_anomalies)).toBe(1);
  });

  it('a balance that cannot pay for the prompt and a few tokens is refused before anything is sent', async () => {
    await seedChannel(t.ctx.storage, { key: 'long', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const userId = await plainUser(5);
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    await expect(client(token.key).chat.completions.create({ ...chat, messages: [{ role: 'user', content: 'x'.repeat(400) }] })).rejects.toMatchObject({ status: 429 });
    expect(mock.requests).toHaveLength(0);
    expect((await state(userId, token.id)).user.quota).toBe(5);
  });
});

describe('a key at zero because its own requests are in flight is not exhausted', () => {
  it('1,000 key, two 500 reservations in flight, a third request: refused for now, key still enabled, works again afterwards', async () => {
    // The upstream answers after 3 s, so the third request comes while both are surely still held.
    await seedChannel(t.ctx.storage, { key: 'lag:3000', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const userId = await plainUser(100_000);
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000 });
    const small = { ...chat, max_tokens: 10 };
    const inFlight = [client(token.key).chat.completions.create(small), client(token.key).chat.completions.create(small)];
    for (let i = 0; i < 100 && (await state(userId, token.id)).open.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await state(userId, token.id)).token.remain_quota).toBe(0);
    await expect(client(token.key).chat.completions.create(small)).rejects.toMatchObject({ status: 429 });
    await Promise.all(inFlight);
    const after = await settled(userId, token.id, 2);
    expect(after.token.status).toBe(1);
    const charged = after.logs.reduce((sum, log) => sum + Number(log.quota), 0);
    expect(after.token.remain_quota).toBe(1_000 - charged);
    await client(token.key).chat.completions.create(small);
    expect((await settled(userId, token.id, 3)).token.status).toBe(1);
  });

  // covers issue 19 item 2: what a request costs is paid from the user's balance, the key's quota is a cap
  it('a cost beyond the reservation (provider-run web search) is paid in full by the user; the key is emptied and exhausted', async () => {
    await seedChannel(t.ctx.storage, { key: 'search', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const userId = await plainUser(100_000);
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 800 });
    await client(token.key).chat.completions.create({ ...chat, max_tokens: 10, web_search_options: {} });
    const after = await settled(userId, token.id, 1);
    const prices = pricesFor(t.ctx.options, 'gpt-4o-mini', 'default');
    const cost = costOf({ prompt_tokens: after.logs[0].prompt_tokens, completion_tokens: after.logs[0].completion_tokens }, prices);
    expect(after.logs[0].prompt_tokens).toBeGreaterThan(30_000);
    expect(cost).toBeGreaterThan(800);
    expect(after.logs[0].quota).toBe(cost);
    expect(after.user.quota).toBe(100_000 - cost);
    expect(after.token.remain_quota).toBe(0);
    expect(after.token.status).toBe(4);
    expect(after.logs[0].content).toContain('超出预留');
    expect(after.logs[0].content).toContain('令牌额度已用尽');
    await expect(client(token.key).chat.completions.create(chat)).rejects.toMatchObject({ status: 429 });
  });
});

describe('settlement cannot be skipped, counting cannot stall the gateway', () => {
  it('messages nested 3,900 deep are refused at the door; 120 deep on a broken stream: charged, logged, nothing left open', async () => {
    await seedChannel(t.ctx.storage, { key: 'break', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const userId = await plainUser(100_000);
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 50_000 });
    const post = (depth: number) =>
      fetch(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
        body: `{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"hi","extra":${'['.repeat(depth)}"deep"${']'.repeat(depth)}}]}`,
      });
    const refused = await post(3_900);
    expect(refused.status).toBe(400);
    expect((await refused.json()).error.message).toContain('嵌套层级过深');
    expect((await state(userId, token.id)).token.remain_quota).toBe(50_000);

    const res = await post(120);
    const text = await res.text();
    expect(text).toContain('stream_broken');
    const after = await settled(userId, token.id, 1);
    expect(after.logs).toHaveLength(1);
    expect(after.logs[0].quota).toBeGreaterThan(0);
    expect(after.token.remain_quota).toBe(50_000 - after.logs[0].quota);
    expect(after.open).toEqual([]);
  });

  it('an 80,000-letter prompt on a stream without usage is counted without stalling other requests', async () => {
    await seedChannel(t.ctx.storage, { key: 'break', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const userId = await plainUser(10_000_000);
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    const letters = Array.from({ length: 80_000 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: letters }] }),
    });
    await res.text();
    let worst = 0;
    let s = await state(userId, token.id);
    for (let i = 0; i < 500 && s.logs.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      const started = performance.now();
      const status = await t.app.inject({ method: 'GET', url: '/api/status' });
      worst = Math.max(worst, performance.now() - started);
      expect(status.statusCode).toBe(200);
      s = await state(userId, token.id);
    }
    delay.disable();
    // Counting on the event loop used to stall it for seconds; the bound leaves room for a busy CI machine.
    expect(worst).toBeLessThan(300);
    expect(delay.max / 1e6).toBeLessThan(300);
    // random letters are about one token per two characters
    expect(s.logs[0].prompt_tokens).toBeGreaterThan(30_000);
    expect(s.logs[0].completion_tokens).toBeGreaterThan(0);
  });

  it('a stream whose upstream reports no usage is counted from the prompt sent, as the same request answered whole is', async () => {
    await seedChannel(t.ctx.storage, { key: 'no-usage', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const userId = await plainUser(10_000_000);
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    // The streamed request lets go of its parsed body once the stream runs and counts its prompt from the bytes sent.
    const prompt = Array.from({ length: 120 }, (_, i) => `Paragraph ${i}: the relay counts this prompt once, 网关按发送的字节计数。`).join('\n');
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: prompt }] };
    const post = (stream: boolean) =>
      fetch(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, stream }),
      }).then((res) => res.text());
    expect(await post(false)).toContain('chat.completion');
    expect(await post(true)).toContain('[DONE]');
    const s = await settled(userId, token.id, 2);
    const [whole, streamed] = [...s.logs].sort((a, b) => a.id - b.id);
    expect(whole.prompt_tokens).toBeGreaterThan(1_000);
    expect(streamed.prompt_tokens).toBe(whole.prompt_tokens);
    expect(streamed.completion_tokens).toBe(whole.completion_tokens);
    expect(streamed.quota).toBe(whole.quota);

    // Translated (an Anthropic client on an OpenAI channel): the prompt is read from the OpenAI body that was sent.
    const ask = (stream: boolean) =>
      fetch(`${gatewayUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': `sk-${token.key}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 200, system: 'Be brief.', messages: [{ role: 'user', content: prompt }], stream }),
      }).then((res) => res.text());
    expect(await ask(false)).toContain('"type":"message"');
    expect(await ask(true)).toContain('message_stop');
    const after = await settled(userId, token.id, 4);
    const [wholeT, streamedT] = [...after.logs].sort((a, b) => a.id - b.id).slice(2);
    expect(wholeT.prompt_tokens).toBeGreaterThan(1_000);
    expect(Math.abs(wholeT.prompt_tokens - whole.prompt_tokens)).toBeLessThan(10);
    expect(streamedT.prompt_tokens).toBe(wholeT.prompt_tokens);
    expect(streamedT.completion_tokens).toBe(wholeT.completion_tokens);
  });

  it('a shutdown waits for an open stream: the instance is idle only once the stream has ended and been settled', async () => {
    await seedChannel(t.ctx.storage, { key: 'drip:60', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const userId = await plainUser(1_000_000);
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat, stream: true, stream_options: { include_usage: true } }),
    });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('chat.completion.chunk');
    // The stream has started (fastify is done with the request), and it still counts as running.
    const { inFlight } = t.ctx.relay;
    expect(inFlight.size).toBe(1);
    let idleAt: Awaited<ReturnType<typeof state>> | undefined;
    const idle = inFlight.idle().then(async () => (idleAt = await state(userId, token.id)));
    expect((await state(userId, token.id)).open).toHaveLength(1);
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toContain('[DONE]');
    await idle;
    // By the time the instance is idle the stream's reservation is settled and its log row written.
    expect(idleAt!.open).toEqual([]);
    expect(idleAt!.logs).toHaveLength(1);
    expect(idleAt!.logs[0].quota).toBeGreaterThan(0);
    expect(inFlight.size).toBe(0);
  });
});

describe('client addresses', () => {
  it('X-Forwarded-For is ignored unless the connection comes from a trusted proxy', async () => {
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const userId = await plainUser(100_000);
    const fenced = await seedToken(t.ctx.storage, userId, { unlimited: true, subnet: '10.9.9.9' });
    const call = (app: TestApp) =>
      app.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer sk-${fenced.key}`, 'x-forwarded-for': '10.9.9.9', 'content-type': 'application/json' },
        payload: chat,
      });
    const spoofed = await call(t);
    expect(spoofed.statusCode).toBe(403);
    expect(spoofed.json().error.message).toContain('127.0.0.1');

    const behindProxy = await createTestApp({ TRUSTED_PROXIES: '127.0.0.1' });
    try {
      const user = await seedUser(behindProxy.ctx.storage, 'proxied', 100_000, 'PROXIED');
      await seedChannel(behindProxy.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
      const key = await seedToken(behindProxy.ctx.storage, user, { unlimited: true, subnet: '10.9.9.9' });
      fenced.key = key.key;
      expect((await call(behindProxy)).statusCode).toBe(200);
    } finally {
      await behindProxy.close();
    }
  });

  it('a rotating X-Forwarded-For does not get around the login limit', async () => {
    const limited = await createTestApp({ CRITICAL_RATE_LIMIT: '3' });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await limited.app.inject({ method: 'POST', url: '/api/user/login', headers: { 'x-forwarded-for': `192.0.2.${i}` }, payload: { username: 'root', password: 'wrong' } });
        codes.push(res.statusCode);
      }
      expect(codes.slice(3)).toEqual([429, 429]);
    } finally {
      await limited.close();
    }
  });

  it('TRUSTED_PROXIES refuses entries that are not addresses or CIDRs', async () => {
    await expect(createTestApp({ TRUSTED_PROXIES: 'localhost' })).rejects.toThrow(/TRUSTED_PROXIES/);
  });
});
