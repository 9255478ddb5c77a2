import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockAnthropic, type MockAnthropic } from './anthropic.js';
import { fixtures } from './fixtures.js';

// Self-test of the Anthropic mock with the official @anthropic-ai/sdk: if the SDK can drive it, the mock speaks the
// documented wire format; the raw requests prove it refuses what the real API refuses, in the API's error shape.
const fx = fixtures('anthropic');
let mock: MockAnthropic;

const client = (key = 'ok', extra: Record<string, unknown> = {}) => new Anthropic({ apiKey: key, baseURL: mock.url, maxRetries: 0, ...extra });

async function raw(body: unknown, headers: Record<string, string> = {}, path = '/v1/messages') {
  const res = await fetch(mock.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'ok', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  mock = await startMockAnthropic();
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.requests.length = 0;
});

describe('Anthropic mock driven by the official SDK', () => {
  it('answers a message with the recorded text answer; the 1.x SDK sends its key as a bearer token', async () => {
    const message = await client().messages.create(fx.json('text.request.json'));
    expect(message).toMatchObject(fx.json('text.response.json'));
    const [sent] = mock.requests;
    expect(sent.headers.authorization).toBe('Bearer ok');
    expect(sent.headers['anthropic-version']).toBe('2026-10-21');
    expect(sent.body).toEqual(fx.json('text.request.json'));
  });

  it('streams the documented event order, byte for byte the recorded stream', async () => {
    const res = await fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'ok', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ ...fx.json('text.request.json'), stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(await res.text()).toBe(fx.text('text.stream.txt'));

    const stream = client().messages.stream(fx.json('text.request.json'));
    const types: string[] = [];
    stream.on('streamEvent', (e) => types.push(e.type));
    const final = await stream.finalMessage();
    expect(final.content).toEqual(fx.json('text.response.json').content);
    // The SDK drops `ping`; the raw text above has it right after the first content_block_start.
    expect(types).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
  });

  it('calls a declared tool; the stream carries the arguments as input_json_delta pieces; the result gets the final answer', async () => {
    const request = fx.json('tools.request.json');
    const stream = client().messages.stream(request);
    const pieces: string[] = [];
    stream.on('inputJson', (partial) => pieces.push(partial));
    const call = await stream.finalMessage();
    expect(call.stop_reason).toBe('tool_use');
    const use = call.content.find((b) => b.type === 'tool_use')!;
    expect(use).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } });
    expect(pieces).toEqual(['', '{"city": ', '"Paris"}']);

    const answer = await client().messages.create(fx.json('tool-result.request.json'));
    expect(answer).toMatchObject(fx.json('tool-result.response.json'));
  });

  it('names the tool the request declares', async () => {
    const request = fx.json('tools.request.json');
    request.tools[0].name = 'lookup_forecast';
    const call = await client().messages.create(request);
    expect(call.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'lookup_forecast' });
  });

  it('thinks when thinking is on; with tools the thinking block and its signature must come back unchanged', async () => {
    const reasoning = await client().messages.create(fx.json('reasoning.request.json'));
    expect(reasoning.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(reasoning.usage.output_tokens_details?.thinking_tokens).toBe(121);

    const request = { ...fx.json('tools.request.json'), max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } };
    const call = await client().messages.create(request);
    expect(call.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    const use = call.content.find((b) => b.type === 'tool_use')!;
    const followUp = (assistant: unknown[]) => ({
      ...request,
      messages: [request.messages[0], { role: 'assistant', content: assistant }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '15°C' }] }],
    });
    expect((await client().messages.create(followUp(call.content))).content[0]).toMatchObject({ type: 'text' });

    const altered = call.content.map((b) => (b.type === 'thinking' ? { ...b, signature: b.signature.slice(1) } : b));
    const bad = await raw(followUp(altered));
    expect(bad).toMatchObject({ status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: 'messages.1.content.0: Invalid `signature` in `thinking` block' } } });
    const dropped = await raw(followUp(call.content.filter((b) => b.type !== 'thinking')));
    expect(dropped.body.error.message).toMatch(/^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `text`/);
  });

  it('streams thinking_delta and signature_delta before the text', async () => {
    const stream = client().messages.stream(fx.json('reasoning.request.json'));
    const deltas: string[] = [];
    stream.on('streamEvent', (e) => {
      if (e.type === 'content_block_delta') deltas.push(e.delta.type);
    });
    const final = await stream.finalMessage();
    expect(deltas).toEqual(['thinking_delta', 'thinking_delta', 'signature_delta', 'text_delta', 'text_delta']);
    expect(final.content[0]).toEqual(fx.json('reasoning.response.json').content[0]);
  });

  it('reports cache reads and the 5-minute / 1-hour cache writes', async () => {
    const message = await client().messages.create(fx.json('cache.request.json'));
    expect(message.usage).toMatchObject({
      input_tokens: 14,
      cache_read_input_tokens: 1800,
      cache_creation_input_tokens: 1520,
      cache_creation: { ephemeral_5m_input_tokens: 320, ephemeral_1h_input_tokens: 1200 },
    });
    const streamed = await client().messages.stream(fx.json('cache.request.json')).finalMessage();
    expect(streamed.usage).toMatchObject({ cache_read_input_tokens: 1800, cache_creation_input_tokens: 1520, output_tokens: 31 });
  });

  it('answers an image question and counts tokens like the message bills them', async () => {
    expect(await client().messages.create(fx.json('image.request.json'))).toMatchObject(fx.json('image.response.json'));
    const count = await client().messages.countTokens(fx.json('count-tokens.request.json'));
    expect(count).toEqual(fx.json('count-tokens.response.json'));
    expect(mock.requests.at(-1)?.path).toBe('/v1/messages/count_tokens');
  });

  it('a key that is no mode is refused as a wrong key; x-api-key wins over the bearer token', async () => {
    await expect(client('sk-ant-wrong').messages.create(fx.json('text.request.json'))).rejects.toMatchObject({ status: 401, error: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } });
    const both = await raw(fx.json('text.request.json'), { authorization: 'Bearer wrong', 'x-api-key': 'ok' });
    expect(both.status).toBe(200);
  });

  it('failure modes answer the documented status and error type', async () => {
    for (const [key, status, type] of [
      ['fail-429', 429, 'rate_limit_error'],
      ['overloaded-529', 529, 'overloaded_error'],
      ['fail-500', 500, 'api_error'],
      ['fail-401', 401, 'authentication_error'],
    ] as const) {
      const error = (await client(key).messages.create(fx.json('text.request.json')).catch((e: unknown) => e)) as APIError;
      expect(error).toBeInstanceOf(APIError);
      expect([error.status, error.type]).toEqual([status, type]);
    }
    const limited = await fetch(`${mock.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'fail-429', 'anthropic-version': '2023-06-01' }, body: '{}' });
    expect(limited.headers.get('retry-after')).toBe('17');
  });

  it('records anthropic-beta; slow never answers; slow-stream paces the events', async () => {
    await client('ok', { defaultHeaders: { 'anthropic-beta': 'context-1m-2025-08-07,interleaved-thinking-2025-05-14' } }).messages.create(fx.json('text.request.json'));
    expect(mock.requests[0].headers['anthropic-beta']).toBe('context-1m-2025-08-07,interleaved-thinking-2025-05-14');
    await expect(client('slow', { timeout: 300 }).messages.create(fx.json('text.request.json'))).rejects.toThrow(/timed out/i);
    const started = Date.now();
    await client('slow-stream').messages.stream(fx.json('text.request.json')).finalMessage();
    expect(Date.now() - started).toBeGreaterThanOrEqual(8 * 60 - 20); // 9 events, 60 ms apart
  });

  it('a stream that breaks mid-way ends without message_stop; stream-error ends with the error event', async () => {
    const broken = client('break').messages.stream(fx.json('text.request.json'));
    await expect(broken.finalMessage()).rejects.toThrow();
    const overloaded = client('stream-error').messages.stream(fx.json('text.request.json'));
    await expect(overloaded.finalMessage()).rejects.toMatchObject({ error: { type: 'error', error: { type: 'overloaded_error' } } });
  });
});

describe('Anthropic mock refuses what the API refuses', () => {
  const text = () => fx.json('text.request.json');
  const cases: Array<[string, unknown, Record<string, string>, number, string]> = [
    ['no anthropic-version', text(), { 'anthropic-version': '' }, 400, 'anthropic-version: header is required'],
    ['no key', text(), { 'x-api-key': '' }, 401, 'x-api-key header is required'],
    ['no max_tokens', { ...text(), max_tokens: undefined }, {}, 400, 'max_tokens: Field required'],
    ['no model', { ...text(), model: undefined }, {}, 400, 'model: Field required'],
    ['max_tokens above the model\'s own limit', { ...text(), model: 'claude-3-5-haiku-20241022', max_tokens: 8193 }, {}, 400, 'max_tokens: 8193 > 8192, which is the maximum allowed number of output tokens for claude-3-5-haiku-20241022'],
    ['max_tokens above Claude Opus 4.1\'s 32K', { ...text(), model: 'claude-opus-4-1-20250805', max_tokens: 32001 }, {}, 400, 'max_tokens: 32001 > 32000, which is the maximum allowed number of output tokens for claude-opus-4-1-20250805'],
    ['unknown model', { ...text(), model: 'gpt-4o' }, {}, 404, 'model: gpt-4o'],
    ['a system role on a model without mid-conversation system messages', { ...text(), messages: [{ role: 'system', content: 'x' }, { role: 'user', content: 'Hello' }] }, {}, 400, 'messages.0.role: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.'],
    ['an OpenAI-only field', { ...text(), stream_options: { include_usage: true } }, {}, 400, 'stream_options: Extra inputs are not permitted'],
    ['temperature on API version 2026-10-21', { ...text(), temperature: 1 }, { 'anthropic-version': '2026-10-21' }, 400, 'temperature: Extra inputs are not permitted'],
    ['a thinking budget below 1024', { ...text(), thinking: { type: 'enabled', budget_tokens: 500 } }, {}, 400, 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024'],
    ['a thinking budget not below max_tokens', { ...text(), thinking: { type: 'enabled', budget_tokens: 2048 } }, {}, 400, '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size'],
    ['an empty user message', { ...text(), messages: [{ role: 'user', content: '' }] }, {}, 400, 'messages.0: all messages must have non-empty content except for the optional final assistant message'],
    ['a tool_result with no tool_use before it', { ...text(), messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'r' }] }] }, {}, 400, 'messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.'],
    ['a PNG declared as JPEG', { ...fx.json('image.request.json'), messages: [{ role: 'user', content: [{ ...fx.json('image.request.json').messages[0].content[0], source: { ...fx.json('image.request.json').messages[0].content[0].source, media_type: 'image/jpeg' } }] }] }, {}, 400, 'messages.0.content.0.image.source.base64.data: The image was specified using the image/jpeg media type, but the image appears to be a image/png image'],
    ['five cache breakpoints', { ...text(), system: [1, 2, 3, 4, 5].map((n) => ({ type: 'text', text: `part ${n}`, cache_control: { type: 'ephemeral' } })) }, {}, 400, 'A maximum of 4 blocks with cache_control may be provided. Found 5.'],
  ];
  for (const [name, body, headers, status, message] of cases) {
    it(`refuses ${name}`, async () => {
      const clean = Object.fromEntries(Object.entries(headers).filter(([, v]) => v));
      const dropped = Object.keys(headers).filter((k) => !headers[k]);
      const res = await fetch(`${mock.url}/v1/messages`, {
        method: 'POST',
        headers: Object.fromEntries(Object.entries({ 'content-type': 'application/json', 'x-api-key': 'ok', 'anthropic-version': '2023-06-01', ...clean }).filter(([k]) => !dropped.includes(k))),
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(status);
      const json = (await res.json()) as any;
      expect(json).toMatchObject({ type: 'error', error: { message } });
      expect(typeof json.request_id).toBe('string');
      expect(json.error.type).toBe(status === 401 ? 'authentication_error' : status === 404 ? 'not_found_error' : 'invalid_request_error');
    });
  }

  it('a tool_use left without its tool_result is refused', async () => {
    const request = fx.json('tool-result.request.json');
    request.messages[2].content = [{ type: 'text', text: 'never mind' }];
    const res = await raw(request);
    expect(res.body.error.message).toMatch(/^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_/);
  });

  it('joins consecutive user turns like the API, and refuses them when strictTurns is set', async () => {
    const request = { ...fx.json('text.request.json'), messages: [{ role: 'user', content: 'Hello' }, { role: 'user', content: 'Are you there?' }] };
    expect((await raw(request)).status).toBe(200);
    const strict = await startMockAnthropic({ strictTurns: true });
    try {
      const res = await fetch(`${strict.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'ok', 'anthropic-version': '2023-06-01' }, body: JSON.stringify(request) });
      expect(((await res.json()) as any).error.message).toBe('messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row');
    } finally {
      await strict.close();
    }
  });

  it('accepts temperature on 2023-06-01 and a mid-conversation system message on Claude Opus 4.8', async () => {
    expect((await raw({ ...fx.json('text.request.json'), temperature: 0.2 })).status).toBe(200);
    const opus = { ...fx.json('text.request.json'), model: 'claude-opus-4-8', messages: [{ role: 'user', content: 'Hello' }, { role: 'system', content: 'Answer in French.' }] };
    expect((await raw(opus)).status).toBe(200);
    expect((await raw({ ...opus, temperature: 0.2 })).body.error.message).toMatch(/^temperature: claude-opus-4-8 does not support setting temperature/);
  });

  it('count_tokens takes no max_tokens', async () => {
    const res = await raw(fx.json('text.request.json'), {}, '/v1/messages/count_tokens');
    expect(res).toMatchObject({ status: 400, body: { error: { message: 'max_tokens: Extra inputs are not permitted' } } });
  });
});
