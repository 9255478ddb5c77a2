import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../../test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from '../../test-support/seed.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';
import { clientAddress } from '../../http/client-address.js';
import { openAiChatDialect } from '../dialects/openai-chat/index.js';
import { DirectRelay } from './direct.js';

/**
 * The relay's JSON posts are answered without fastify (ingress/direct.ts): they must be answered exactly as fastify
 * answered them: the body's limits and errors in the client's dialect, the relay's headers, the key from any of its
 * places, the client's address behind the trusted proxies, and everything else still left to fastify.
 */
let mock: MockUpstream;
let t: TestApp;
let url: string;
let key: string;
/** Relay requests fastify saw (its onRequest hook): the direct ones never reach it. */
const seenByFastify: string[] = [];

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp();
  t.app.addHook('onRequest', (request, _reply, done) => {
    if (request.url.startsWith('/v1/')) seenByFastify.push(`${request.method} ${request.url}`);
    done();
  });
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
  const user = await seedUser(t.ctx.storage, 'direct', 10_000_000, 'DIRECT');
  key = (await seedToken(t.ctx.storage, user, { unlimited: true })).key;
});
afterAll(async () => {
  await t.close();
  await mock.close();
});

const chat = { model: 'gpt-4o-mini', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer sk-${key}`, ...headers }, body });

describe('the relay answered without fastify', () => {
  it('serves a chat completion directly, with the relay headers, and leaves other requests to fastify', async () => {
    seenByFastify.length = 0;
    const res = await post('/v1/chat/completions', JSON.stringify(chat), { 'content-type': 'application/json; charset=utf-8' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { object: string }).object).toBe('chat.completion');
    expect(res.headers.get('x-request-id')).toMatch(/^[a-z0-9]+$/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(seenByFastify).toEqual([]);
    // A GET, a route with its own parameters and a body that is not JSON are fastify's.
    const models = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer sk-${key}` } });
    expect(models.status).toBe(200);
    const text = await post('/v1/chat/completions', 'hi', { 'content-type': 'text/plain' });
    expect(text.status).toBe(400);
    expect(seenByFastify).toEqual(['GET /v1/models', 'POST /v1/chat/completions']);
  });

  it("serves Gemini's generateContent and countTokens, Anthropic's count_tokens and Responses' input_tokens directly", async () => {
    seenByFastify.length = 0;
    const gemini = await fetch(`${url}/v1beta/models/gpt-4o-mini:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': `sk-${key}` }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) });
    expect(gemini.status).toBe(200);
    expect(((await gemini.json()) as { candidates: unknown[] }).candidates.length).toBe(1);
    const streamed = await fetch(`${url}/v1beta/models/gpt-4o-mini:streamGenerateContent?alt=sse&key=${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) });
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    expect(await streamed.text()).toContain('data: ');
    const counted = await fetch(`${url}/v1beta/models/gpt-4o-mini:countTokens`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': `sk-${key}` }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hello there' }] }] }) });
    expect(counted.status).toBe(200);
    expect(counted.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(((await counted.json()) as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    const unknown = await fetch(`${url}/v1beta/models/gpt-4o-mini:predict`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': `sk-${key}` }, body: '{}' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
    const claude = await post('/v1/messages/count_tokens', JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello there' }] }), { authorization: '', 'x-api-key': `sk-${key}` });
    expect(((await claude.json()) as { input_tokens: number }).input_tokens).toBeGreaterThan(0);
    const responses = await post('/v1/responses/input_tokens', JSON.stringify({ model: 'gpt-4o-mini', input: 'hello there' }));
    expect(await responses.json()).toMatchObject({ object: 'response.input_tokens' });
    expect(seenByFastify).toEqual([]);
  });

  it('answers malformed, too deep and empty bodies in the client dialect, as fastify did', async () => {
    const bad = await post('/v1/chat/completions', '{"model":');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(bad.headers.get('x-request-id')).toBeTruthy();
    expect(((await bad.json()) as { error: { message: string } }).error.message).toBe('请求体不是合法的 JSON');
    const deep = await post('/v1/chat/completions', `${'['.repeat(200)}${']'.repeat(200)}`);
    expect(deep.status).toBe(400);
    expect(((await deep.json()) as { error: { message: string } }).error.message).toContain('嵌套层级过深');
    const poisoned = await post('/v1/chat/completions', '{"__proto__":{"x":1},"model":"gpt-4o-mini"}');
    expect(poisoned.status).toBe(400);
    const empty = await post('/v1/chat/completions', '');
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { message: string } }).error.message).toBe('请求体必须是 JSON 对象');
    // Anthropic's clients get Anthropic's error shape.
    const claude = await post('/v1/messages', '{"model":', { 'x-api-key': `sk-${key}` });
    expect(claude.status).toBe(400);
    expect(await claude.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: '请求体不是合法的 JSON' } });
  });

  it('refuses a body above the limit before reading it (413), in the client dialect', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(40 * 1024 * 1024), authorization: `Bearer sk-${key}` } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.write('{"model":"gpt-4o-mini"');
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.message).toBe('请求体过大');
  });

  it('takes the key from x-api-key and from ?key=, and refuses a request without one', async () => {
    expect((await post('/v1/chat/completions', JSON.stringify(chat), { authorization: '', 'x-api-key': `sk-${key}` })).status).toBe(200);
    const query = await fetch(`${url}/v1/chat/completions?key=sk-${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(chat) });
    expect(query.status).toBe(200);
    const none = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(chat) });
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });

  it('reads the client address behind the trusted proxies only (a key fenced to one address)', async () => {
    const user = await seedUser(t.ctx.storage, 'fenced', 1_000_000, 'FENCED');
    const fenced = (await seedToken(t.ctx.storage, user, { unlimited: true, subnet: '10.9.9.9' })).key;
    const spoofed = await post('/v1/chat/completions', JSON.stringify(chat), { authorization: `Bearer sk-${fenced}`, 'x-forwarded-for': '10.9.9.9' });
    expect(spoofed.status).toBe(403);
    expect(((await spoofed.json()) as { error: { message: string } }).error.message).toContain('127.0.0.1');

    const behindProxy = await createTestApp({ TRUSTED_PROXIES: '127.0.0.1' });
    try {
      const proxied = await behindProxy.app.listen({ port: 0, host: '127.0.0.1' });
      await seedChannel(behindProxy.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
      const owner = await seedUser(behindProxy.ctx.storage, 'proxied', 1_000_000, 'PROXIED');
      const behind = (await seedToken(behindProxy.ctx.storage, owner, { unlimited: true, subnet: '10.9.9.9' })).key;
      const res = await fetch(`${proxied}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer sk-${behind}`, 'x-forwarded-for': '10.9.9.9' }, body: JSON.stringify(chat) });
      expect(res.status).toBe(200);
    } finally {
      await behindProxy.close();
    }
  });
});

describe('DirectRelay', () => {
  const options = (lines: unknown[][]) => ({
    nextId: () => 'req1',
    bodyLimit: 1024,
    address: clientAddress(false),
    requestLog: () => ({ error: () => undefined, warn: () => undefined }),
    accessLog: (...line: unknown[]) => lines.push(line),
  });

  it('logs one access line per answered request, and leaves everything to fastify once the server closes', async () => {
    const lines: unknown[][] = [];
    const direct = new DirectRelay(options(lines));
    direct.post('/v1/echo', openAiChatDialect, async (request, reply) => {
      reply.hijack();
      reply.raw.writeHead(201, { 'content-type': 'application/json' });
      reply.raw.end(JSON.stringify({ body: request.body, ip: request.ip, query: request.query }));
    });
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      if (!direct.serve(req, res)) res.writeHead(503).end('fastify');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const res = await fetch(`${base}/v1/echo?a=1&a=2`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' });
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ body: { x: 1 }, ip: '127.0.0.1', query: { a: ['1', '2'] } });
      await expect.poll(() => lines.length).toBe(1);
      expect(lines[0]).toEqual(['req1', 'POST', '/v1/echo', 201, expect.any(Number)]);
      // A handler that wrote nothing: answered 500 in the dialect rather than left waiting.
      direct.post('/v1/silent', openAiChatDialect, async () => undefined);
      const silent = await fetch(`${base}/v1/silent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(silent.status).toBe(500);
      expect(((await silent.json()) as { error: { message: string } }).error.message).toBe('网关内部错误');
      direct.closing = true;
      const closing = await fetch(`${base}/v1/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(closing.status).toBe(503);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
