import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import type { Usage } from '../../billing/usage.js';
import { seedChannel } from '../../test-support/seed.js';
import { hunyuanKey, hunyuanSecretKey, startMockHunyuan } from '../../test-support/upstreams/hunyuan.js';
import type { MockMode } from '../../test-support/upstreams/mock-server.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';
import { signTc3 } from '../providers/hunyuan/tc3-sign.js';

/**
 * Tencent Hunyuan channels (type 23) end to end: the official SDKs -> the gateway -> a local Hunyuan that recomputes
 * every TC3-HMAC-SHA256 signature (the signing is proven by the mock accepting it) and answers Tencent Cloud API 3.0's
 * envelope and SSE; a plain API key reaches the OpenAI-compatible API with its bearer checked.
 */
const MODEL = 'hunyuan-turbos-latest';
const TEXT = '你好！有什么我可以帮你的吗？';
const TEXT_USAGE: Usage = { prompt_tokens: 9, completion_tokens: 10 };

const gw = vendorGateway({
  mock: startMockHunyuan,
  modelRatio: { [MODEL]: 1.5, 'hunyuan-embedding': 0.5 },
  completionRatio: { [MODEL]: 3 },
});
const { seedKey, openai, anthropic, settled, expectCharged, expectSettledOnce } = gw;

type Mode = MockMode | `${MockMode}:${string}`;
const channel = (mode: Mode, fields: { priority?: number; secret?: string; models?: string; key?: string } = {}) =>
  seedChannel(gw.t.ctx.storage, { name: `hunyuan-${mode}`, type: 23, key: fields.key ?? hunyuanKey(mode, fields.secret), baseUrl: gw.mock.url, models: fields.models ?? MODEL, priority: fields.priority });

const sent = (i = 0) => gw.mock.requests[i].body as Record<string, any>;

describe('an AppId|SecretId|SecretKey channel: signed API 3.0 calls', () => {
  it('OpenAI SDK chat: ChatCompletions signed with TC3 over the bytes sent, the envelope read back, charged once', async () => {
    await channel('ok');
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: MODEL, max_tokens: 300, temperature: 0.8, messages: [{ role: 'system', content: '你是一个简洁的助手。' }, { role: 'user', content: '你好' }] });
    expect(answer.choices[0]).toMatchObject({ message: { role: 'assistant', content: TEXT }, finish_reason: 'stop' });
    expect(answer.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 10, total_tokens: 19 });
    const request = gw.mock.requests[0];
    expect(request.path).toBe('/');
    expect(request.headers).toMatchObject({ 'x-tc-action': 'ChatCompletions', 'x-tc-version': '2023-09-01', 'content-type': 'application/json' });
    expect(String(request.headers.authorization)).toMatch(/^TC3-HMAC-SHA256 Credential=ok\/\d{4}-\d{2}-\d{2}\/hunyuan\/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=[0-9a-f]{64}$/);
    expect(request.key).toBe('ok');
    // The documented fields only (Tencent refuses unknown ones): no output limit.
    expect(sent()).toEqual({ Model: MODEL, Messages: [{ Role: 'system', Content: '你是一个简洁的助手。' }, { Role: 'user', Content: '你好' }], Stream: false, Temperature: 0.8 });
    await expectCharged(token.id, MODEL, TEXT_USAGE);
  });

  it('OpenAI SDK stream: the SSE frames become chunks, usage from the last frame, charged once', async () => {
    await channel('ok');
    const token = await seedKey();
    const stream = await openai(token.key).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: '你好' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage ??= chunk.usage;
    }
    expect(text).toBe(TEXT);
    expect(usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 10 });
    expect(sent().Stream).toBe(true);
    await expectCharged(token.id, MODEL, TEXT_USAGE);
  });

  it('OpenAI SDK tools: the call comes back (whole and streamed), and its result goes back as a tool message', async () => {
    await channel('ok');
    const token = await seedKey();
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'lookup_weather', description: '查询天气', parameters } }];
    const first = await openai(token.key).chat.completions.create({ model: MODEL, tools, messages: [{ role: 'user', content: '北京今天天气怎么样？' }] });
    const call = first.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ id: 'call_d3k8m2p1q9r7s5t0', function: { name: 'lookup_weather', arguments: '{"city":"北京"}' } });
    expect(sent().Tools[0]).toEqual({ Type: 'function', Function: { Name: 'lookup_weather', Description: '查询天气', Parameters: JSON.stringify(parameters) } });

    const stream = await openai(token.key).chat.completions.create({ model: MODEL, tools, stream: true, messages: [{ role: 'user', content: '北京今天天气怎么样？' }] });
    let args = '';
    for await (const chunk of stream) args += chunk.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '';
    expect(args).toBe('{"city":"北京"}');

    const final = await openai(token.key).chat.completions.create({
      model: MODEL,
      tools,
      messages: [{ role: 'user', content: '北京今天天气怎么样？' }, first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"weather":"晴","temperature":25}' }],
    });
    expect(final.choices[0].message.content).toBe('北京今天晴，气温 25°C。');
    expect(sent(2).Messages.slice(1)).toEqual([
      { Role: 'assistant', Content: '', ToolCalls: [{ Id: call.id, Type: 'function', Function: { Name: 'lookup_weather', Arguments: '{"city":"北京"}' } }] },
      { Role: 'tool', Content: '{"weather":"晴","temperature":25}', ToolCallId: call.id },
    ]);
    await expectCharged(token.id, MODEL, { prompt_tokens: 96, completion_tokens: 18 }, { prompt_tokens: 96, completion_tokens: 18 }, { prompt_tokens: 131, completion_tokens: 12 });
  });

  it('Anthropic SDK: /v1/messages whole and streamed, translated from Hunyuan', async () => {
    await channel('ok');
    const token = await seedKey();
    const message = await anthropic(token.key).messages.create({ model: MODEL, max_tokens: 100, system: '你是一个简洁的助手。', messages: [{ role: 'user', content: '你好' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: TEXT });
    expect(message.usage).toMatchObject({ input_tokens: 9, output_tokens: 10 });
    expect(sent().Messages[0]).toEqual({ Role: 'system', Content: '你是一个简洁的助手。' });
    const streamed = await anthropic(token.key).messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: '你好' }] }).finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: 'text', text: TEXT });
    expect(sent(1).Stream).toBe(true);
    await expectCharged(token.id, MODEL, TEXT_USAGE, TEXT_USAGE);
  });

  it('OpenAI SDK embeddings: GetEmbedding, 1024 dimensions, billed by its prompt tokens', async () => {
    await channel('ok', { models: 'hunyuan-embedding' });
    const token = await seedKey();
    const result = await openai(token.key).embeddings.create({ model: 'hunyuan-embedding', input: '腾讯混元', encoding_format: 'float' });
    expect(result.data[0].embedding).toHaveLength(1024);
    expect(result.usage).toMatchObject({ prompt_tokens: 4, total_tokens: 4 });
    expect(gw.mock.requests[0].headers['x-tc-action']).toBe('GetEmbedding');
    expect(sent()).toEqual({ Input: '腾讯混元' });
    const after = await settled(token.id, 1);
    expect(after.logs[0].prompt_tokens).toBe(4);
    expect(after.logs[0].quota).toBe(costOf({ prompt_tokens: 4, completion_tokens: 0 }, pricesFor(gw.t.ctx.options, 'hunyuan-embedding', 'default')));
  });
});

describe('a plain API key: the OpenAI-compatible API', () => {
  it('chat and stream go to /v1/chat/completions with the key as bearer; a wrong key is refused there', async () => {
    await channel('ok', { key: 'ok:plain' });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: '你好' }], max_tokens: 50 });
    expect(answer.choices[0].message.content).toBe(TEXT);
    expect(gw.mock.requests[0]).toMatchObject({ path: '/v1/chat/completions', key: 'ok:plain' });
    expect(gw.mock.requests[0].headers.authorization).toBe('Bearer ok:plain');
    expect(sent()).toMatchObject({ model: MODEL, max_tokens: 50 });
    const stream = await openai(token.key).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: '你好' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(TEXT);
    expect(sent(1).stream_options).toEqual({ include_usage: true });
    await expectCharged(token.id, MODEL, TEXT_USAGE, TEXT_USAGE);
  });
});

describe('faults, each settled exactly once', () => {
  it('a wrong SecretKey fails the signature check (HTTP 200 + Response.Error): the channel is disabled and another answers', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const wrong = await channel('ok:wrong', { priority: 10, secret: 'not-the-secret' });
    await channel('ok:right', { priority: 0 });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: '你好' }] });
    expect(answer.choices[0].message.content).toBe(TEXT);
    expect(gw.mock.requests.map((r) => r.key)).toEqual([undefined, 'ok:right']);
    const row = await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', wrong).executeTakeFirstOrThrow();
    expect(row.status).toBe(3);
    await expectCharged(token.id, MODEL, TEXT_USAGE);
  });

  it('RequestLimitExceeded is retried on another channel; the limited one stays enabled', async () => {
    await gw.t.ctx.options.set('RetryTimes', '2');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const limited = await channel('fail-429', { priority: 10 });
    await channel('ok', { priority: 0 });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: '你好' }] });
    expect(answer.choices[0].message.content).toBe(TEXT);
    expect(gw.mock.requests.map((r) => r.key)).toEqual(['fail-429', 'ok']);
    const row = await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', limited).executeTakeFirstOrThrow();
    expect(row.status).toBe(1);
    await expectCharged(token.id, MODEL, TEXT_USAGE);
  });

  it('a request Hunyuan refuses (InvalidParameter) is not retried and reaches the client as a 400, nothing charged', async () => {
    await gw.t.ctx.options.set('RetryTimes', '2');
    await channel('fail-400', { priority: 10 });
    await channel('ok', { priority: 0 });
    const token = await seedKey();
    const error = await openai(token.key).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: '你好' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('InvalidParameter');
    expect(gw.mock.requests).toHaveLength(1);
    const after = await settled(token.id, 0);
    expect(after.logs).toEqual([]);
    expect(after.token.remain_quota).toBe(10_000_000);
    expect(after.open).toEqual([]);
  });

  it("ErrorMsg mid-stream ends the client's stream with an error, billed for what was delivered", async () => {
    await channel('stream-error');
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: '你好' }], stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('"content":"你好！"');
    expect(text).toContain('"code":"stream_broken"');
    expect(text).toContain('4001: 请求模型超时');
    const log = await expectSettledOnce(token.id);
    expect(log.content).toContain('上游流式响应中断');
    expect(log.quota).toBeGreaterThan(0);
  });

  it('a stream cut mid-way ends an Anthropic client stream with its error event, settled once', async () => {
    await channel('break');
    const token = await seedKey();
    const error = await anthropic(token.key).messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: '你好' }] }).finalMessage().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    await expectSettledOnce(token.id);
  });
});

describe('the mock refuses as Tencent does', () => {
  const call = async (timestamp: number, secretKey = hunyuanSecretKey('ok')) => {
    const body = JSON.stringify({ Model: MODEL, Messages: [{ Role: 'user', Content: 'hi' }] });
    const host = new URL(gw.mock.url).host;
    const { authorization } = signTc3({ secretId: 'ok', secretKey, service: 'hunyuan', timestamp, headers: { 'content-type': 'application/json', host, 'x-tc-action': 'ChatCompletions' }, body });
    const res = await fetch(`${gw.mock.url}/`, { method: 'POST', headers: { authorization, 'content-type': 'application/json', 'x-tc-action': 'ChatCompletions', 'x-tc-version': '2023-09-01', 'x-tc-timestamp': String(timestamp) }, body });
    return { status: res.status, json: (await res.json()) as any };
  };

  it('a good signature is taken; a wrong one, or one 10 minutes old, gets HTTP 200 with Response.Error', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await call(now)).json.Response.Choices[0].Message.Content).toBe(TEXT);
    const wrong = await call(now, 'wrong');
    expect(wrong).toMatchObject({ status: 200, json: { Response: { Error: { Code: 'AuthFailure.SignatureFailure' } } } });
    expect((await call(now - 600)).json.Response.Error.Code).toBe('AuthFailure.SignatureExpire');
  });
});

describe('the channel test button', () => {
  it('passes for a signed channel and for an API-key channel; a wrong secret fails it and disables the channel', async () => {
    const root = await gw.t.login('root', '123456');
    const good = await channel('ok');
    const plain = await channel('ok:plain', { key: 'ok:plain' });
    const bad = await channel('ok:bad', { secret: 'wrong-secret' });
    for (const id of [good, plain]) {
      const result = await gw.t.call({ method: 'GET', url: `/api/channel/test/${id}`, cookie: root });
      expect(result.body).toMatchObject({ success: true, model: MODEL, message: TEXT });
    }
    expect(gw.mock.requests.map((r) => r.path)).toEqual(['/', '/v1/chat/completions']);
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const failed = await gw.t.call({ method: 'GET', url: `/api/channel/test/${bad}`, cookie: root });
    expect(failed.body).toMatchObject({ success: false, message: expect.stringContaining('AuthFailure.SignatureFailure') });
    expect((await gw.t.call({ method: 'GET', url: `/api/channel/${bad}`, cookie: root })).body.data.status).toBe(3);
  });
});
