import { describe, expect, it } from 'vitest';
import { pricesFor } from '../../billing/pricing.js';
import type { Usage } from '../../billing/usage.js';
import { seedChannel } from '../../test-support/seed.js';
import { startMockDashScope, rerankTokens } from '../../test-support/upstreams/dashscope.js';
import { fixtures } from '../../test-support/upstreams/fixtures.js';
import { sendJson, startMockServer } from '../../test-support/upstreams/mock-server.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * `/v1/rerank` (the Cohere/Jina body Dify sends) to an Alibaba DashScope channel (type 17): the gateway -> a local
 * DashScope native text-rerank API that checks the bearer key and the native body; the answer comes back in the
 * Cohere/Jina shape with DashScope's token count as usage, billed exactly by it. Zhipu (type 16) serves rerank in the
 * Cohere/Jina shape at `/api/paas/v4/rerank` (https://docs.bigmodel.cn/api-reference/模型-api/文本重排序): passed through,
 * billed by its `usage.prompt_tokens`.
 */
const fx = fixtures('dashscope');
const GTE = 'gte-rerank-v2';

/** Zhipu's rerank: bearer key, {model: "rerank", query, documents (<= 128 strings), top_n}; `document` in a result is the string. */
const startMockZhipu = () =>
  startMockServer((req, res, recorded) => {
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

const gw = vendorGateway({ mock: startMockDashScope, others: { zhipu: startMockZhipu } });
const { seedKey, settled } = gw;

const rerank = (key: string, body: unknown) =>
  fetch(`${gw.url}/v1/rerank`, { method: 'POST', headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Requests settled exactly once each, each charged what its usage prices at, and logged under `model`. */
async function expectCharged(tokenId: number, model: string, ...usages: Usage[]) {
  const logs = await gw.expectCharged(tokenId, model, ...usages);
  expect(logs.map((l) => l.model_name)).toEqual(usages.map(() => model));
  return logs;
}

describe('DashScope native rerank', () => {
  it('the documented request reaches text-rerank in the native body; the client gets the Cohere/Jina shape; billed by total_tokens', async () => {
    await seedChannel(gw.t.ctx.storage, { type: 17, key: 'ok', baseUrl: gw.mock.url, models: `${GTE},qwen-plus` });
    const { id, key } = await seedKey();
    const res = await rerank(key, fx.json('rerank.request.json'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(fx.json('rerank.answer.json'));
    expect(gw.mock.requests).toHaveLength(1);
    expect(gw.mock.requests[0]).toMatchObject({ path: '/api/v1/services/rerank/text-rerank/text-rerank', key: 'ok', body: fx.json('rerank.upstream.json') });
    expect(pricesFor(gw.t.ctx.options, GTE, 'default').unknownModel).toBe(false);
    await expectCharged(id, GTE, { prompt_tokens: 79, completion_tokens: 0 });
  });

  it('a base URL with the compatible-mode path, a mapped model name and `{text}` documents: the native API, the mapped name, DashScope’s count', async () => {
    await seedChannel(gw.t.ctx.storage, { type: 17, key: 'ok', baseUrl: `${gw.mock.url}/compatible-mode/v1`, models: 'my-rerank', modelMapping: JSON.stringify({ 'my-rerank': GTE }) });
    const { id, key } = await seedKey();
    const documents = [{ text: 'The capital of France is Paris.' }, { text: 'Berlin is in Germany.' }, { text: 'Paris has the Eiffel Tower.' }];
    const res = await rerank(key, { model: 'my-rerank', query: 'capital of France', documents });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: Array<{ index: number; document?: unknown }>; usage: Usage };
    expect(body.results).toHaveLength(3);
    expect(body.results.every((r) => r.document === undefined)).toBe(true);
    const tokens = rerankTokens('capital of France') * 3 + documents.reduce((n, d) => n + rerankTokens(d.text), 0);
    expect(body.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
    expect(gw.mock.requests[0].body).toEqual({ model: GTE, input: { query: 'capital of France', documents: documents.map((d) => d.text) } });
    // the log names the model the client asked for, priced as such: the mapped name's price is not asked for here
    const after = await settled(id, 1);
    expect(after.logs.map((l) => [l.prompt_tokens, l.completion_tokens])).toEqual([[tokens, 0]]);
    expect(after.open).toEqual([]);
  });

  it('a refused key: an OpenAI-style error with DashScope’s message, nothing charged', async () => {
    await seedChannel(gw.t.ctx.storage, { type: 17, key: 'fail-401', baseUrl: gw.mock.url, models: GTE });
    const { id, key } = await seedKey();
    const res = await rerank(key, { model: GTE, query: 'q', documents: ['a'] });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toContain('Invalid API-key provided.');
    const row = await gw.t.ctx.storage.db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.remain_quota).toBe(10_000_000);
  });

  it('a body DashScope cannot take is refused before it is sent', async () => {
    await seedChannel(gw.t.ctx.storage, { type: 17, key: 'ok', baseUrl: gw.mock.url, models: GTE });
    const { key } = await seedKey();
    const res = await rerank(key, { model: GTE, query: 'q', documents: [] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('documents');
    expect(gw.mock.requests).toHaveLength(0);
  });
});

describe('Zhipu rerank', () => {
  it('/v1/rerank passes through to /api/paas/v4/rerank, billed by its prompt_tokens', async () => {
    await seedChannel(gw.t.ctx.storage, { type: 16, key: 'zhipu.key', baseUrl: gw.others.zhipu.url, models: 'rerank' });
    const { id, key } = await seedKey();
    const request = { model: 'rerank', query: '北京的天气', documents: ['北京今天晴', '上海有雨'], top_n: 1, return_documents: true };
    const res = await rerank(key, request);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ results: [{ index: 0, relevance_score: 0.93, document: '北京今天晴' }], usage: { prompt_tokens: 31, total_tokens: 31 } });
    expect(gw.others.zhipu.requests[0]).toMatchObject({ path: '/api/paas/v4/rerank', body: request });
    expect(pricesFor(gw.t.ctx.options, 'rerank', 'default').unknownModel).toBe(false);
    await expectCharged(id, 'rerank', { prompt_tokens: 31, completion_tokens: 0 });
  });
});
