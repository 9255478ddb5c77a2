import { createHash } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { Usage } from '../../billing/usage.js';
import { seedChannel } from '../../test-support/seed.js';
import { HANDBOOK } from '../../test-support/dialect-providers.js';
import { bedrockCredentials, startMockBedrock } from '../../test-support/upstreams/bedrock.js';
import type { MockMode } from '../../test-support/upstreams/mock-server.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * AWS Bedrock channels (type 33) end to end: the official SDKs -> the gateway -> a local Bedrock Runtime that
 * recomputes every SigV4 signature (the signing is proven by the mock accepting it), answers Claude through
 * InvokeModel and other families through Converse, in JSON and in binary event-stream frames.
 */
const CLAUDE = 'claude-3-7-sonnet-20250219';
const CLAUDE_PATH = '/model/us.anthropic.claude-3-7-sonnet-20250219-v1%3A0';
const NOVA = 'amazon.nova-lite-v1:0';
const NOVA_PATH = '/model/amazon.nova-lite-v1%3A0';

const gw = vendorGateway({
  mock: () => startMockBedrock({ region: 'us-east-1', strictTurns: true }),
  modelRatio: { [CLAUDE]: 1.5, [NOVA]: 0.03 },
  completionRatio: { [CLAUDE]: 5, [NOVA]: 4 },
});
const { seedKey, openai, anthropic, settled, expectChargedOnce, expectSettledOnce } = gw;

const awsKey = (mode: MockMode | `${MockMode}:${string}` = 'ok', secret = bedrockCredentials(mode).secretAccessKey) => `${bedrockCredentials(mode).accessKeyId}|${secret}|us-east-1`;
const bedrockChannel = (mode: MockMode | `${MockMode}:${string}`, model: string, fields: { priority?: number; secret?: string; name?: string } = {}) =>
  seedChannel(gw.t.ctx.storage, { name: fields.name ?? `aws-${mode}-${model}`, type: 33, key: awsKey(mode, fields.secret), baseUrl: gw.mock.url, models: model, priority: fields.priority });

describe('requests as Bedrock wants them', () => {
  it('Claude goes through InvokeModel, signed with SigV4 over exactly the bytes sent; the friendly name becomes the inference profile', async () => {
    await bedrockChannel('ok', CLAUDE);
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: CLAUDE, max_tokens: 300, messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Hello' }] });
    expect(answer.choices[0].message.content).toBe('Hello! How can I help you today?');
    const [sent] = gw.mock.requests;
    expect(sent.path).toBe(`${CLAUDE_PATH}/invoke`);
    expect(String(sent.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=ok\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$/);
    expect(sent.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(sent.rawBody).digest('hex'));
    expect(sent.body).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 300, system: [{ type: 'text', text: 'You are terse.' }] });
    expect(sent.body).not.toHaveProperty('model');
    expect(sent.body).not.toHaveProperty('stream');
    await expectChargedOnce(token.id, CLAUDE, { prompt_tokens: 12, completion_tokens: 12 });
  });

  it('an Anthropic client passes through: betas Bedrock knows go in anthropic_beta, Anthropic-only fields are left out, the stream is re-framed as SSE', async () => {
    await bedrockChannel('ok', CLAUDE);
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': `sk-${token.key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14' },
      body: JSON.stringify({ model: CLAUDE, max_tokens: 512, stream: true, metadata: { user_id: 'u-1' }, service_tier: 'auto', messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    const events = [...text.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    expect(events).toContain('content_block_delta');
    const sent = gw.mock.requests[0];
    expect(sent.path).toBe(`${CLAUDE_PATH}/invoke-with-response-stream`);
    expect(sent.body).toEqual({ anthropic_version: 'bedrock-2023-05-31', anthropic_beta: ['interleaved-thinking-2025-05-14'], max_tokens: 512, messages: [{ role: 'user', content: 'Hello' }] });
    await expectChargedOnce(token.id, CLAUDE, { prompt_tokens: 12, completion_tokens: 12 });
  });

  it('other families go through Converse; the OpenAI stream is translated from event-stream frames', async () => {
    await bedrockChannel('ok', NOVA);
    const token = await seedKey();
    const stream = await openai(token.key).chat.completions.create({ model: NOVA, messages: [{ role: 'user', content: 'Hello' }], stream: true, stream_options: { include_usage: true }, temperature: 1.5, top_p: 0.9 });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage ??= chunk.usage;
    }
    expect(text).toBe('Hello! How can I help you today?');
    expect(usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 10 });
    expect(gw.mock.requests[0].path).toBe(`${NOVA_PATH}/converse-stream`);
    // OpenAI's temperature goes up to 2, Converse's to 1.
    expect(gw.mock.requests[0].body).toMatchObject({ messages: [{ role: 'user', content: [{ text: 'Hello' }] }], inferenceConfig: { temperature: 1, topP: 0.9 } });
    await expectChargedOnce(token.id, NOVA, { prompt_tokens: 9, completion_tokens: 10 });
  });
});

describe('cache and reasoning are charged exactly', () => {
  const cacheUsage: Usage = { prompt_tokens: 14 + 1800 + 1520, completion_tokens: 31, cached_tokens: 1800, cache_write_tokens: 320, cache_write_1h_tokens: 1200 };

  it('Claude cache reads and 5-minute / 1-hour writes, through InvokeModel to an Anthropic client', async () => {
    const id = await bedrockChannel('cache', CLAUDE);
    const token = await seedKey();
    const message = await anthropic(`${token.key}-${id}`).messages.create({ model: CLAUDE, max_tokens: 256, system: [{ type: 'text', text: HANDBOOK, cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: `${HANDBOOK}\n\nHow do I reset the router?` }] });
    expect(message.usage).toMatchObject({ input_tokens: 14, cache_read_input_tokens: 1800, cache_creation_input_tokens: 1520, output_tokens: 31 });
    const log = await expectChargedOnce(token.id, CLAUDE, cacheUsage);
    expect(log.content).toContain('缓存读取 1800');
    expect(log.content).toContain('长时缓存写入 1200');
  });

  it('Converse cache usage (cacheDetails split by TTL) reaches an OpenAI client as cached tokens', async () => {
    const id = await bedrockChannel('cache', NOVA);
    const token = await seedKey();
    const answer = await openai(`${token.key}-${id}`).chat.completions.create({ model: NOVA, messages: [{ role: 'user', content: `${HANDBOOK}\n\nHow do I reset the router?` }] });
    expect(answer.usage).toMatchObject({ prompt_tokens: 3334, completion_tokens: 31, prompt_tokens_details: { cached_tokens: 1800 } });
    expect(gw.mock.requests[0].path).toBe(`${NOVA_PATH}/converse`);
    await expectChargedOnce(token.id, NOVA, cacheUsage);
  });

  it('reasoning: thinking streamed through Converse as reasoning_content, its tokens billed within the completion', async () => {
    const id = await bedrockChannel('thinking', NOVA);
    const token = await seedKey();
    const stream = await openai(`${token.key}-${id}`).chat.completions.create({ model: NOVA, messages: [{ role: 'user', content: 'What is 27 * 453?' }], stream: true });
    let reasoning = '';
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
      reasoning += delta?.reasoning_content ?? '';
      text += delta?.content ?? '';
    }
    expect(reasoning).toMatch(/^Split 453 into 400 \+ 53/);
    expect(text).toBe('27 × 453 = 12,231.');
    await expectChargedOnce(token.id, NOVA, { prompt_tokens: 46, completion_tokens: 142 });
  });

  it('Claude thinking requested by an OpenAI client becomes thinking on InvokeModel, and its signed block comes back to an Anthropic client', async () => {
    const id = await bedrockChannel('ok', CLAUDE);
    const token = await seedKey();
    const answer = await openai(`${token.key}-${id}`).chat.completions.create({ model: CLAUDE, max_tokens: 4000, reasoning_effort: 'low', messages: [{ role: 'user', content: 'What is 27 * 453?' }] });
    expect(gw.mock.requests[0].body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 4000 });
    expect((answer.choices[0].message as { reasoning_content?: string }).reasoning_content).toMatch(/^Split 453/);
    const message = await anthropic(`${token.key}-${id}`).messages.stream({ model: CLAUDE, max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [{ role: 'user', content: 'What is 27 * 453?' }] }).finalMessage();
    expect(message.content[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^623WZANP/) });
    const after = await settled(token.id, 2);
    expect(after.logs.map((l) => [l.prompt_tokens, l.completion_tokens])).toEqual([
      [46, 142],
      [46, 142],
    ]);
  });

  it('an answer without usage is counted from the Messages body InvokeModel was sent, streamed as answered whole', async () => {
    await bedrockChannel('no-usage', CLAUDE);
    const token = await seedKey();
    // The stream counts its prompt from the bytes sent (the parsed client body is let go once it runs).
    const prompt = Array.from({ length: 120 }, (_, i) => `Paragraph ${i}: count this prompt from the body sent, 按发送的字节计数。`).join('\n');
    const ask = (stream: boolean) =>
      fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': `sk-${token.key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: CLAUDE, max_tokens: 512, stream, system: 'Be brief.', messages: [{ role: 'user', content: prompt }] }),
      }).then((res) => res.text());
    expect(await ask(false)).toContain('"type":"message"');
    expect(await ask(true)).toContain('message_stop');
    expect(gw.mock.requests.map((r) => r.path)).toEqual([`${CLAUDE_PATH}/invoke`, `${CLAUDE_PATH}/invoke-with-response-stream`]);
    const { logs, open } = await settled(token.id, 2);
    expect(open).toEqual([]);
    const [whole, streamed] = [...logs].sort((a, b) => a.id - b.id);
    expect(whole.prompt_tokens).toBeGreaterThan(1_000);
    expect(streamed.prompt_tokens).toBe(whole.prompt_tokens);
    expect(streamed.completion_tokens).toBe(whole.completion_tokens);
    expect(streamed.completion_tokens).toBeGreaterThan(0);
    expect(streamed.quota).toBe(whole.quota);
  });
});

describe('faults, each settled exactly once', () => {
  it('throttling is retried on another channel; the throttled one stays enabled', async () => {
    await gw.t.ctx.options.set('RetryTimes', '2');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const throttled = await bedrockChannel('fail-429', NOVA, { priority: 10 });
    const good = await bedrockChannel('ok', NOVA, { priority: 0 });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: NOVA, messages: [{ role: 'user', content: 'Hello' }] });
    expect(answer.choices[0].message.content).toBe('Hello! How can I help you today?');
    expect(gw.mock.requests.map((r) => r.key)).toEqual(['fail-429', 'ok']);
    const log = await expectChargedOnce(token.id, NOVA, { prompt_tokens: 9, completion_tokens: 10 });
    expect(log.channel_id).toBe(good);
    const row = await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', throttled).executeTakeFirstOrThrow();
    expect(row.status).toBe(1);
  });

  it('a wrong secret key is refused by the signature check: the channel is disabled and another one answers', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const wrong = await bedrockChannel('ok:wrong', CLAUDE, { priority: 10, secret: 'not-the-secret' });
    await bedrockChannel('ok:right', CLAUDE, { priority: 0 });
    const token = await seedKey();
    const message = await anthropic(token.key).messages.create({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'Hello' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hello! How can I help you today?' });
    expect(gw.mock.requests.map((r) => r.key)).toEqual([undefined, 'ok:right']);
    const row = await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', wrong).executeTakeFirstOrThrow();
    expect(row.status).toBe(3);
    await expectChargedOnce(token.id, CLAUDE, { prompt_tokens: 12, completion_tokens: 12 });
  });

  it('a validation error is not retried and reaches the client in its own shape', async () => {
    await gw.t.ctx.options.set('RetryTimes', '2');
    await bedrockChannel('fail-400', NOVA, { priority: 10 });
    await bedrockChannel('ok', NOVA, { priority: 0 });
    const token = await seedKey();
    const error = await anthropic(token.key).messages.create({ model: NOVA, max_tokens: 100, messages: [{ role: 'user', content: 'Hello' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringContaining('conversation must start with a user message') } });
    expect(gw.mock.requests).toHaveLength(1);
    const after = await settled(token.id, 0);
    expect(after.logs).toEqual([]);
    expect(after.token.remain_quota).toBe(10_000_000);
    expect(after.open).toEqual([]);
  });

  it('an exception frame mid-stream ends an OpenAI client stream with its error chunk (Converse)', async () => {
    await bedrockChannel('stream-error', NOVA);
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: NOVA, messages: [{ role: 'user', content: 'Hello' }], stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('"content":"Hello');
    expect(text).toContain('"code":"stream_broken"');
    expect(text).toContain('throttlingException: Too many tokens, please wait before trying again.');
    expect(text).not.toContain('[DONE]');
    const log = await expectSettledOnce(token.id);
    expect(log.content).toContain('上游流式响应中断');
  });

  it('an exception frame mid-stream ends an Anthropic client stream with its error event (InvokeModel pass-through)', async () => {
    await bedrockChannel('stream-error', CLAUDE);
    const token = await seedKey();
    const error = await anthropic(token.key)
      .messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'Hello' }] })
      .finalMessage()
      .catch((e: unknown) => e);
    expect(String((error as Error).message)).toContain('Too many tokens');
    const after = await settled(token.id, 1);
    expect(after.logs).toHaveLength(1);
    expect(after.logs[0].content).toContain('上游流式响应中断');
    expect(after.open).toEqual([]);
  });

  it('a stream cut mid-frame ends an Anthropic client stream with its error event', async () => {
    await bedrockChannel('break', NOVA);
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': `sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: NOVA, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    const text = await res.text();
    expect(text).toContain('event: error');
    expect(text).not.toContain('message_stop');
    const after = await settled(token.id, 1);
    expect(after.logs).toHaveLength(1);
    expect(after.open).toEqual([]);
  });

  it('a client that leaves mid-stream: the upstream is read to its end for its usage, and the request settled once at it', async () => {
    await bedrockChannel('slow-stream', NOVA);
    const token = await seedKey();
    const abort = new AbortController();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: NOVA, messages: [{ role: 'user', content: 'Hello' }], stream: true }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    // The mock paces ten frames 60 ms apart, then its metadata event with the usage: the gateway reads them all
    // (STREAM_DRAIN_SECONDS), relayed to nobody, and bills that usage.
    const log = await expectSettledOnce(token.id);
    expect(log.content).toContain('客户端中途断开');
    expect(gw.mock.requests.at(-1)!.aborted).toBeFalsy();
    const pool = gw.t.ctx.relay.pools.get(new URL(gw.mock.url).origin);
    expect(pool.stats.running).toBe(0);
    expect(log.content).not.toContain('用量异常');
  });
});

describe('the channel test button', () => {
  it('tests a Bedrock channel saved the way the console saves it (AK|SK|Region and its fields in config)', async () => {
    const root = await gw.t.login('root', '123456');
    const { accessKeyId, secretAccessKey } = bedrockCredentials('ok');
    const create = (name: string, models: string, sk = secretAccessKey) =>
      gw.t.call({ method: 'POST', url: '/api/channel/', cookie: root, payload: { name, type: 33, key: `${accessKeyId}|${sk}|us-east-1`, base_url: gw.mock.url, models, group: 'default', config: JSON.stringify({ region: 'us-east-1', ak: accessKeyId, sk }) } });
    expect((await create('bedrock-claude', `${CLAUDE},${NOVA}`)).body.success).toBe(true);
    expect((await create('bedrock-bad', CLAUDE, 'wrong-secret')).body.success).toBe(true);
    const list = (await gw.t.call({ method: 'GET', url: '/api/channel/?p=0', cookie: root })).body.data as Array<{ id: number; name: string }>;
    const idOf = (name: string) => list.find((c) => c.name === name)!.id;

    const claude = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('bedrock-claude')}`, cookie: root });
    expect(claude.body).toMatchObject({ success: true, model: CLAUDE, message: 'Hello! How can I help you today?' });
    expect(gw.mock.requests.at(-1)!.path).toBe(`${CLAUDE_PATH}/invoke`);
    const nova = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('bedrock-claude')}?model=${encodeURIComponent(NOVA)}`, cookie: root });
    expect(nova.body).toMatchObject({ success: true, model: NOVA, message: 'Hello! How can I help you today?' });
    expect(gw.mock.requests.at(-1)!.path).toBe(`${NOVA_PATH}/converse`);

    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const bad = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('bedrock-bad')}`, cookie: root });
    expect(bad.body).toMatchObject({ success: false, message: expect.stringContaining('The request signature we calculated does not match') });
    expect((await gw.t.call({ method: 'GET', url: `/api/channel/${idOf('bedrock-bad')}`, cookie: root })).body.data.status).toBe(3);
  });

  it('a malformed AWS key fails the test with a clear message and no upstream call', async () => {
    const id = await seedChannel(gw.t.ctx.storage, { name: 'aws-malformed', type: 33, key: 'only-an-access-key', baseUrl: gw.mock.url, models: CLAUDE });
    const root = await gw.t.login('root', '123456');
    const result = await gw.t.call({ method: 'GET', url: `/api/channel/test/${id}`, cookie: root });
    expect(result.body).toMatchObject({ success: false, message: expect.stringContaining('AK|SK|Region') });
    expect(gw.mock.requests).toHaveLength(0);
  });
});
