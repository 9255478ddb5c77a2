import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import type { Usage } from '../../billing/usage.js';
import { seedChannel } from '../../test-support/seed.js';
import { embedTokens, startMockCohere } from '../../test-support/upstreams/cohere.js';
import { sendJson, startMockServer } from '../../test-support/upstreams/mock-server.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * Cohere channels (type 35) end to end: the official SDKs -> the gateway -> a local Cohere API v2 that checks the
 * bearer key and the v2 bodies (unknown fields and roles refused), answering chat in JSON and in its own SSE events,
 * embeddings and rerank. Charges are exact from the usage the mock reports (Cohere's billed units). Also the rerank
 * path of an OpenAI-compatible custom channel (type 8) to a Jina-shaped /v1/rerank.
 */
const COMMAND = 'command-a-03-2025';
const EMBED = 'embed-v4.0';
const RERANK = 'rerank-v3.5';
const JINA = 'jina-reranker-v2-base-multilingual';
const TEXT_USAGE: Usage = { prompt_tokens: 9, completion_tokens: 9 };
const TOOLS_USAGE: Usage = { prompt_tokens: 34, completion_tokens: 21 };
const RESULT_USAGE: Usage = { prompt_tokens: 61, completion_tokens: 14 };
const weather: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Current weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

/** A Jina-shaped reranker behind an OpenAI-compatible custom channel: POST /v1/rerank, usage as a total. */
const startMockJina = () =>
  startMockServer((req, res, recorded) => {
    if (recorded.path !== '/v1/rerank' || req.headers.authorization !== 'Bearer jina-key') return sendJson(res, 401, { detail: 'Unauthorized' });
    const body = recorded.body as { model: string; query: string; documents: string[]; top_n?: number };
    const results = body.documents.map((text, index) => ({ index, document: { text }, relevance_score: text.includes('France') ? 0.91 : 0.12 })).sort((a, b) => b.relevance_score - a.relevance_score);
    sendJson(res, 200, { model: body.model, usage: { total_tokens: 42 }, results: results.slice(0, body.top_n ?? results.length) });
  });

const gw = vendorGateway({ mock: startMockCohere, others: { jina: startMockJina } });
const { seedKey, openai, anthropic, settled, expectCharged } = gw;

const cohereChannel = (key: string, models = `${COMMAND},${EMBED},${RERANK}`, fields: { priority?: number; baseUrl?: string } = {}) =>
  seedChannel(gw.t.ctx.storage, { name: `cohere-${key}`, type: 35, key, baseUrl: fields.baseUrl ?? gw.mock.url, models, priority: fields.priority });

async function streamText(stream: AsyncIterable<OpenAI.ChatCompletionChunk>) {
  let text = '';
  let reasoning = '';
  let usage: OpenAI.CompletionUsage | null | undefined;
  let finish: string | null | undefined;
  const calls: Array<{ id?: string; name?: string; args: string }> = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta as (OpenAI.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string }) | undefined;
    text += delta?.content ?? '';
    reasoning += delta?.reasoning_content ?? '';
    for (const call of delta?.tool_calls ?? []) {
      calls[call.index] ??= { args: '' };
      calls[call.index].id ??= call.id;
      calls[call.index].name ??= call.function?.name;
      calls[call.index].args += call.function?.arguments ?? '';
    }
    finish = chunk.choices[0]?.finish_reason ?? finish;
    usage ??= chunk.usage;
  }
  return { text, reasoning, usage, finish, calls };
}

describe('chat from the openai SDK', () => {
  it('a whole answer: POST /v2/chat with the bearer key and a v2 body; billed by billed_units at the default price', async () => {
    await cohereChannel('ok');
    const { id, key } = await seedKey();
    const answer = await openai(key).chat.completions.create({ model: COMMAND, max_tokens: 300, user: 'u-1', messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Hello' }] });
    expect(answer.choices[0].message.content).toBe('Hello! How can I help you today?');
    expect(answer.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 9, total_tokens: 18 });
    const [sent] = gw.mock.requests;
    expect(sent.path).toBe('/v2/chat');
    expect(sent.headers.authorization).toBe('Bearer ok');
    expect(sent.body).toEqual({ model: COMMAND, max_tokens: 300, messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Hello' }] });
    expect(pricesFor(gw.t.ctx.options, COMMAND, 'default')).toMatchObject({ modelRatio: 1.25, completionRatio: 4, unknownModel: false });
    await expectCharged(id, COMMAND, TEXT_USAGE);
  });

  it("a stream: Cohere's events become chat.completion.chunk frames with usage", async () => {
    await cohereChannel('ok');
    const { id, key } = await seedKey();
    const out = await streamText(await openai(key).chat.completions.create({ model: COMMAND, messages: [{ role: 'user', content: 'Hello' }], stream: true, stream_options: { include_usage: true }, top_p: 1, temperature: 0.5 }));
    expect(out).toMatchObject({ text: 'Hello! How can I help you today?', finish: 'stop', usage: { prompt_tokens: 9, completion_tokens: 9 } });
    expect(gw.mock.requests[0].body).toMatchObject({ stream: true, p: 0.99, temperature: 0.5 });
    expect(gw.mock.requests[0].body).not.toHaveProperty('stream_options');
    await expectCharged(id, COMMAND, TEXT_USAGE);
  });

  it('tools: a call (whole and streamed, the plan as reasoning_content), then its result answered', async () => {
    await cohereChannel('ok');
    const { id, key } = await seedKey();
    const client = openai(key);
    const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: "What's the weather in Paris?" };
    const whole = await client.chat.completions.create({ model: COMMAND, messages: [question], tools: [weather], tool_choice: 'auto', parallel_tool_calls: true });
    const call = whole.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(whole.choices[0].finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ id: 'get_weather_7k2m9x4q1p3z', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
    expect((whole.choices[0].message as { reasoning_content?: string }).reasoning_content).toBe('I will look up the current weather in Paris.');

    const streamed = await streamText(await client.chat.completions.create({ model: COMMAND, messages: [question], tools: [weather], stream: true }));
    expect(streamed).toMatchObject({ finish: 'tool_calls', reasoning: 'I will look up the current weather in Paris.', calls: [{ id: 'get_weather_7k2m9x4q1p3z', name: 'get_weather', args: '{"city":"Paris"}' }] });

    const followUp = await client.chat.completions.create({
      model: COMMAND,
      tools: [weather],
      messages: [question, whole.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '{"temperature":18,"condition":"cloudy"}' }],
    });
    expect(followUp.choices[0].message.content).toBe('It is 18°C and cloudy in Paris right now.');
    // The mock refuses a tool result whose call it has not seen, and the OpenAI-only fields of the echoed message.
    expect(gw.mock.requests[2].body).toMatchObject({ messages: [{ role: 'user' }, { role: 'assistant', tool_plan: 'I will look up the current weather in Paris.', tool_calls: [{ id: call.id }] }, { role: 'tool', tool_call_id: call.id }] });
    await expectCharged(id, COMMAND, TOOLS_USAGE, TOOLS_USAGE, RESULT_USAGE);
  });
});

describe('embeddings and rerank', () => {
  it('embeddings from the openai SDK (base64 by default): the floats Cohere gave, usage from meta.billed_units', async () => {
    await cohereChannel('ok');
    const { id, key } = await seedKey();
    const input = ['The quick brown fox', 'jumps over the lazy dog'];
    const result = await openai(key).embeddings.create({ model: EMBED, input });
    expect(gw.mock.requests[0].path).toBe('/v2/embed');
    expect(gw.mock.requests[0].body).toEqual({ model: EMBED, texts: input, input_type: 'search_document', embedding_types: ['float', 'base64'] });
    expect(result.data).toHaveLength(2);
    expect(result.data[0].embedding).toHaveLength(4);
    expect(result.usage).toEqual({ prompt_tokens: embedTokens(input), total_tokens: embedTokens(input) });
    // The same text asked for as floats gives the same vector (to float32 precision).
    const floats = await openai(key).embeddings.create({ model: EMBED, input: input[0], encoding_format: 'float' });
    expect(result.data[0].embedding.map((x) => Math.fround(x))).toEqual(floats.data[0].embedding.map((x) => Math.fround(x)));
    await expectCharged(id, EMBED, { prompt_tokens: 11, completion_tokens: 0 }, { prompt_tokens: 5, completion_tokens: 0 });
  });

  it('rerank: /v1/rerank to /v2/rerank, a search unit billed as 100 tokens at ratio 10 (US$0.002 a search)', async () => {
    await cohereChannel('ok');
    const { id, key } = await seedKey();
    const documents = ['Berlin is the capital of Germany.', 'Paris is the capital of France.', 'The Eiffel Tower is in Paris.'];
    const res = await fetch(`${gw.url}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: RERANK, query: 'What is the capital of France?', documents, top_n: 2, return_documents: false }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: Array<{ index: number; relevance_score: number }>; usage: Usage };
    expect(body.results.map((r) => r.index)).toEqual([1, 0]);
    expect(body.usage).toEqual({ prompt_tokens: 100, total_tokens: 100 });
    expect(gw.mock.requests[0]).toMatchObject({ path: '/v2/rerank', body: { model: RERANK, query: 'What is the capital of France?', documents, top_n: 2 } });
    const [log] = await expectCharged(id, RERANK, { prompt_tokens: 100, completion_tokens: 0 });
    // 100 tokens x ratio 10 x 500000 quota per US$ / 500 (US$0.002 per 1K tokens at ratio 1) = 1000 quota = US$0.002.
    expect(log.quota).toBe(1000);
  });

  it('rerank on an OpenAI-compatible custom channel (a Jina-style /v1/rerank) passes through, billed by its total', async () => {
    const ratios = gw.t.ctx.options.ratios('ModelRatio');
    await gw.t.ctx.options.set('ModelRatio', JSON.stringify({ ...ratios, [JINA]: 0.01 }));
    await seedChannel(gw.t.ctx.storage, { name: 'jina', type: 8, key: 'jina-key', baseUrl: gw.others.jina.url, models: JINA });
    const { id, key } = await seedKey();
    const request = { model: JINA, query: 'capital of France', documents: ['Berlin is in Germany.', 'Paris is in France.'], top_n: 1 };
    const res = await fetch(`${gw.url}/v1/rerank`, { method: 'POST', headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' }, body: JSON.stringify(request) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ model: JINA, usage: { total_tokens: 42 }, results: [{ index: 1, document: { text: 'Paris is in France.' }, relevance_score: 0.91 }] });
    expect(gw.others.jina.requests[0]).toMatchObject({ path: '/v1/rerank', body: request });
    const after = await settled(id, 1);
    // Only a total: the gateway counts the query as the prompt and bills the rest of the total as completion.
    expect(after.logs[0].prompt_tokens + after.logs[0].completion_tokens).toBe(42);
    expect(after.logs[0].quota).toBe(costOf({ prompt_tokens: after.logs[0].prompt_tokens, completion_tokens: after.logs[0].completion_tokens }, pricesFor(gw.t.ctx.options, JINA, 'default')));
    expect(after.open).toEqual([]);
    await gw.t.ctx.options.set('ModelRatio', JSON.stringify(ratios));
  });
});

describe('the anthropic SDK', () => {
  it('/v1/messages, whole and streamed, translated to Cohere and back', async () => {
    await cohereChannel('ok');
    const { id, key } = await seedKey();
    const message = await anthropic(key).messages.create({ model: COMMAND, max_tokens: 200, system: 'You are terse.', messages: [{ role: 'user', content: 'Hello' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hello! How can I help you today?' });
    expect(message.usage).toMatchObject({ input_tokens: 9, output_tokens: 9 });
    expect(gw.mock.requests[0].body).toMatchObject({ model: COMMAND, max_tokens: 200, messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Hello' }] });

    const stream = anthropic(key).messages.stream({ model: COMMAND, max_tokens: 200, tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }], messages: [{ role: 'user', content: "What's the weather in Paris?" }] });
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } });
    await expectCharged(id, COMMAND, TEXT_USAGE, TOOLS_USAGE);
  });
});

describe('faults, each settled exactly once', () => {
  it('a rate limit is retried on another channel, which stays enabled', async () => {
    await gw.t.ctx.options.set('RetryTimes', '2');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const limited = await cohereChannel('fail-429', COMMAND, { priority: 10 });
    await cohereChannel('ok', COMMAND, { priority: 0 });
    const { id, key } = await seedKey();
    const answer = await openai(key).chat.completions.create({ model: COMMAND, messages: [{ role: 'user', content: 'Hello' }] });
    expect(answer.choices[0].message.content).toBe('Hello! How can I help you today?');
    expect(gw.mock.requests.map((r) => r.key)).toEqual(['fail-429', 'ok']);
    await expectCharged(id, COMMAND, TEXT_USAGE);
    expect((await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', limited).executeTakeFirstOrThrow()).status).toBe(1);
  });

  it('an invalid api token disables the channel and another one answers', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const dead = await cohereChannel('revoked-key', COMMAND, { priority: 10 });
    await cohereChannel('ok', COMMAND, { priority: 0 });
    const { id, key } = await seedKey();
    const message = await anthropic(key).messages.create({ model: COMMAND, max_tokens: 100, messages: [{ role: 'user', content: 'Hello' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hello! How can I help you today?' });
    expect(gw.mock.requests.map((r) => r.key)).toEqual(['revoked-key', 'ok']);
    expect((await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', dead).executeTakeFirstOrThrow()).status).toBe(3);
    await expectCharged(id, COMMAND, TEXT_USAGE);
  });

  it('a bad request is not retried, reaches the client, and costs nothing', async () => {
    await gw.t.ctx.options.set('RetryTimes', '2');
    await cohereChannel('fail-400', COMMAND, { priority: 10 });
    await cohereChannel('ok', COMMAND, { priority: 0 });
    const { id, key } = await seedKey();
    const error = await openai(key).chat.completions.create({ model: COMMAND, messages: [{ role: 'user', content: 'Hello' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(String((error as Error).message)).toContain('p must be between 0.01 and 0.99');
    expect(gw.mock.requests).toHaveLength(1);
    const after = await settled(id, 0);
    expect(after.logs).toEqual([]);
    expect(after.token.remain_quota).toBe(10_000_000);
  });

  it("Cohere's error at message-end ends the client's stream with an error, billed for what was delivered", async () => {
    await cohereChannel('stream-error');
    const { id, key } = await seedKey();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: COMMAND, messages: [{ role: 'user', content: 'Hello' }], stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('"content":"Hello"');
    expect(text).toContain('Cohere 生成失败：internal server error');
    const after = await settled(id, 1);
    expect(after.logs).toHaveLength(1);
    expect(after.token.remain_quota).toBe(10_000_000 - after.logs[0].quota);
    expect(after.open).toEqual([]);
  });

  it('a stream cut mid-way ends an Anthropic client stream with its error event, billed for what was delivered', async () => {
    await cohereChannel('break');
    const { id, key } = await seedKey();
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': `sk-${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: COMMAND, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    const text = await res.text();
    expect(text).toContain('event: error');
    expect(text).not.toContain('message_stop');
    const after = await settled(id, 1);
    expect(after.logs).toHaveLength(1);
    expect(after.logs[0].quota).toBeGreaterThan(0);
    expect(after.token.remain_quota).toBe(10_000_000 - after.logs[0].quota);
    expect(after.open).toEqual([]);
  });
});

describe('the channel test button', () => {
  it('tests a Cohere channel saved from the console (its first chat model), and disables one whose key is dead', async () => {
    const root = await gw.t.login('root', '123456');
    const create = (name: string, key: string) =>
      gw.t.call({ method: 'POST', url: '/api/channel/', cookie: root, payload: { name, type: 35, key, base_url: gw.mock.url, models: `${EMBED},${COMMAND},${RERANK}`, group: 'default' } });
    expect((await create('cohere-good', 'ok')).body.success).toBe(true);
    expect((await create('cohere-dead', 'revoked')).body.success).toBe(true);
    const list = (await gw.t.call({ method: 'GET', url: '/api/channel/?p=0', cookie: root })).body.data as Array<{ id: number; name: string }>;
    const idOf = (name: string) => list.find((c) => c.name === name)!.id;

    const good = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('cohere-good')}`, cookie: root });
    expect(good.body).toMatchObject({ success: true, model: COMMAND, message: 'Hello! How can I help you today?' });
    expect(gw.mock.requests.at(-1)).toMatchObject({ path: '/v2/chat', body: { model: COMMAND, messages: [{ role: 'user', content: 'hi' }] } });

    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const dead = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('cohere-dead')}`, cookie: root });
    expect(dead.body).toMatchObject({ success: false, message: 'invalid api token' });
    expect((await gw.t.call({ method: 'GET', url: `/api/channel/${idOf('cohere-dead')}`, cookie: root })).body.data.status).toBe(3);
  });
});
