import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import type { Usage } from '../../billing/usage.js';
import { seedChannel } from '../../test-support/seed.js';
import type { MockMode } from '../../test-support/upstreams/mock-server.js';
import {
  SPARK_AFTER_TOOL,
  SPARK_AFTER_TOOL_USAGE,
  SPARK_CALL,
  SPARK_CALL_USAGE,
  SPARK_TEXT,
  SPARK_TEXT_USAGE,
  sparkCredentials,
  sparkKey,
  startMockSpark,
} from '../../test-support/upstreams/spark.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * iFlytek Spark channels (type 18) end to end: the official SDKs -> the gateway -> a local Spark whose WebSocket
 * handshake recomputes the HMAC-SHA256 URL signature (so the signing is proven by the mock accepting it), checks the
 * app id and the domain of the version path, and streams frames with the usage in the last; and whose HTTP
 * OpenAI-compatible API checks `Bearer APIKey:APISecret`.
 */
const MAX = 'Spark-Max';
const LITE = 'Spark-Lite';

const gw = vendorGateway({
  mock: startMockSpark,
  // Spark is sold in token packages (no per-token list price): these tests price it themselves.
  modelRatio: { [MAX]: 1.5, [LITE]: 0.25 },
  completionRatio: { [MAX]: 2, [LITE]: 1 },
});
const { seedKey, openai, anthropic, settled, expectChargedOnce, expectSettledOnce } = gw;

type Mode = MockMode | `${MockMode}:${string}`;
const sparkChannel = (mode: Mode, model: string, fields: { priority?: number; secret?: string; http?: boolean; name?: string } = {}) =>
  seedChannel(gw.t.ctx.storage, {
    name: fields.name ?? `spark-${mode}-${model}`,
    type: 18,
    key: sparkKey(mode, fields.secret ? { apiSecret: fields.secret } : {}),
    baseUrl: fields.http ? gw.mock.url : gw.mock.wsUrl,
    models: model,
    priority: fields.priority,
  });

const usageOf = (u: { prompt_tokens: number; completion_tokens: number }): Usage => ({ prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens });
const statusOf = async (id: number) => (await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

describe('the WebSocket API, signed', () => {
  it('an OpenAI chat reaches the version of the model over a signed socket, and is charged the last frame\'s usage', async () => {
    await sparkChannel('ok', MAX);
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: MAX, max_tokens: 300, temperature: 1.8, messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: '你是谁' }] });
    expect(answer.choices[0].message.content).toBe(SPARK_TEXT);
    expect(answer.choices[0].finish_reason).toBe('stop');
    expect(answer.usage).toMatchObject({ prompt_tokens: SPARK_TEXT_USAGE.prompt_tokens, completion_tokens: SPARK_TEXT_USAGE.completion_tokens });
    const [sent] = gw.mock.requests;
    expect(sent.path).toBe('/v3.5/chat');
    expect(Object.keys(sent.query)).toEqual(['authorization', 'date', 'host']);
    expect(sent.key).toBe('ok');
    expect(sent.body).toEqual({
      header: { app_id: sparkCredentials('ok').appId },
      parameter: { chat: { domain: 'generalv3.5', temperature: 1, max_tokens: 300 } },
      payload: { message: { text: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: '你是谁' }] } },
    });
    await expectChargedOnce(token.id, MAX, usageOf(SPARK_TEXT_USAGE));
  });

  it('an OpenAI stream gets the frames as they arrive, with the usage at the end', async () => {
    await sparkChannel('ok', LITE);
    const token = await seedKey();
    const stream = await openai(token.key).chat.completions.create({ model: LITE, messages: [{ role: 'user', content: '你是谁' }], stream: true, stream_options: { include_usage: true } });
    const pieces: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta?.content) pieces.push(chunk.choices[0].delta.content);
      usage ??= chunk.usage;
    }
    expect(pieces.join('')).toBe(SPARK_TEXT);
    expect(pieces.length).toBeGreaterThan(3);
    expect(usage).toMatchObject({ prompt_tokens: SPARK_TEXT_USAGE.prompt_tokens, completion_tokens: SPARK_TEXT_USAGE.completion_tokens });
    expect(gw.mock.requests[0].path).toBe('/v1.1/chat');
    expect((gw.mock.requests[0].body as { parameter: unknown }).parameter).toEqual({ chat: { domain: 'lite' } });
    await expectChargedOnce(token.id, LITE, usageOf(SPARK_TEXT_USAGE));
  });

  it('tools: a function_call comes back as an OpenAI tool call, and its result goes back as the user telling it', async () => {
    const id = await sparkChannel('ok', MAX);
    const token = await seedKey();
    const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: '合肥天气怎么样？' }];
    const first = await openai(`${token.key}-${id}`).chat.completions.create({ model: MAX, tools, messages });
    const call = first.choices[0].message.tool_calls?.[0];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ type: 'function', function: { name: SPARK_CALL.name, arguments: SPARK_CALL.arguments } });
    expect((gw.mock.requests[0].body as { payload: { functions: unknown } }).payload.functions).toEqual({ text: [{ name: 'get_weather', description: 'Weather of a city', parameters: tools[0].type === 'function' ? tools[0].function.parameters : {} }] });

    messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call!.id, content: '晴，25 度' });
    const second = await openai(`${token.key}-${id}`).chat.completions.create({ model: MAX, tools, messages, stream: true });
    let text = '';
    for await (const chunk of second) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(SPARK_AFTER_TOOL);
    expect((gw.mock.requests[1].body as { payload: { message: { text: unknown[] } } }).payload.message.text.slice(1)).toEqual([
      { role: 'assistant', content: `调用函数 get_weather，参数：${SPARK_CALL.arguments}` },
      { role: 'user', content: '函数 get_weather 的返回结果：晴，25 度' },
    ]);
    const after = await settled(token.id, 2);
    expect(after.logs.map((l) => [l.prompt_tokens, l.completion_tokens, l.quota]).sort()).toEqual(
      [SPARK_CALL_USAGE, SPARK_AFTER_TOOL_USAGE].map((u) => [u.prompt_tokens, u.completion_tokens, costOf(usageOf(u), pricesFor(gw.t.ctx.options, MAX, 'default'))]).sort(),
    );
  });

  it('an Anthropic client (whole and streamed) is answered from the same frames', async () => {
    const id = await sparkChannel('ok', LITE);
    const token = await seedKey();
    const message = await anthropic(`${token.key}-${id}`).messages.create({ model: LITE, max_tokens: 200, messages: [{ role: 'user', content: '你是谁' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: SPARK_TEXT });
    expect(message.usage).toMatchObject({ input_tokens: SPARK_TEXT_USAGE.prompt_tokens, output_tokens: SPARK_TEXT_USAGE.completion_tokens });
    const streamed = await anthropic(`${token.key}-${id}`).messages.stream({ model: LITE, max_tokens: 200, messages: [{ role: 'user', content: '你是谁' }] }).finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: 'text', text: SPARK_TEXT });
    expect(gw.mock.requests.map((r) => r.path)).toEqual(['/v1.1/chat', '/v1.1/chat']);
    const after = await settled(token.id, 2);
    const cost = costOf(usageOf(SPARK_TEXT_USAGE), pricesFor(gw.t.ctx.options, LITE, 'default'));
    expect(after.logs.map((l) => l.quota)).toEqual([cost, cost]);
    expect(after.token.remain_quota).toBe(10_000_000 - 2 * cost);
  });
});

describe('the HTTP OpenAI-compatible API (an http(s):// base URL)', () => {
  it('the same key is sent as Bearer APIKey:APISecret with the domain as the model, whole and streamed', async () => {
    const id = await sparkChannel('ok', MAX, { http: true });
    const token = await seedKey();
    const answer = await openai(`${token.key}-${id}`).chat.completions.create({ model: MAX, messages: [{ role: 'user', content: '你是谁' }] });
    expect(answer.choices[0].message.content).toBe(SPARK_TEXT);
    const { apiKey, apiSecret } = sparkCredentials('ok');
    expect(gw.mock.requests[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', headers: expect.objectContaining({ authorization: `Bearer ${apiKey}:${apiSecret}` }), body: { model: 'generalv3.5' } });
    const stream = await openai(`${token.key}-${id}`).chat.completions.create({ model: MAX, messages: [{ role: 'user', content: '你是谁' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(SPARK_TEXT);
    expect(gw.mock.requests[1].body).toMatchObject({ model: 'generalv3.5', stream: true });
    expect(gw.mock.requests[1].body).not.toHaveProperty('stream_options');
    const after = await settled(token.id, 2);
    const cost = costOf(usageOf(SPARK_TEXT_USAGE), pricesFor(gw.t.ctx.options, MAX, 'default'));
    expect(after.logs.map((l) => l.quota)).toEqual([cost, cost]);
  });
});

describe('faults, each settled exactly once', () => {
  it('a wrong APISecret fails the handshake (401, signature recomputed): the channel is disabled and another one answers', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const wrong = await sparkChannel('ok:wrong', MAX, { priority: 10, secret: 'not-the-secret' });
    const good = await sparkChannel('ok:right', MAX, { priority: 0 });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: MAX, messages: [{ role: 'user', content: '你是谁' }] });
    expect(answer.choices[0].message.content).toBe(SPARK_TEXT);
    expect(gw.mock.requests.map((r) => r.key)).toEqual([undefined, 'ok:right']);
    expect(await statusOf(wrong)).toBe(3);
    const log = await expectChargedOnce(token.id, MAX, usageOf(SPARK_TEXT_USAGE));
    expect(log.channel_id).toBe(good);
  });

  it('an 11200 licence error frame disables the channel and another one answers', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const dead = await sparkChannel('fail-401', MAX, { priority: 10 });
    await sparkChannel('ok', MAX, { priority: 0 });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: MAX, messages: [{ role: 'user', content: '你是谁' }] });
    expect(answer.choices[0].message.content).toBe(SPARK_TEXT);
    expect(gw.mock.requests.map((r) => r.key)).toEqual(['fail-401', 'ok']);
    expect(await statusOf(dead)).toBe(3);
    await expectChargedOnce(token.id, MAX, usageOf(SPARK_TEXT_USAGE));
  });

  it('a rate limit (11202) is retried on another channel; the limited one stays enabled', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const limited = await sparkChannel('fail-429', LITE, { priority: 10 });
    await sparkChannel('ok', LITE, { priority: 0 });
    const token = await seedKey();
    const message = await anthropic(token.key).messages.create({ model: LITE, max_tokens: 100, messages: [{ role: 'user', content: '你是谁' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: SPARK_TEXT });
    expect(gw.mock.requests.map((r) => r.key)).toEqual(['fail-429', 'ok']);
    expect(await statusOf(limited)).toBe(1);
    await expectChargedOnce(token.id, LITE, usageOf(SPARK_TEXT_USAGE));
  });

  it('a content refusal (10013) is not retried, reaches the client as a 400 with Spark\'s reason, and costs nothing', async () => {
    await gw.t.ctx.options.set('RetryTimes', '2');
    await sparkChannel('fail-400', MAX, { priority: 10 });
    await sparkChannel('ok', MAX, { priority: 0 });
    const token = await seedKey();
    const error = await openai(token.key).chat.completions.create({ model: MAX, messages: [{ role: 'user', content: '你是谁' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('讯飞星火返回错误 10013');
    expect(gw.mock.requests).toHaveLength(1);
    const after = await settled(token.id, 0);
    expect(after.logs).toEqual([]);
    expect(after.token.remain_quota).toBe(10_000_000);
    expect(after.open).toEqual([]);
  });

  it('a socket that drops mid-answer ends the stream with an error chunk and is billed for what was delivered', async () => {
    await sparkChannel('break', MAX);
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MAX, messages: [{ role: 'user', content: '你是谁' }], stream: true }),
    });
    const text = await res.text();
    expect(text).toContain(`"content":"${SPARK_TEXT.slice(0, 6)}"`);
    expect(text).toContain('"code":"stream_broken"');
    expect(text).not.toContain('[DONE]');
    const log = await expectSettledOnce(token.id);
    expect(log.content).toContain('上游流式响应中断');
    // No usage frame arrived: the delivered half is counted, and charged at the model's price.
    expect(log.completion_tokens).toBeGreaterThan(0);
    expect(log.quota).toBe(costOf({ prompt_tokens: log.prompt_tokens, completion_tokens: log.completion_tokens }, pricesFor(gw.t.ctx.options, MAX, 'default')));
  });

  it('an error frame mid-stream (10014) ends the stream with Spark\'s reason', async () => {
    await sparkChannel('stream-error', MAX);
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MAX, messages: [{ role: 'user', content: '你是谁' }], stream: true }),
    });
    const text = await res.text();
    expect(text).toContain(`"content":"${SPARK_TEXT.slice(0, 6)}"`);
    expect(text).toContain('讯飞星火返回错误 10014');
    const after = await settled(token.id, 1);
    expect(after.logs).toHaveLength(1);
    expect(after.open).toEqual([]);
  });

  it('a client that leaves mid-stream: the upstream socket is read to its last frame for the usage, and the request settled once at it', async () => {
    await sparkChannel('slow-stream', MAX);
    const token = await seedKey();
    const abort = new AbortController();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MAX, messages: [{ role: 'user', content: '你是谁' }], stream: true }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    // The mock paces its frames 60 ms apart; its last carries the usage, which the gateway reads (STREAM_DRAIN_SECONDS).
    const log = await expectSettledOnce(token.id);
    expect(log.content).toContain('客户端中途断开');
    expect(log.content).not.toContain('用量异常');
    expect(gw.mock.requests[0].aborted).toBeFalsy();
  });
});

describe('the channel test button', () => {
  it('tests a Spark channel saved the way the console saves it, and disables one whose secret is wrong', async () => {
    const root = await gw.t.login('root', '123456');
    const create = (name: string, key: string) => gw.t.call({ method: 'POST', url: '/api/channel/', cookie: root, payload: { name, type: 18, key, base_url: gw.mock.wsUrl, models: `${MAX},${LITE}`, group: 'default' } });
    expect((await create('spark-good', sparkKey('ok'))).body.success).toBe(true);
    expect((await create('spark-bad', sparkKey('ok', { apiSecret: 'wrong-secret' }))).body.success).toBe(true);
    const list = (await gw.t.call({ method: 'GET', url: '/api/channel/?p=0', cookie: root })).body.data as Array<{ id: number; name: string }>;
    const idOf = (name: string) => list.find((c) => c.name === name)!.id;

    const good = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('spark-good')}`, cookie: root });
    expect(good.body).toMatchObject({ success: true, model: MAX, message: SPARK_TEXT });
    expect(gw.mock.requests.at(-1)!.path).toBe('/v3.5/chat');
    const lite = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('spark-good')}?model=${LITE}`, cookie: root });
    expect(lite.body).toMatchObject({ success: true, model: LITE, message: SPARK_TEXT });
    expect(gw.mock.requests.at(-1)!.path).toBe('/v1.1/chat');

    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const bad = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('spark-bad')}`, cookie: root });
    expect(bad.body).toMatchObject({ success: false, message: expect.stringContaining('HMAC signature does not match') });
    expect((await gw.t.call({ method: 'GET', url: `/api/channel/${idOf('spark-bad')}`, cookie: root })).body.data.status).toBe(3);
  });
});
