import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { Usage } from '../../billing/usage.js';
import { seedChannel } from '../../test-support/seed.js';
import { baiduKey, baiduV2Key, startMockBaidu } from '../../test-support/upstreams/baidu.js';
import type { MockMode } from '../../test-support/upstreams/mock-server.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * Baidu Wenxin Qianfan channels (type 15) end to end: the official SDKs -> the gateway -> a local Qianfan that issues
 * access tokens for API Key + Secret Key, checks the token on every ERNIE call (110 / 111 with HTTP 200 otherwise, as
 * Baidu does) and ERNIE's body, and serves the v2 OpenAI-compatible API to `bce-v3/...` keys.
 */
const ERNIE4 = 'ERNIE-4.0-8K';
const ERNIE35 = 'ERNIE-3.5-8K';
const CHAT = '/rpc/2.0/ai_custom/v1/wenxinworkshop/chat';
const HELLO = '你好！有什么可以帮你的吗？';
const TEXT_USAGE: Usage = { prompt_tokens: 12, completion_tokens: 9 };

const gw = vendorGateway({
  mock: () => startMockBaidu({ exchangeDelayMs: 30 }),
  // Priced here so the charges below do not depend on the default price list (ERNIE-Speed and -Lite are free there).
  modelRatio: { [ERNIE4]: 2, [ERNIE35]: 0.5, 'ERNIE-Speed-128K': 0.1, 'Embedding-V1': 0.05, 'bce-reranker-base': 0.05 },
  completionRatio: { [ERNIE4]: 3, [ERNIE35]: 2, 'ERNIE-Speed-128K': 2 },
});
const { seedKey, openai, anthropic, settled, expectChargedOnce, expectSettledOnce } = gw;

type Mode = MockMode | `${MockMode}:${string}`;
const baiduChannel = (key: string, model: string, fields: { priority?: number; name?: string } = {}) =>
  seedChannel(gw.t.ctx.storage, { name: fields.name ?? `baidu-${key}-${model}`, type: 15, key, baseUrl: gw.mock.url, models: model, priority: fields.priority });
const ernieChannel = (mode: Mode, model: string, fields: { priority?: number; secret?: string } = {}) => baiduChannel(baiduKey(mode, fields.secret), model, fields);

/** The calls the mock got, as `token` (an exchange) or the API path's last segment. */
const calls = () => gw.mock.requests.map((r) => (r.path === '/oauth/2.0/token' ? 'token' : r.path.split('/').pop()));

describe('ERNIE through an access token', () => {
  it('the OpenAI SDK: the key is exchanged for a token once, ERNIE gets its own body at the model’s endpoint, the usage is charged', async () => {
    await ernieChannel('ok:basic', ERNIE4);
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: ERNIE4, max_tokens: 300, temperature: 1.5, messages: [{ role: 'system', content: '你是一个简洁的助手。' }, { role: 'user', content: '你好' }] });
    expect(answer.choices[0].message.content).toBe(HELLO);
    expect(answer.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 9 });
    expect(calls()).toEqual(['token', 'completions_pro']);
    const [exchange, chat] = gw.mock.requests;
    expect(exchange).toMatchObject({ method: 'POST', query: { grant_type: 'client_credentials', client_id: 'ok:basic', client_secret: 'secret-ok:basic' } });
    expect(chat.query.access_token).toMatch(/^24\./);
    expect(chat.body).toEqual({ messages: [{ role: 'user', content: '你好' }], system: '你是一个简洁的助手。', temperature: 1, max_output_tokens: 300 });
    await expectChargedOnce(token.id, ERNIE4, TEXT_USAGE);

    // The token is reused: a second request makes no exchange.
    await openai(token.key).chat.completions.create({ model: ERNIE4, messages: [{ role: 'user', content: '你好' }] });
    expect(calls()).toEqual(['token', 'completions_pro', 'completions_pro']);
  });

  it('a stream: ERNIE’s SSE becomes OpenAI chunks with the usage at the end', async () => {
    await ernieChannel('ok', ERNIE35);
    const token = await seedKey();
    const stream = await openai(token.key).chat.completions.create({ model: ERNIE35, messages: [{ role: 'user', content: '你好' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage ??= chunk.usage;
    }
    expect(text).toBe(HELLO);
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 9 });
    expect(gw.mock.requests.at(-1)).toMatchObject({ path: `${CHAT}/completions`, body: { stream: true } });
    await expectChargedOnce(token.id, ERNIE35, TEXT_USAGE);
  });

  it('tools: a function call comes back as a tool call, and its result goes back as a function message', async () => {
    await ernieChannel('ok', ERNIE35);
    const token = await seedKey();
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', description: '查询一个城市当前的天气', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: '北京今天天气怎么样？' }];
    const first = await openai(token.key).chat.completions.create({ model: ERNIE35, messages, tools });
    const call = first.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"北京"}' });
    expect(gw.mock.requests.at(-1)!.body).toMatchObject({ functions: [{ name: 'get_weather', description: '查询一个城市当前的天气' }] });

    messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"weather":"晴","temperature":"26℃"}' });
    const second = await openai(token.key).chat.completions.create({ model: ERNIE35, messages, tools, stream: true });
    let text = '';
    for await (const chunk of second) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('北京今天晴，气温 26℃。');
    expect((gw.mock.requests.at(-1)!.body as { messages: unknown[] }).messages).toEqual([
      { role: 'user', content: '北京今天天气怎么样？' },
      { role: 'assistant', content: '', function_call: { name: 'get_weather', arguments: '{"city":"北京"}' } },
      { role: 'function', name: 'get_weather', content: '{"weather":"晴","temperature":"26℃"}' },
    ]);
  });

  it('the Anthropic SDK, whole and streamed', async () => {
    await ernieChannel('ok', ERNIE4);
    const token = await seedKey();
    const message = await anthropic(token.key).messages.create({ model: ERNIE4, max_tokens: 256, system: '你是一个简洁的助手。', messages: [{ role: 'user', content: '你好' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: HELLO });
    expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 9 });
    expect(gw.mock.requests.at(-1)!.body).toMatchObject({ system: '你是一个简洁的助手。', max_output_tokens: 256 });
    const streamed = await anthropic(token.key).messages.stream({ model: ERNIE4, max_tokens: 256, messages: [{ role: 'user', content: '你好' }] }).finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: 'text', text: HELLO });
    expect(streamed.usage).toMatchObject({ output_tokens: 9 });
    const after = await settled(token.id, 2);
    expect(after.logs.map((l) => [l.prompt_tokens, l.completion_tokens])).toEqual([
      [12, 9],
      [12, 9],
    ]);
    expect(after.open).toEqual([]);
  });

  it('embeddings through Embedding-V1', async () => {
    await ernieChannel('ok', 'Embedding-V1');
    const token = await seedKey();
    const result = await openai(token.key).embeddings.create({ model: 'Embedding-V1', input: ['推荐一些美食', '给我讲个故事'], encoding_format: 'float' });
    expect(result.data.map((d) => d.index)).toEqual([0, 1]);
    expect(result.data[0].embedding).toEqual([0.018314670771360397, 0.00942440889775753, -0.036525607109069824]);
    expect(gw.mock.requests.at(-1)).toMatchObject({ path: '/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/embedding-v1', body: { input: ['推荐一些美食', '给我讲个故事'] } });
    await expectChargedOnce(token.id, 'Embedding-V1', { prompt_tokens: 12, completion_tokens: 0 });
  });
});

describe('rerank', () => {
  it('/v1/rerank in the Cohere/Jina shape goes to bce-reranker-base and is billed from ERNIE’s usage', async () => {
    await ernieChannel('ok', 'bce-reranker-base');
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'bce-reranker-base', query: '上海天气', documents: ['上海气候', '北京美食'], top_n: 2 }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ results: [{ index: 0, relevance_score: 0.7659813761711121 }, { index: 1 }], usage: { prompt_tokens: 15 } });
    expect(gw.mock.requests.at(-1)).toMatchObject({ path: '/rpc/2.0/ai_custom/v1/wenxinworkshop/reranker/bce_reranker_base', body: { query: '上海天气', documents: ['上海气候', '北京美食'], top_n: 2 } });
    await expectChargedOnce(token.id, 'bce-reranker-base', { prompt_tokens: 15, completion_tokens: 0 });
  });
});

describe('the access token', () => {
  it('concurrent first requests share ONE token exchange', async () => {
    await ernieChannel('ok:concurrent', ERNIE35);
    const token = await seedKey();
    const answers = await Promise.all(Array.from({ length: 8 }, () => openai(token.key).chat.completions.create({ model: ERNIE35, messages: [{ role: 'user', content: '你好' }] })));
    expect(answers.every((a) => a.choices[0].message.content === HELLO)).toBe(true);
    expect(gw.mock.tokenExchanges.filter((id) => id === 'ok:concurrent')).toHaveLength(1);
    expect(calls().filter((c) => c === 'token')).toHaveLength(1);
    expect(new Set(gw.mock.requests.filter((r) => r.path.startsWith(CHAT)).map((r) => r.query.access_token)).size).toBe(1);
    const after = await settled(token.id, 8);
    expect(after.logs).toHaveLength(8);
  });

  it('an expired token (ERNIE says 111 with HTTP 200) is fetched again once and the request succeeds, charged once', async () => {
    await ernieChannel('ok:expiry', ERNIE35);
    const token = await seedKey();
    await openai(token.key).chat.completions.create({ model: ERNIE35, messages: [{ role: 'user', content: '你好' }] });
    gw.mock.expireAll();
    gw.mock.requests.length = 0;
    await gw.t.ctx.relay.ledger.drain();
    const first = await gw.t.ctx.storage.db.selectFrom('logs').select('id').where('token_id', '=', token.id).execute();
    expect(first).toHaveLength(1);
    const stream = await openai(token.key).chat.completions.create({ model: ERNIE35, messages: [{ role: 'user', content: '你好' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(HELLO);
    expect(calls()).toEqual(['completions', 'token', 'completions']);
    expect(gw.mock.requests[0].query.access_token).not.toBe(gw.mock.requests[2].query.access_token);
    const after = await settled(token.id, 2);
    expect(after.logs).toHaveLength(2);
    expect(after.open).toEqual([]);
  });

  it('a token refused even when fresh (110 every time) is retried once on the channel, then another channel answers; neither is disabled', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const refused = await ernieChannel('fail-401', ERNIE35, { priority: 10 });
    await ernieChannel('ok:after-401', ERNIE35, { priority: 0 });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: ERNIE35, messages: [{ role: 'user', content: '你好' }] });
    expect(answer.choices[0].message.content).toBe(HELLO);
    expect(gw.mock.requests.map((r) => (r.path === '/oauth/2.0/token' ? `token:${r.query.client_id}` : r.key))).toEqual(['token:fail-401', 'fail-401', 'token:fail-401', 'fail-401', 'token:ok:after-401', 'ok:after-401']);
    expect((await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', refused).executeTakeFirstOrThrow()).status).toBe(1);
    await expectChargedOnce(token.id, ERNIE35, TEXT_USAGE);
  });

  it('a wrong Secret Key fails the exchange: the next channel answers', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await ernieChannel('ok:wrong', ERNIE35, { priority: 10, secret: 'not-the-secret' });
    await ernieChannel('ok:right', ERNIE35, { priority: 0 });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: ERNIE35, messages: [{ role: 'user', content: '你好' }] });
    expect(answer.choices[0].message.content).toBe(HELLO);
    expect(calls()).toEqual(['token', 'token', 'completions']);
    await expectChargedOnce(token.id, ERNIE35, TEXT_USAGE);
  });
});

describe('faults, each settled exactly once', () => {
  it('the QPS limit (18, with HTTP 200) is retried on another channel; the limited one stays enabled', async () => {
    await gw.t.ctx.options.set('RetryTimes', '2');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const limited = await ernieChannel('fail-429', ERNIE35, { priority: 10 });
    const good = await ernieChannel('ok:qps', ERNIE35, { priority: 0 });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: ERNIE35, messages: [{ role: 'user', content: '你好' }] });
    expect(answer.choices[0].message.content).toBe(HELLO);
    expect(gw.mock.requests.filter((r) => r.path.startsWith(CHAT)).map((r) => r.key)).toEqual(['fail-429', 'ok:qps']);
    const log = await expectChargedOnce(token.id, ERNIE35, TEXT_USAGE);
    expect(log.channel_id).toBe(good);
    expect((await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', limited).executeTakeFirstOrThrow()).status).toBe(1);
  });

  it('a used-up quota (17) disables the channel and another one answers', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const spent = await ernieChannel('fail-403:quota', ERNIE35, { priority: 10 });
    await ernieChannel('ok', ERNIE35, { priority: 0 });
    const token = await seedKey();
    const message = await anthropic(token.key).messages.create({ model: ERNIE35, max_tokens: 100, messages: [{ role: 'user', content: '你好' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: HELLO });
    expect((await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', spent).executeTakeFirstOrThrow()).status).toBe(3);
    await expectChargedOnce(token.id, ERNIE35, TEXT_USAGE);
  });

  it('a parameter error (336003) is not retried and reaches the client as a 400 with ERNIE’s words', async () => {
    await gw.t.ctx.options.set('RetryTimes', '2');
    await ernieChannel('fail-400', ERNIE35, { priority: 10 });
    await ernieChannel('ok', ERNIE35, { priority: 0 });
    const token = await seedKey();
    const error = await openai(token.key).chat.completions.create({ model: ERNIE35, messages: [{ role: 'user', content: '你好' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('the parameter check failed（错误码 336003）');
    expect(gw.mock.requests.filter((r) => r.path.startsWith(CHAT))).toHaveLength(1);
    const after = await settled(token.id, 0);
    expect(after.logs).toEqual([]);
    expect(after.token.remain_quota).toBe(10_000_000);
    expect(after.open).toEqual([]);
  });

  it('an error event mid-stream ends the client’s stream with its error chunk, billed for what was delivered', async () => {
    await ernieChannel('stream-error', ERNIE35);
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: ERNIE35, messages: [{ role: 'user', content: '你好' }], stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('"content":"你好！"');
    expect(text).toContain('"code":"stream_broken"');
    expect(text).toContain('try again later（错误码 336100）');
    const log = await expectSettledOnce(token.id);
    expect(log.content).toContain('上游流式响应中断');
    expect(log.quota).toBeGreaterThan(0);
  });

  it('a stream cut mid-way ends an Anthropic client stream with its error event, billed for what was delivered', async () => {
    await ernieChannel('break', ERNIE35);
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': `sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: ERNIE35, max_tokens: 100, stream: true, messages: [{ role: 'user', content: '你好' }] }),
    });
    const text = await res.text();
    expect(text).toContain('你好！');
    expect(text).toContain('event: error');
    expect(text).not.toContain('message_stop');
    const log = await expectSettledOnce(token.id);
    expect(log.quota).toBeGreaterThan(0);
  });
});

describe('Qianfan v2 with a bce-v3 key', () => {
  it('chat and stream go to /v2/chat/completions with the key as bearer, no token exchange; charged from its usage', async () => {
    await baiduChannel(baiduV2Key('ok'), ERNIE4);
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: ERNIE4, messages: [{ role: 'user', content: '你好' }] });
    expect(answer.choices[0].message.content).toBe(HELLO);
    expect(gw.mock.requests).toHaveLength(1);
    expect(gw.mock.requests[0]).toMatchObject({ path: '/v2/chat/completions', headers: { authorization: `Bearer ${baiduV2Key('ok')}` }, body: { model: 'ernie-4.0-8k' } });
    await expectChargedOnce(token.id, ERNIE4, TEXT_USAGE);

    const message = await anthropic(token.key).messages.stream({ model: ERNIE4, max_tokens: 100, messages: [{ role: 'user', content: '你好' }] }).finalMessage();
    expect(message.content[0]).toMatchObject({ type: 'text', text: HELLO });
    expect(gw.mock.requests.at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(calls()).not.toContain('token');
  });

  it('a refused v2 key disables the channel and another answers', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const bad = await baiduChannel('bce-v3/ALTAK-ok/0000', ERNIE4, { priority: 10 });
    await baiduChannel(baiduV2Key('ok'), ERNIE4, { priority: 0 });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: ERNIE4, messages: [{ role: 'user', content: '你好' }] });
    expect(answer.choices[0].message.content).toBe(HELLO);
    expect((await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', bad).executeTakeFirstOrThrow()).status).toBe(3);
    await expectChargedOnce(token.id, ERNIE4, TEXT_USAGE);
  });
});

describe('the channel test button', () => {
  it('tests ERNIE and v2 channels saved the way the console saves them; a wrong secret fails with the reason', async () => {
    const root = await gw.t.login('root', '123456');
    const create = (name: string, key: string) => gw.t.call({ method: 'POST', url: '/api/channel/', cookie: root, payload: { name, type: 15, key, base_url: gw.mock.url, models: `${ERNIE35},Embedding-V1`, group: 'default' } });
    expect((await create('ernie', baiduKey('ok:console'))).body.success).toBe(true);
    expect((await create('ernie-v2', baiduV2Key('ok'))).body.success).toBe(true);
    expect((await create('ernie-bad', baiduKey('ok:console-bad', 'wrong'))).body.success).toBe(true);
    const list = (await gw.t.call({ method: 'GET', url: '/api/channel/?p=0', cookie: root })).body.data as Array<{ id: number; name: string }>;
    const idOf = (name: string) => list.find((c) => c.name === name)!.id;

    const ernie = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('ernie')}`, cookie: root });
    expect(ernie.body).toMatchObject({ success: true, model: ERNIE35, message: HELLO });
    expect(calls()).toEqual(['token', 'completions']);
    const v2 = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('ernie-v2')}`, cookie: root });
    expect(v2.body).toMatchObject({ success: true, model: ERNIE35, message: HELLO });
    expect(gw.mock.requests.at(-1)!.path).toBe('/v2/chat/completions');
    const bad = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('ernie-bad')}`, cookie: root });
    expect(bad.body).toMatchObject({ success: false, message: expect.stringContaining('Client authentication failed') });
  });
});
