import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import type { Usage } from '../../billing/usage.js';
import { seedChannel, seedToken } from '../../test-support/seed.js';
import { settledToken } from '../../test-support/settled-token.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';
import { startMockDashScope, rerankTokens } from '../../test-support/upstreams/dashscope.js';
import { fixtures } from '../../test-support/upstreams/fixtures.js';
import { sendJson, startMockServer, type MockHandle } from '../../test-support/upstreams/mock-server.js';

/**
 * `/v1/rerank` (the Cohere/Jina body Dify sends) to an Alibaba DashScope channel (type 17): the gateway -> a local
 * DashScope native text-rerank API that checks the bearer key and the native body; the answer comes back in the
 * Cohere/Jina shape with DashScope's token count as usage, billed exactly by it. Zhipu (type 16) serves rerank in the
 * Cohere/Jina shape at `/api/paas/v4/rerank` (https://docs.bigmodel.cn/api-reference/模型-api/文本重排序): passed through,
 * billed by its `usage.prompt_tokens`.
 */
const fx = fixtures('dashscope');
const GTE = 'gte-rerank-v2';

let t: TestApp;
let dashscope: MockHandle;
let zhipu: MockHandle;
let gateway: string;
let userId: number;

const token = () => seedToken(t.ctx.storage, userId, { remain_quota: 10_000_000 });
const rerank = (key: string, body: unknown) =>
  fetch(`${gateway}/v1/rerank`, { method: 'POST', headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Requests settled exactly once each, each charged what its usage prices at. */
async function expectCharged(tokenId: number, model: string, ...usages: Usage[]) {
  const after = await settledToken(t.ctx.storage, tokenId, usages.length);
  expect(after.logs.map((l) => [l.model_name, l.prompt_tokens, l.completion_tokens])).toEqual(usages.map((u) => [model, u.prompt_tokens, u.completion_tokens]));
  const costs = usages.map((u) => costOf(u, pricesFor(t.ctx.options, model, 'default')));
  expect(after.logs.map((l) => l.quota)).toEqual(costs);
  expect(after.token.remain_quota).toBe(10_000_000 - costs.reduce((a, b) => a + b, 0));
  expect(after.open).toEqual([]);
  return after.logs;
}

beforeAll(async () => {
  dashscope = await startMockDashScope();
  // Zhipu's rerank: bearer key, {model: "rerank", query, documents (<= 128 strings), top_n}; `document` in a result is the string.
  zhipu = await startMockServer((req, res, recorded) => {
    if (req.method !== 'POST' || recorded.path !== '/api/paas/v4/rerank') return sendJson(res, 404, { error: { code: '404', message: 'Not Found' } });
    if (req.headers.authorization !== 'Bearer zhipu.key') return sendJson(res, 401, { error: { code: '1000', message: '身份验证失败。' } });
    const body = recorded.body as { model?: unknown; query?: unknown; documents?: unknown; top_n?: number; return_documents?: boolean };
    if (body.model !== 'rerank' || typeof body.query !== 'string' || !Array.isArray(body.documents) || body.documents.length > 128) return sendJson(res, 400, { error: { code: '1214', message: '输入参数错误' } });
    const documents = body.documents as string[];
    const results = documents
      .map((text, index) => ({ index, relevance_score: text.includes('北京') ? 0.93 : 0.05, ...(body.return_documents ? { document: text } : {}) }))
      .sort((a, b) => b.relevance_score - a.relevance_score)
      .slice(0, body.top_n || documents.length);
    sendJson(res, 200, { created: 1732083164, id: '20241120141244890ab4ee4af84acf', request_id: 'r-1', results, usage: { prompt_tokens: 31, total_tokens: 31 } });
  });
  t = await createTestApp({ RELAY_TIMEOUT_SECONDS: '5' });
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  userId = (await t.ctx.repositories.users.findByUsername('root'))!.id;
});
afterAll(async () => {
  t.app.server.closeAllConnections();
  await t.close();
  await dashscope.close();
  await zhipu.close();
});
beforeEach(async () => {
  await t.ctx.storage.db.deleteFrom('abilities').execute();
  await t.ctx.storage.db.deleteFrom('channels').execute();
  await t.ctx.options.set('RetryTimes', '0');
  await t.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
  dashscope.requests.length = 0;
  zhipu.requests.length = 0;
});

describe('DashScope native rerank', () => {
  it('the documented request reaches text-rerank in the native body; the client gets the Cohere/Jina shape; billed by total_tokens', async () => {
    await seedChannel(t.ctx.storage, { type: 17, key: 'ok', baseUrl: dashscope.url, models: `${GTE},qwen-plus` });
    const { id, key } = await token();
    const res = await rerank(key, fx.json('rerank.request.json'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(fx.json('rerank.answer.json'));
    expect(dashscope.requests).toHaveLength(1);
    expect(dashscope.requests[0]).toMatchObject({ path: '/api/v1/services/rerank/text-rerank/text-rerank', key: 'ok', body: fx.json('rerank.upstream.json') });
    expect(pricesFor(t.ctx.options, GTE, 'default').unknownModel).toBe(false);
    await expectCharged(id, GTE, { prompt_tokens: 79, completion_tokens: 0 });
  });

  it('a base URL with the compatible-mode path, a mapped model name and `{text}` documents: the native API, the mapped name, DashScope’s count', async () => {
    await seedChannel(t.ctx.storage, { type: 17, key: 'ok', baseUrl: `${dashscope.url}/compatible-mode/v1`, models: 'my-rerank', modelMapping: JSON.stringify({ 'my-rerank': GTE }) });
    const { id, key } = await token();
    const documents = [{ text: 'The capital of France is Paris.' }, { text: 'Berlin is in Germany.' }, { text: 'Paris has the Eiffel Tower.' }];
    const res = await rerank(key, { model: 'my-rerank', query: 'capital of France', documents });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: Array<{ index: number; document?: unknown }>; usage: Usage };
    expect(body.results).toHaveLength(3);
    expect(body.results.every((r) => r.document === undefined)).toBe(true);
    const tokens = rerankTokens('capital of France') * 3 + documents.reduce((n, d) => n + rerankTokens(d.text), 0);
    expect(body.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    expect(dashscope.requests[0].body).toEqual({ model: GTE, input: { query: 'capital of France', documents: documents.map((d) => d.text) } });
    // the log names the model the client asked for, priced as such: the mapped name's price is not asked for here
    const after = await settledToken(t.ctx.storage, id, 1);
    expect(after.logs.map((l) => [l.prompt_tokens, l.completion_tokens])).toEqual([[tokens, 0]]);
    expect(after.open).toEqual([]);
  });

  it('a refused key: an OpenAI-style error with DashScope’s message, nothing charged', async () => {
    await seedChannel(t.ctx.storage, { type: 17, key: 'fail-401', baseUrl: dashscope.url, models: GTE });
    const { id, key } = await token();
    const res = await rerank(key, { model: GTE, query: 'q', documents: ['a'] });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toContain('Invalid API-key provided.');
    const row = await t.ctx.storage.db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.remain_quota).toBe(10_000_000);
  });

  it('a body DashScope cannot take is refused before it is sent', async () => {
    await seedChannel(t.ctx.storage, { type: 17, key: 'ok', baseUrl: dashscope.url, models: GTE });
    const { key } = await token();
    const res = await rerank(key, { model: GTE, query: 'q', documents: [] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('documents');
    expect(dashscope.requests).toHaveLength(0);
  });
});

describe('Zhipu rerank', () => {
  it('/v1/rerank passes through to /api/paas/v4/rerank, billed by its prompt_tokens', async () => {
    await seedChannel(t.ctx.storage, { type: 16, key: 'zhipu.key', baseUrl: zhipu.url, models: 'rerank' });
    const { id, key } = await token();
    const request = { model: 'rerank', query: '北京的天气', documents: ['北京今天晴', '上海有雨'], top_n: 1, return_documents: true };
    const res = await rerank(key, request);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ results: [{ index: 0, relevance_score: 0.93, document: '北京今天晴' }], usage: { prompt_tokens: 31, total_tokens: 31 } });
    expect(zhipu.requests[0]).toMatchObject({ path: '/api/paas/v4/rerank', body: request });
    expect(pricesFor(t.ctx.options, 'rerank', 'default').unknownModel).toBe(false);
    await expectCharged(id, 'rerank', { prompt_tokens: 31, completion_tokens: 0 });
  });
});
