import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { contextWindowOf } from '../../billing/media-bounds.js';
import { costOf, pricesFor } from '../../billing/pricing.js';
import type { Usage } from '../../billing/usage.js';
import { seedChannel } from '../../test-support/seed.js';
import { cozeToken, startMockCoze } from '../../test-support/upstreams/coze.js';
import type { MockMode } from '../../test-support/upstreams/mock-server.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';
import { readFacts } from '../ingress/read-facts.js';

/**
 * Coze channels (type 34) end to end: the official SDKs -> the gateway -> a local Coze v3 chat API that checks the
 * personal access token, the bot and the conversation. Coze is always asked for a stream; a client that wants one
 * answer gets it collected. The bot answers "1 October 2024 is a Tuesday." and reports 412 input tokens (its persona and knowledge beside the question: more than the client sent) / 11 output tokens.
 */
const BOT = 'bot-7379462189365198898';
const ANSWER = '1 October 2024 is a Tuesday.';
const USAGE: Usage = { prompt_tokens: 412, completion_tokens: 11 };

const gw = vendorGateway({
  mock: startMockCoze,
  // A bot's price is its admin's to set: this one as a small chat model.
  modelRatio: { [BOT]: 0.5, 'my-assistant': 0.75 },
  completionRatio: { [BOT]: 3, 'my-assistant': 2 },
});
const { seedKey, openai, anthropic, settled, expectChargedOnce, expectSettledOnce } = gw;

const cozeChannel = (mode: MockMode | `${MockMode}:${string}`, fields: { priority?: number; models?: string; mapping?: string; userId?: string } = {}) =>
  seedChannel(gw.t.ctx.storage, {
    name: `coze-${mode}`,
    type: 34,
    key: cozeToken(mode),
    baseUrl: gw.mock.url,
    models: fields.models ?? BOT,
    priority: fields.priority,
    modelMapping: fields.mapping,
    config: JSON.stringify({ user_id: fields.userId ?? 'user-42' }),
  });

describe("a bot's own context is billed as the prompt Coze reports", () => {
  // A short question; the bot adds its persona, knowledge and plugin results to the prompt Coze bills.
  const question = 'What day of the week is 1 October 2024? Answer with the weekday and nothing else, please.';
  const body = { model: BOT, messages: [{ role: 'user' as const, content: question }] };

  it('412 prompt tokens for a question the gateway counts far fewer of: charged in full, no anomaly', async () => {
    await cozeChannel('ok');
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create(body);
    const [counted] = await gw.t.ctx.relay.counter.count([question]);
    expect(counted).toBeLessThan(58);
    expect(answer.usage).toMatchObject({ prompt_tokens: 412, completion_tokens: 11 });
    const log = await expectChargedOnce(token.id, BOT, USAGE);
    expect(log.content).not.toContain('用量异常');
  });

  it('a report beyond one context window more than the prompt is billed at that bound, as an anomaly; the client is told the same', async () => {
    await cozeChannel('ok:input-5000000');
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create(body);
    const bound = readFacts(body, { dialect: 'openai-chat', endpoint: 'chat' }).facts.promptBound + contextWindowOf(BOT);
    expect(bound).toBeLessThan(5_000_000);
    expect(answer.usage).toMatchObject({ prompt_tokens: bound, completion_tokens: 11 });
    const log = await expectChargedOnce(token.id, BOT, { prompt_tokens: bound, completion_tokens: 11 });
    expect(log.content).toContain('用量异常');
  });

  it('just under that bound is still charged in full', async () => {
    const bound = readFacts(body, { dialect: 'openai-chat', endpoint: 'chat' }).facts.promptBound + contextWindowOf(BOT);
    await cozeChannel(`ok:input-${bound}`);
    const token = await seedKey();
    await openai(token.key).chat.completions.create({ ...body, stream: true }).then(async (stream) => {
      for await (const _ of stream) void _;
    });
    const log = await expectChargedOnce(token.id, BOT, { prompt_tokens: bound, completion_tokens: 11 });
    expect(log.content).not.toContain('用量异常');
  });
});

describe('a bot answers as a model', () => {
  it('a non-stream OpenAI client: Coze is asked for a stream, the answer collected; the body is Coze v3 chat', async () => {
    await cozeChannel('ok');
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({
      model: BOT,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'What day was 30 September 2024?' },
        { role: 'assistant', content: 'A Monday.' },
        { role: 'user', content: [{ type: 'text', text: 'And 1 October 2024?' }] },
      ],
    });
    expect(answer.choices[0].message.content).toBe(ANSWER);
    expect(answer.usage).toMatchObject({ prompt_tokens: 412, completion_tokens: 11 });
    const [sent] = gw.mock.requests;
    expect(sent.path).toBe('/v3/chat');
    expect(sent.headers.authorization).toBe('Bearer pat_ok');
    expect(sent.body).toEqual({
      bot_id: '7379462189365198898',
      user_id: 'user-42',
      stream: true,
      auto_save_history: false,
      additional_messages: [
        { role: 'user', content: 'What day was 30 September 2024?', content_type: 'text' },
        { role: 'assistant', content: 'A Monday.', content_type: 'text' },
        { role: 'user', content: 'And 1 October 2024?', content_type: 'text' },
      ],
    });
    await expectChargedOnce(token.id, BOT, USAGE);
  });

  it("an OpenAI stream carries only the bot's answer (not its plugin calls, outputs or follow-up suggestions), then the usage", async () => {
    await cozeChannel('tool');
    const token = await seedKey();
    const stream = await openai(token.key).chat.completions.create({ model: BOT, messages: [{ role: 'user', content: 'What day of the week is 1 October 2024?' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish ??= chunk.choices[0]?.finish_reason;
      usage ??= chunk.usage;
    }
    expect(text).toBe(ANSWER);
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 412, completion_tokens: 11, total_tokens: 423 });
    await expectChargedOnce(token.id, BOT, USAGE);
  });

  it('an Anthropic client reaches a bot through model mapping, whole and streamed', async () => {
    await cozeChannel('ok', { models: 'my-assistant', mapping: JSON.stringify({ 'my-assistant': BOT }), userId: '' });
    const token = await seedKey();
    const message = await anthropic(token.key).messages.create({ model: 'my-assistant', max_tokens: 256, system: 'Be brief.', messages: [{ role: 'user', content: 'What day of the week is 1 October 2024?' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: ANSWER });
    expect(message.usage).toMatchObject({ input_tokens: 412, output_tokens: 11 });
    // No user id on the channel: the gateway's own.
    expect(gw.mock.requests[0].body).toMatchObject({ bot_id: '7379462189365198898', user_id: 'model-relay' });
    const streamed = await anthropic(token.key).messages.stream({ model: 'my-assistant', max_tokens: 256, messages: [{ role: 'user', content: 'Again?' }] }).finalMessage();
    expect(streamed.content[0]).toMatchObject({ type: 'text', text: ANSWER });
    const after = await settled(token.id, 2);
    expect(after.logs.map((l) => [l.prompt_tokens, l.completion_tokens, l.quota])).toEqual([
      [412, 11, costOf(USAGE, pricesFor(gw.t.ctx.options, 'my-assistant', 'default'))],
      [412, 11, costOf(USAGE, pricesFor(gw.t.ctx.options, 'my-assistant', 'default'))],
    ]);
    expect(after.open).toEqual([]);
  });

  it('images by URL go as object_string; a base64 image is refused with the reason, before Coze is called', async () => {
    await cozeChannel('ok');
    const token = await seedKey();
    await openai(token.key).chat.completions.create({ model: BOT, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }] });
    expect((gw.mock.requests[0].body as { additional_messages: unknown[] }).additional_messages).toEqual([
      { role: 'user', content_type: 'object_string', content: JSON.stringify([{ type: 'text', text: 'What is this?' }, { type: 'image', file_url: 'https://example.com/cat.png' }]) },
    ]);
    const error = await openai(token.key)
      .chat.completions.create({ model: BOT, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('http(s) 链接');
    expect(gw.mock.requests).toHaveLength(1);
  });
});

describe('faults, each settled exactly once', () => {
  it('an invalid token (4100, HTTP 401) disables its channel and another one answers', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const dead = await cozeChannel('fail-401', { priority: 10 });
    await cozeChannel('ok', { priority: 0 });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: BOT, messages: [{ role: 'user', content: 'Hello' }] });
    expect(answer.choices[0].message.content).toBe(ANSWER);
    expect(gw.mock.requests.map((r) => r.key)).toEqual(['pat_fail-401', 'pat_ok']);
    expect((await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', dead).executeTakeFirstOrThrow()).status).toBe(3);
    await expectChargedOnce(token.id, BOT, USAGE);
  });

  it('a rate limit said inside a 200 answer (code 4013) is retried on another channel; the limited one stays enabled', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const limited = await cozeChannel('fail-429', { priority: 10 });
    await cozeChannel('ok', { priority: 0 });
    const token = await seedKey();
    const stream = await openai(token.key).chat.completions.create({ model: BOT, messages: [{ role: 'user', content: 'Hello' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(ANSWER);
    expect(gw.mock.requests.map((r) => r.key)).toEqual(['pat_fail-429', 'pat_ok']);
    expect((await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', limited).executeTakeFirstOrThrow()).status).toBe(1);
    await expectChargedOnce(token.id, BOT, USAGE);
  });

  it('a chat that fails half way ends the OpenAI stream with its error chunk, billed for what was delivered', async () => {
    await cozeChannel('stream-error');
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: BOT, messages: [{ role: 'user', content: 'Hello' }], stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('"content":"1 October 2024"');
    expect(text).toContain('"code":"stream_broken"');
    expect(text).toContain('The model service is busy');
    expect(text).not.toContain('[DONE]');
    const log = await expectSettledOnce(token.id);
    expect(log.completion_tokens).toBeGreaterThan(0);
    expect(log.content).toContain('上游流式响应中断');
  });

  it('a stream cut before the chat completes ends an Anthropic stream with its error event, settled once', async () => {
    await cozeChannel('break');
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': `sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: BOT, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    const text = await res.text();
    expect(text).toContain('event: error');
    expect(text).not.toContain('message_stop');
    await expectSettledOnce(token.id);
  });
});

describe('the channel test button', () => {
  it('tests a Coze channel saved the way the console saves it; an invalid token fails the test and disables it', async () => {
    const root = await gw.t.login('root', '123456');
    const create = (name: string, key: string) =>
      gw.t.call({ method: 'POST', url: '/api/channel/', cookie: root, payload: { name, type: 34, key, base_url: gw.mock.url, models: BOT, group: 'default', config: JSON.stringify({ user_id: 'console-user' }) } });
    expect((await create('coze-good', cozeToken('ok'))).body.success).toBe(true);
    expect((await create('coze-bad', 'pat_not-a-token')).body.success).toBe(true);
    const list = (await gw.t.call({ method: 'GET', url: '/api/channel/?p=0', cookie: root })).body.data as Array<{ id: number; name: string }>;
    const idOf = (name: string) => list.find((c) => c.name === name)!.id;

    const good = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('coze-good')}`, cookie: root });
    expect(good.body).toMatchObject({ success: true, model: BOT, message: ANSWER });
    expect(gw.mock.requests.at(-1)!.body).toMatchObject({ bot_id: '7379462189365198898', user_id: 'console-user', stream: true, additional_messages: [{ role: 'user', content: 'hi', content_type: 'text' }] });

    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const bad = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('coze-bad')}`, cookie: root });
    expect(bad.body).toMatchObject({ success: false, message: expect.stringContaining('4100') });
    expect((await gw.t.call({ method: 'GET', url: `/api/channel/${idOf('coze-bad')}`, cookie: root })).body.data.status).toBe(3);
  });
});
