import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MOCK_REPLY, startMockUpstream, type MockUpstream } from '../../test-support/mock-openai.js';
import { seedChannel, seedToken } from '../../test-support/seed.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';
import { fixtures } from '../../test-support/upstreams/fixtures.js';
import { startMockGemini, type MockGemini } from '../../test-support/upstreams/gemini.js';
import { startMockVertex, type MockVertex } from '../../test-support/upstreams/vertex.js';

// The Gemini client dialect end to end: models, framings, faults and settlement (issue 8, client dialects and faults).
const fx = fixtures('gemini');
let t: TestApp;
let gateway: string;
let userId: number;
let gemini: MockGemini;
let openai: MockUpstream;
let vertex: MockVertex;

beforeAll(async () => {
  [gemini, openai, vertex] = await Promise.all([startMockGemini(), startMockUpstream(), startMockVertex()]);
  t = await createTestApp({ RELAY_TIMEOUT_SECONDS: '2' });
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  userId = (await t.ctx.repositories.users.findByUsername('root'))!.id;
  await t.ctx.options.set('ModelRatio', JSON.stringify({ 'gemini-2.5-flash': 0.15 }));
  await t.ctx.options.set('CompletionRatio', JSON.stringify({ 'gemini-2.5-flash': 8 }));
});
afterAll(async () => {
  await t.close();
  await Promise.all([gemini.close(), openai.close(), vertex.close()]);
});
beforeEach(async () => {
  await t.ctx.storage.db.deleteFrom('abilities').execute();
  await t.ctx.storage.db.deleteFrom('channels').execute();
  await t.ctx.options.set('RetryTimes', '0');
  gemini.requests.length = 0;
  openai.requests.length = 0;
});

const MODEL = 'gemini-2.5-flash';
const geminiChannel = (key: string, fields: { priority?: number; modelMapping?: string; models?: string } = {}) => seedChannel(t.ctx.storage, { name: `gemini-${key}`, type: 24, key, baseUrl: gemini.url, models: MODEL, ...fields });
const openAiChannel = (key: string) => seedChannel(t.ctx.storage, { name: `openai-${key}`, type: 1, key, baseUrl: openai.url, models: MODEL });
const genai = (apiKey: string) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gateway } });

async function post(path: string, body: unknown, headers: Record<string, string>, signal?: AbortSignal) {
  return fetch(`${gateway}/v1beta/models/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal });
}

async function quotaState(tokenId: number) {
  const token = await t.ctx.storage.db.selectFrom('tokens').selectAll().where('id', '=', tokenId).executeTakeFirstOrThrow();
  const logs = await t.ctx.storage.db.selectFrom('logs').selectAll().where('token_id', '=', tokenId).where('type', '=', 2).execute();
  const open = await t.ctx.storage.db.selectFrom('quota_reservations').selectAll().where('token_id', '=', tokenId).where('status', '=', 'open').execute();
  return { token, logs, open };
}

/** Settlement is committed just after the answer: wait for the expected logs and no open reservation. */
async function settled(tokenId: number, logs: number) {
  let state = await quotaState(tokenId);
  for (let i = 0; i < 150 && (state.logs.length < logs || state.open.length > 0); i++) {
    await new Promise((r) => setTimeout(r, 20));
    state = await quotaState(tokenId);
  }
  return state;
}

/** Exactly one settlement: one log, the token charged what it says, nothing held. */
async function expectSettledOnce(tokenId: number, note?: string) {
  const state = await settled(tokenId, 1);
  await new Promise((r) => setTimeout(r, 50));
  const after = await quotaState(tokenId);
  expect(after.logs).toHaveLength(1);
  expect(after.open).toEqual([]);
  expect(after.token.remain_quota).toBe(1_000_000 - after.logs[0].quota);
  if (note) expect(after.logs[0].content).toContain(note);
  return state.logs[0];
}

describe('Gemini endpoints', () => {
  it('lists the models the key may use in Gemini’s shape; the key in x-goog-api-key or ?key=, with or without sk-', async () => {
    await geminiChannel('ok', { models: `${MODEL},gemini-2.5-pro` });
    const { key } = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000, models: `${MODEL},gemini-2.5-pro` });
    const byHeader = await fetch(`${gateway}/v1beta/models`, { headers: { 'x-goog-api-key': `sk-${key}` } });
    expect(byHeader.status).toBe(200);
    const list = (await byHeader.json()) as { models: Array<Record<string, unknown>> };
    expect(list.models.map((m) => m.name).sort()).toEqual(['models/gemini-2.5-flash', 'models/gemini-2.5-pro']);
    expect(list.models[0]).toMatchObject({ supportedGenerationMethods: ['generateContent', 'countTokens'] });
    expect(await (await fetch(`${gateway}/v1beta/models?key=${key}`)).json()).toEqual(list);

    const names = [];
    for await (const model of await genai(key).models.list()) names.push(model.name);
    expect(names.sort()).toEqual(['models/gemini-2.5-flash', 'models/gemini-2.5-pro']);
    expect(await genai(`sk-${key}`).models.get({ model: MODEL })).toMatchObject({ name: `models/${MODEL}` });

    const missing = await fetch(`${gateway}/v1beta/models/gpt-4o?key=${key}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
    const method = await post(`${MODEL}:predict`, {}, { 'x-goog-api-key': key });
    expect(method.status).toBe(404);
    expect(await method.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
    const malformed = await fetch(`${gateway}/v1beta/models/${MODEL}:generateContent?key=${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"contents": [' });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    expect(((await post(`${MODEL}:generateContent`, { contents: [] }, {})) as Response).status).toBe(401);
  });

  it('the stable /v1 API (@google/genai 3 calls it by default) answers as /v1beta does; GET /v1/models answers each official SDK in its own shape', async () => {
    await geminiChannel('ok', { models: `${MODEL},gemini-2.5-pro` });
    const { key, id } = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    const stable = genai(key);
    const beta = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway, apiVersion: 'v1beta' } });
    const ask = { model: MODEL, contents: 'Hello' };
    expect((await stable.models.generateContent(ask)).text).toBe('Hello! How can I help you today?');
    expect((await beta.models.generateContent(ask)).text).toBe('Hello! How can I help you today?');
    let streamed = '';
    for await (const chunk of await stable.models.generateContentStream(ask)) streamed += chunk.text ?? '';
    expect(streamed.length).toBeGreaterThan(0);
    expect((await stable.models.countTokens(ask)).totalTokens).toBeGreaterThan(0);
    const state = await settled(id, 3);
    expect(state.logs).toHaveLength(3);
    // Upstream, a Gemini channel is asked on its own API version (v1beta unless the channel names one).
    expect(gemini.requests.map((r) => r.path.split('/')[1])).toEqual(['v1beta', 'v1beta', 'v1beta']);

    // The model list: @google/genai 3 (x-goog-api-key, /v1), openai's and Anthropic's SDKs (anthropic-version).
    const names = [];
    for await (const model of await stable.models.list()) names.push(model.name);
    expect(names.sort()).toEqual([`models/${MODEL}`, 'models/gemini-2.5-pro']);
    expect(await stable.models.get({ model: MODEL })).toMatchObject({ name: `models/${MODEL}`, supportedActions: ['generateContent', 'countTokens'] });
    const missing = (await stable.models.get({ model: 'gpt-4o' }).catch((error: unknown) => error)) as ApiError;
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.message)).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });

    const openaiIds = (await new OpenAI({ apiKey: `sk-${key}`, baseURL: `${gateway}/v1`, maxRetries: 0 }).models.list()).data.map((m) => m.id);
    expect(openaiIds.sort()).toEqual([MODEL, 'gemini-2.5-pro']);
    const claude = new Anthropic({ apiKey: `sk-${key}`, baseURL: gateway, maxRetries: 0 });
    const claudeModels = (await claude.models.list()).data;
    expect(claudeModels.map((m) => m.id).sort()).toEqual([MODEL, 'gemini-2.5-pro']);
    expect(claudeModels[0]).toMatchObject({ type: 'model', display_name: claudeModels[0].id, created_at: '2021-07-20T10:40:00Z' });
    expect(await claude.models.retrieve(MODEL)).toMatchObject({ type: 'model', id: MODEL });
    const claudeMissing = (await claude.models.retrieve('gpt-4o').catch((error: unknown) => error)) as InstanceType<typeof Anthropic.APIError>;
    expect(claudeMissing.status).toBe(404);
    expect(claudeMissing.error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });

  it('countTokens counts here, from contents or a whole generateContentRequest, and charges nothing', async () => {
    await geminiChannel('ok');
    const { key, id } = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    const contents = [{ role: 'user', parts: [{ text: 'The quick brown fox jumps over the lazy dog.' }] }];
    const plain = (await (await post(`${MODEL}:countTokens?key=sk-${key}`, { contents }, {})).json()) as { totalTokens: number };
    expect(plain.totalTokens).toBeGreaterThan(8);
    const wrapped = (await (await post(`${MODEL}:countTokens`, { generateContentRequest: { model: `models/${MODEL}`, contents, systemInstruction: { parts: [{ text: 'Answer in French.' }] } } }, { 'x-goog-api-key': key })).json()) as { totalTokens: number };
    expect(wrapped.totalTokens).toBeGreaterThan(plain.totalTokens);
    expect(gemini.requests).toEqual([]);
    expect((await quotaState(id)).logs).toEqual([]);
  });
});

describe('pass-through to a Gemini channel', () => {
  it('SSE, the JSON array and whole answers come back byte for byte; the upstream is asked in the client’s framing', async () => {
    await geminiChannel('ok', { models: 'gemini-latest', modelMapping: JSON.stringify({ 'gemini-latest': MODEL }) });
    const { key, id } = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    const request = fx.json('text.request.json');

    const sse = await post('gemini-latest:streamGenerateContent?alt=sse', request, { 'x-goog-api-key': key });
    expect(sse.headers.get('content-type')).toContain('text/event-stream');
    expect(await sse.text()).toBe(fx.text('text.stream.txt'));
    const array = await post('gemini-latest:streamGenerateContent', { ...request, model: 'models/gemini-latest' }, { 'x-goog-api-key': `sk-${key}` });
    expect(array.headers.get('content-type')).toContain('application/json');
    expect(await array.text()).toBe(fx.text('text.stream.json'));
    const whole = await post(`gemini-latest:generateContent?key=${key}`, request, {});
    expect(await whole.json()).toEqual({ ...fx.json('text.response.json'), modelVersion: MODEL });

    // The mapped model in the URL, never in the body; SSE asked only when the client asked for it.
    expect(gemini.requests.map((r) => [r.path, r.query.alt])).toEqual([
      [`/v1beta/models/${MODEL}:streamGenerateContent`, 'sse'],
      [`/v1beta/models/${MODEL}:streamGenerateContent`, undefined],
      [`/v1beta/models/${MODEL}:generateContent`, undefined],
    ]);
    expect(gemini.requests.every((r) => (r.body as Record<string, unknown>).model === undefined)).toBe(true);
    const state = await settled(id, 3);
    expect(state.logs.map((l) => [l.prompt_tokens, l.completion_tokens, l.model_name])).toEqual(Array(3).fill([6, 9, 'gemini-latest']));
  });

  it('a JSON-array stream translated from an OpenAI channel is one valid array', async () => {
    await openAiChannel('ok');
    const { key } = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    const res = await post(`${MODEL}:streamGenerateContent`, fx.json('text.request.json'), { 'x-goog-api-key': key });
    expect(res.headers.get('content-type')).toContain('application/json');
    const chunks = JSON.parse(await res.text()) as Array<Record<string, any>>;
    expect(chunks.map((c) => c.candidates[0].content.parts.map((p: { text: string }) => p.text).join('')).join('')).toBe(MOCK_REPLY);
    expect(chunks.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 10 }, modelVersion: MODEL });
    expect(openai.requests[0].body).toMatchObject({ model: MODEL, stream: true, stream_options: { include_usage: true } });
  });
});

describe('faults', () => {
  it('upstream 429 and 503 are retried on other channels, a refused service account too; settled once', async () => {
    await t.ctx.options.set('RetryTimes', '3');
    const revoked = vertex.serviceAccount({ revoked: true });
    await seedChannel(t.ctx.storage, { name: 'vertex-revoked', type: 42, key: `us-central1|${revoked.project_id}|${JSON.stringify(revoked)}`, baseUrl: vertex.url, models: MODEL, priority: 20 });
    await geminiChannel('fail-429', { priority: 10 });
    await geminiChannel('fail-503', { priority: 5 });
    const good = await geminiChannel('ok');
    const { key, id } = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    const answer = await genai(key).models.generateContent({ model: MODEL, contents: 'Hello' });
    expect(answer.text).toBe('Hello! How can I help you today?');
    expect(gemini.requests.map((r) => r.key)).toEqual(['fail-429', 'fail-503', 'ok']);
    const log = await expectSettledOnce(id);
    expect(log.channel_id).toBe(good);
  });

  it('with no channel left the upstream error reaches the client in Gemini’s shape and nothing is charged', async () => {
    await geminiChannel('fail-429');
    const { key, id } = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    const error = (await genai(key).models.generateContent({ model: MODEL, contents: 'Hello' }).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(429);
    expect(JSON.parse(error.message)).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('quota') } });
    const state = await settled(id, 0);
    expect(state.logs).toEqual([]);
    expect(state.open).toEqual([]);
    expect(state.token.remain_quota).toBe(1_000_000);
  });

  const framings = [
    ['SSE', '?alt=sse'],
    ['JSON array', ''],
  ] as const;
  for (const [framing, query] of framings) {
    for (const [upstream, channel] of [
      ['Gemini (passed through)', () => geminiChannel('break')],
      ['OpenAI (translated)', () => openAiChannel('break')],
    ] as const) {
      it(`a ${framing} stream from ${upstream} that breaks mid-way ends with Gemini's error event, billed once for what was delivered`, async () => {
        await channel();
        const { key, id } = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
        const res = await post(`${MODEL}:streamGenerateContent${query}`, fx.json('text.request.json'), { 'x-goog-api-key': key });
        const text = await res.text();
        const elements: Array<Record<string, any>> = query ? text.split(/\r?\n\r?\n/).filter(Boolean).map((e) => JSON.parse(e.replace(/^data: /, ''))) : JSON.parse(text);
        expect(elements.length).toBeGreaterThan(1);
        expect(elements[0].candidates[0].content.parts[0].text).toBeTruthy();
        expect(elements.at(-1)).toEqual({ error: { code: 503, message: '上游流式响应中断', status: 'UNAVAILABLE' } });
        expect(elements.some((e) => e.candidates?.[0]?.finishReason)).toBe(false);
        const log = await expectSettledOnce(id, '上游流式响应中断');
        expect(log.completion_tokens).toBeGreaterThan(0);
      });
    }
  }

  it('the SDK sees a broken stream as an error; an error the upstream sends in its stream reaches the client once, as the upstream said it', async () => {
    await geminiChannel('break');
    const { key } = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    const consume = async () => {
      for await (const chunk of await genai(key).models.generateContentStream({ model: MODEL, contents: 'Hello' })) void chunk;
    };
    await expect(consume()).rejects.toMatchObject({ status: 503 });

    await t.ctx.storage.db.deleteFrom('abilities').execute();
    await geminiChannel('stream-error');
    const res = await post(`${MODEL}:streamGenerateContent?alt=sse`, fx.json('text.request.json'), { 'x-goog-api-key': key });
    const events = (await res.text()).split(/\r?\n\r?\n/).filter(Boolean);
    // Passed through: the upstream's own error event is the stream's last, and it is not repeated.
    expect(JSON.parse(events.at(-1)!.replace(/^data: /, ''))).toEqual({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } });
    expect(events.filter((e) => e.includes('"error"'))).toHaveLength(1);
  });

  describe('a client that leaves', () => {
    let slow: Server;
    let url: string;
    const closed: number[] = [];
    beforeAll(async () => {
      // A Gemini upstream that sends one chunk and then nothing: only a cancelled request ends it.
      slow = createServer((req, res) => {
        req.resume();
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Thinking about it' }] }, index: 0 }], usageMetadata: { promptTokenCount: 6, totalTokenCount: 6 } })}\r\n\r\n`);
        res.on('close', () => closed.push(Date.now()));
      });
      await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => slow.close(() => resolve())));

    for (const [client, path, body, headers] of [
      ['Gemini', `${MODEL}:streamGenerateContent?alt=sse`, fx.json('text.request.json'), (key: string) => ({ 'x-goog-api-key': key })],
      ['OpenAI (translated)', '', { model: MODEL, stream: true, messages: [{ role: 'user', content: 'Hello' }] }, (key: string) => ({ authorization: `Bearer sk-${key}` })],
    ] as const) {
      it(`${client}: the upstream is read on for its usage until it falls silent, then cancelled, and the request settled once`, async () => {
        await seedChannel(t.ctx.storage, { name: 'slow-gemini', type: 24, key: 'ok', baseUrl: url, models: MODEL });
        const { key, id } = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
        const before = closed.length;
        const abort = new AbortController();
        const target = path ? `${gateway}/v1beta/models/${path}` : `${gateway}/v1/chat/completions`;
        const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', ...headers(key) }, body: JSON.stringify(body), signal: abort.signal });
        const reader = res.body!.getReader();
        expect(new TextDecoder().decode((await reader.read()).value)).toContain('Thinking about it');
        const left = Date.now();
        abort.abort();
        await expectSettledOnce(id, '客户端中途断开');
        for (let i = 0; i < 100 && closed.length === before; i++) await new Promise((r) => setTimeout(r, 10));
        expect(closed.length).toBe(before + 1);
        // Not at once: the gateway waited for the rest of the answer (its usage) until the body timeout (2 s) cut it.
        expect(closed.at(-1)! - left).toBeGreaterThanOrEqual(1000);
      });
    }
  });
});

/** A Vertex channel logging in with a service account of the given mock behaviour. */
function vertexChannel(name: string, models: string, fields: { mode?: 'ok' | 'overloaded-529' | 'fail-429'; priority?: number } = {}) {
  const account = vertex.serviceAccount({ mode: fields.mode ?? 'ok' });
  const config = JSON.stringify({ region: 'us-east5', vertex_ai_project_id: account.project_id, vertex_ai_adc: JSON.stringify(account) });
  return seedChannel(t.ctx.storage, { name, type: 42, key: `us-east5|${account.project_id}|${JSON.stringify(account)}`, config, baseUrl: vertex.url, models, priority: fields.priority });
}

describe('Vertex AI', () => {
  it('a Claude model overloaded (529) or rate-limited (429) on one Vertex channel is answered by the next, translated for the Gemini client', async () => {
    await t.ctx.options.set('RetryTimes', '2');
    const claude = 'claude-sonnet-4-5@20250929';
    await vertexChannel('vertex-overloaded', claude, { mode: 'overloaded-529', priority: 10 });
    await vertexChannel('vertex-limited', claude, { mode: 'fail-429', priority: 5 });
    const good = await vertexChannel('vertex-ok', claude);
    const { key, id } = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    const before = vertex.requests.length;
    const answer = await genai(key).models.generateContent({ model: claude, contents: 'Hello', config: { systemInstruction: 'You are terse.' } });
    expect(answer.text).toBe('Hello! How can I help you today?');
    expect(answer.usageMetadata).toMatchObject({ promptTokenCount: 12, candidatesTokenCount: 12 });
    const calls = vertex.requests.slice(before).filter((r) => r.path !== '/token');
    expect(calls.map((r) => r.path)).toEqual(Array(3).fill('/v1/projects/relay-test-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict'));
    expect(calls[2].body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', system: [{ type: 'text', text: 'You are terse.' }], messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }] });
    const log = await expectSettledOnce(id);
    expect(log.channel_id).toBe(good);
  });

  it('one service-account login serves many requests until the token expires', async () => {
    const account = vertex.serviceAccount();
    const config = JSON.stringify({ region: 'us-central1', vertex_ai_project_id: account.project_id, vertex_ai_adc: JSON.stringify(account, null, 2) });
    // The key as the console stores it when the JSON was pasted on several lines: its first line only.
    await seedChannel(t.ctx.storage, { name: 'vertex', type: 42, key: `us-central1|${account.project_id}|{`, config, baseUrl: vertex.url, models: MODEL });
    const { key, id } = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    const before = vertex.tokenExchanges.length;
    const answers = await Promise.all(Array.from({ length: 12 }, () => genai(key).models.generateContent({ model: MODEL, contents: 'Hello' })));
    for (let i = 0; i < 3; i++) answers.push(await genai(key).models.generateContent({ model: MODEL, contents: 'Hello' }));
    expect(answers.every((a) => a.text === 'Hello! How can I help you today?')).toBe(true);
    expect(vertex.tokenExchanges.length - before).toBe(1);
    const calls = vertex.requests.filter((r) => r.path.endsWith(':generateContent'));
    expect(new Set(calls.slice(-15).map((r) => r.headers.authorization)).size).toBe(1);
    expect((await settled(id, 15)).logs).toHaveLength(15);
  });
});
