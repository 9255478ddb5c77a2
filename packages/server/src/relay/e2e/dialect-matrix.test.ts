import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI, Type, type Content, type GenerateContentResponse } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import type { Usage } from '../../billing/usage.js';
import { MOCK_REPLY, startMockUpstream } from '../../test-support/mock-openai.js';
import { seedChannel, seedToken } from '../../test-support/seed.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';
import { startMockAnthropic } from '../../test-support/upstreams/anthropic.js';
import { bedrockCredentials, startMockBedrock } from '../../test-support/upstreams/bedrock.js';
import { startMockGemini } from '../../test-support/upstreams/gemini.js';
import { startMockVertex } from '../../test-support/upstreams/vertex.js';
import {
  callsOf,
  cannot,
  deltas,
  eventsOf,
  modeOfCall,
  passesThrough,
  recordedUsage,
  responsesUsageOf,
  seedResponsesChannels,
  type ChannelMode,
  type RecordingMock,
  type ResponsesModels,
} from '../../test-support/responses-matrix.js';

/**
 * Every client dialect against every provider, through the official SDKs, the gateway and a local mock that
 * speaks the provider's documented protocol and checks what it checks: answers arrive in the client's own
 * shape (text, streams, tool calls) and each request is charged exactly what the provider reported.
 *
 * A provider is one row of PROVIDERS; a client dialect is one block of tests.
 */
/** How a mock answers: normally, forced to its answer that reads the prompt cache or that thinks, or a fault. */
type Behaviour = ChannelMode;

/** A started mock: what it received, and the channel key (and config) for each behaviour where the key is not its name. */
type Upstream = RecordingMock;

interface ProviderRow {
  name: string;
  type: number;
  model: string;
  start(): Promise<Upstream>;
  /** What the mock answers to a plain question, and the usage it reports for it. */
  text: string;
  usage: Usage;
  /** The usage of the mock's cache-reading and thinking answers, in canonical terms (rows without them skip those tests). */
  cacheUsage?: Usage;
  thinkingUsage?: Usage;
  /** The model as the provider names it in its answers, where that differs (a passed-through answer keeps it). */
  answerModel?: string;
}

const CLAUDE_CACHE: Usage = { prompt_tokens: 14 + 1800 + 1520, completion_tokens: 31, cached_tokens: 1800, cache_write_tokens: 320, cache_write_1h_tokens: 1200 };
const CLAUDE_THINKING: Usage = { prompt_tokens: 46, completion_tokens: 142 };
const GEMINI_CACHE: Usage = { prompt_tokens: 2058, completion_tokens: 14, cached_tokens: 2048 };
const GEMINI_THINKING: Usage = { prompt_tokens: 11, completion_tokens: 12 + 180, reasoning_tokens: 180 };
const HELLO = 'Hello! How can I help you today?';

/** A Bedrock mock (us-east-1) whose channels sign with the access key of the asked behaviour. */
async function bedrockUpstream(options: { strictTurns?: boolean }): Promise<Upstream> {
  const mock = await startMockBedrock({ region: 'us-east-1', ...options });
  return {
    ...mock,
    channel(behaviour) {
      const { accessKeyId, secretAccessKey } = bedrockCredentials(behaviour);
      return { key: `${accessKeyId}|${secretAccessKey}|us-east-1` };
    },
  };
}

/** A Vertex AI mock whose channels log in with a service account of the asked behaviour. */
async function vertexUpstream(region: string): Promise<Upstream> {
  const mock = await startMockVertex();
  return {
    ...mock,
    channel(behaviour) {
      const account = mock.serviceAccount({ mode: behaviour });
      const config = { region, vertex_ai_project_id: account.project_id, vertex_ai_adc: JSON.stringify(account) };
      return { key: `${region}|${account.project_id}|${config.vertex_ai_adc}`, config: JSON.stringify(config) };
    },
  };
}


const PROVIDERS: ProviderRow[] = [
  {
    name: 'OpenAI',
    type: 1,
    model: 'gpt-4o-mini',
    start: async () => ({ ...(await startMockUpstream()), channel: (b) => ({ key: b === 'thinking' ? 'reasoning' : b }) }),
    text: MOCK_REPLY,
    usage: { prompt_tokens: 12, completion_tokens: 10 },
    cacheUsage: { prompt_tokens: 40, completion_tokens: 20, cached_tokens: 32 },
    thinkingUsage: { prompt_tokens: 40, completion_tokens: 20, reasoning_tokens: 8 },
  },
  {
    name: 'Anthropic',
    type: 14,
    model: 'claude-sonnet-4-5-20250929',
    start: () => startMockAnthropic(),
    text: HELLO,
    usage: { prompt_tokens: 12, completion_tokens: 12 },
    cacheUsage: CLAUDE_CACHE,
    thinkingUsage: CLAUDE_THINKING,
  },
  { name: 'Gemini', type: 24, model: 'gemini-2.5-flash', start: () => startMockGemini(), text: HELLO, usage: { prompt_tokens: 6, completion_tokens: 9 }, cacheUsage: GEMINI_CACHE, thinkingUsage: GEMINI_THINKING },
  { name: 'Vertex Gemini', type: 42, model: 'gemini-2.5-pro', start: () => vertexUpstream('us-central1'), text: HELLO, usage: { prompt_tokens: 6, completion_tokens: 9 }, cacheUsage: GEMINI_CACHE, thinkingUsage: GEMINI_THINKING },
  {
    name: 'Vertex Claude',
    type: 42,
    model: 'claude-sonnet-4-5@20250929',
    start: () => vertexUpstream('us-east5'),
    text: HELLO,
    usage: { prompt_tokens: 12, completion_tokens: 12 },
    cacheUsage: CLAUDE_CACHE,
    thinkingUsage: CLAUDE_THINKING,
    answerModel: 'claude-sonnet-4-5-20250929',
  },
  {
    // Claude through InvokeModel: the Anthropic SDK passes through; the console's name becomes the inference profile.
    name: 'Bedrock Claude',
    type: 33,
    model: 'claude-3-7-sonnet-20250219',
    start: () => bedrockUpstream({ strictTurns: true }),
    text: HELLO,
    usage: { prompt_tokens: 12, completion_tokens: 12 },
  },
  {
    // Amazon Nova through Converse / ConverseStream: every client dialect is translated.
    name: 'Bedrock Nova',
    type: 33,
    model: 'amazon.nova-lite-v1:0',
    start: () => bedrockUpstream({}),
    text: HELLO,
    usage: { prompt_tokens: 9, completion_tokens: 10 },
  },
];

const WEATHER_TOOL = { name: 'get_weather', description: 'Current weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

let t: TestApp;
let gateway: string;
let userId: number;
let key: string;
let tokenId: number;
const mocks: Array<{ close(): Promise<void> }> = [];
/** Per row, channels forced to a behaviour: outside the user's group, reached only by pinning (sk-<key>-<id>). */
const pinned = new Map<string, Record<'cache' | 'thinking', number>>();

beforeAll(async () => {
  t = await createTestApp();
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  userId = (await t.ctx.repositories.users.findByUsername('root'))!.id;
  await t.ctx.options.set('ModelRatio', JSON.stringify({ 'gpt-4o-mini': 0.075, 'claude-sonnet-4-5-20250929': 1.5, 'gemini-2.5-flash': 0.15, 'gemini-2.5-pro': 0.625, 'claude-sonnet-4-5@20250929': 1.5, 'claude-3-7-sonnet-20250219': 1.5, 'amazon.nova-lite-v1:0': 0.03 }));
  await t.ctx.options.set('CompletionRatio', JSON.stringify({ 'gpt-4o-mini': 4, 'claude-sonnet-4-5-20250929': 5, 'gemini-2.5-flash': 8.33, 'gemini-2.5-pro': 8, 'claude-sonnet-4-5@20250929': 5, 'claude-3-7-sonnet-20250219': 5, 'amazon.nova-lite-v1:0': 4 }));
  for (const row of PROVIDERS) {
    const mock = await row.start();
    mocks.push(mock);
    const channel = (behaviour: Behaviour) => mock.channel?.(behaviour) ?? { key: behaviour };
    await seedChannel(t.ctx.storage, { name: row.name, type: row.type, baseUrl: mock.url, models: row.model, ...channel('ok') });
    const seed = (behaviour: Behaviour) => seedChannel(t.ctx.storage, { name: `${row.name} ${behaviour}`, type: row.type, baseUrl: mock.url, models: row.model, group: 'pinned', ...channel(behaviour) });
    pinned.set(row.name, { cache: await seed('cache'), thinking: await seed('thinking') });
  }
  const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000_000 });
  key = token.key;
  tokenId = token.id;
});
afterAll(async () => {
  await t.close();
  for (const mock of mocks) await mock.close();
});

/** The consume log of the request the gateway answered with this X-Request-Id, once it is settled. */
async function logOf(requestId: string | null) {
  expect(requestId).toBeTruthy();
  for (let i = 0; i < 200; i++) {
    const log = await t.ctx.storage.db.selectFrom('logs').selectAll().where('request_id', '=', requestId!).where('token_id', '=', tokenId).executeTakeFirst();
    if (log) return log;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no log for ${requestId}`);
}

async function expectCharged(requestId: string | null, row: ProviderRow, usage: Usage = row.usage) {
  const log = await logOf(requestId);
  expect({ prompt: log.prompt_tokens, completion: log.completion_tokens }).toEqual({ prompt: usage.prompt_tokens, completion: usage.completion_tokens });
  expect(log.quota).toBe(costOf(usage, pricesFor(t.ctx.options, row.model, 'default')));
  expect(log.channel_id).toBeGreaterThan(0);
}

describe.each(PROVIDERS)('OpenAI SDK -> $name channel', (row) => {
  const openai = () => new OpenAI({ apiKey: `sk-${key}`, baseURL: `${gateway}/v1`, maxRetries: 0 });

  it('chat: the answer in OpenAI shape, charged what the provider reported', async () => {
    const { data, response } = await openai().chat.completions.create({ model: row.model, messages: [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: 'Hello' }] }).withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.model).toBe(row.model);
    expect(data.choices[0].message.content).toBe(row.text);
    expect(data.usage).toMatchObject({ prompt_tokens: row.usage.prompt_tokens, completion_tokens: row.usage.completion_tokens });
    await expectCharged(response.headers.get('x-request-id'), row);
  });

  it('stream: chunks carry the same answer and the usage the client asked for', async () => {
    const { data: stream, response } = await openai()
      .chat.completions.create({ model: row.model, messages: [{ role: 'user', content: 'Hello' }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(row.text);
    expect(usage).toMatchObject({ prompt_tokens: row.usage.prompt_tokens, completion_tokens: row.usage.completion_tokens });
    await expectCharged(response.headers.get('x-request-id'), row);
  });

  it('tools: the model calls the tool, whole and streamed, with its arguments', async () => {
    const tools = [{ type: 'function' as const, function: WEATHER_TOOL }];
    const messages = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];
    const whole = await openai().chat.completions.create({ model: row.model, messages, tools });
    const call = whole.choices[0].message.tool_calls?.[0];
    expect(whole.choices[0].finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' && call.function.name).toBe('get_weather');
    expect(JSON.parse(call?.type === 'function' ? call.function.arguments : '{}')).toEqual({ city: 'Paris' });

    const stream = await openai().chat.completions.create({ model: row.model, messages, tools, stream: true });
    let args = '';
    let name = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta?.tool_calls?.[0];
      name ||= delta?.function?.name ?? '';
      args += delta?.function?.arguments ?? '';
      finish ??= chunk.choices[0]?.finish_reason;
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ city: 'Paris' });
    expect(finish).toBe('tool_calls');

    // The follow-up turn with the tool's result reaches the provider in its own shape and is answered.
    const followUp = await openai().chat.completions.create({
      model: row.model,
      tools,
      messages: [...messages, whole.choices[0].message, { role: 'tool', tool_call_id: call!.id, content: '{"temperature": 18}' }],
    });
    expect(followUp.choices[0].message.content).toBeTruthy();
  });
});

describe.each(PROVIDERS)('Anthropic SDK -> $name channel', (row) => {
  const anthropic = () => new Anthropic({ apiKey: `sk-${key}`, baseURL: gateway, maxRetries: 0 });

  it('messages: the answer in Anthropic shape, charged what the provider reported', async () => {
    const { data, response } = await anthropic().messages.create({ model: row.model, max_tokens: 1024, system: 'You are terse.', messages: [{ role: 'user', content: 'Hello' }] }).withResponse();
    expect(data.type).toBe('message');
    expect([row.model, row.answerModel]).toContain(data.model);
    expect(data.content[0]).toMatchObject({ type: 'text', text: row.text });
    expect(data.stop_reason).toBe('end_turn');
    expect(data.usage.output_tokens).toBe(row.usage.completion_tokens);
    await expectCharged(response.headers.get('x-request-id'), row);
  });

  it('stream: events build the same message, with usage', async () => {
    const stream = anthropic().messages.stream({ model: row.model, max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }] });
    const message = await stream.finalMessage();
    expect(message.content[0]).toMatchObject({ type: 'text', text: row.text });
    expect(message.usage.output_tokens).toBe(row.usage.completion_tokens);
    const { response } = await stream.withResponse();
    await expectCharged(response.headers.get('x-request-id'), row);
  });

  it('tools: tool_use blocks, whole and streamed, and the tool_result turn', async () => {
    const tools = [{ name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.parameters as Anthropic.Tool.InputSchema }];
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const whole = await anthropic().messages.create({ model: row.model, max_tokens: 1024, tools, messages });
    const use = whole.content.find((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(whole.stop_reason).toBe('tool_use');
    expect(use).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } });

    const streamed = await anthropic().messages.stream({ model: row.model, max_tokens: 1024, tools, messages }).finalMessage();
    expect(streamed.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'get_weather', input: { city: 'Paris' } });
    expect(streamed.stop_reason).toBe('tool_use');

    const followUp = await anthropic().messages.create({
      model: row.model,
      max_tokens: 1024,
      tools,
      messages: [...messages, { role: 'assistant', content: whole.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use!.id, content: '18 degrees' }] }],
    });
    expect(followUp.content.some((b) => b.type === 'text')).toBe(true);
  });

  it('count_tokens answers without an upstream call or a charge', async () => {
    const counted = await anthropic().messages.countTokens({ model: row.model, messages: [{ role: 'user', content: 'Hello there, how many tokens is this?' }] });
    expect(counted.input_tokens).toBeGreaterThan(5);
  });
});

/** Gemini's usageMetadata for a canonical usage: the prompt with its cached part, thoughts outside the candidates. */
function geminiUsage(usage: Usage) {
  return {
    promptTokenCount: usage.prompt_tokens,
    candidatesTokenCount: usage.completion_tokens - (usage.reasoning_tokens ?? 0),
    ...(usage.cached_tokens ? { cachedContentTokenCount: usage.cached_tokens } : {}),
    ...(usage.reasoning_tokens ? { thoughtsTokenCount: usage.reasoning_tokens } : {}),
  };
}

const requestIdOf = (response: GenerateContentResponse) => response.sdkHttpResponse?.headers?.['x-request-id'] ?? null;

describe.each(PROVIDERS)('Gemini SDK -> $name channel', (row) => {
  const genai = (channel?: number) => new GoogleGenAI({ apiKey: `sk-${key}${channel ? `-${channel}` : ''}`, httpOptions: { baseUrl: gateway } });
  const tools = [{ functionDeclarations: [{ name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] } }] }];
  const question: Content[] = [{ role: 'user', parts: [{ text: 'What is the weather in Paris?' }] }];

  it('generateContent: the answer in Gemini shape, usageMetadata and the charge as the provider reported', async () => {
    const response = await genai().models.generateContent({ model: row.model, contents: 'Hello', config: { systemInstruction: 'You are terse.' } });
    expect(response.text).toBe(row.text);
    expect(response.candidates?.[0]).toMatchObject({ content: { role: 'model' }, finishReason: 'STOP' });
    expect(response.usageMetadata).toMatchObject(geminiUsage(row.usage));
    await expectCharged(requestIdOf(response), row);
  });

  it('generateContentStream: chunks build the same answer; the last carries finish and usage', async () => {
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await genai().models.generateContentStream({ model: row.model, contents: 'Hello' })) chunks.push(chunk);
    expect(chunks.map((c) => c.text ?? '').join('')).toBe(row.text);
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks.at(-1)?.usageMetadata).toMatchObject(geminiUsage(row.usage));
    await expectCharged(requestIdOf(chunks[0]), row);
  });

  it('function calling: functionCall parts, whole and streamed, and the functionResponse turn answered', async () => {
    const whole = await genai().models.generateContent({ model: row.model, contents: question, config: { tools } });
    expect(whole.functionCalls?.map((c) => ({ name: c.name, args: c.args }))).toEqual([{ name: 'get_weather', args: { city: 'Paris' } }]);
    expect(whole.candidates?.[0]?.finishReason).toBe('STOP');

    const calls = [];
    for await (const chunk of await genai().models.generateContentStream({ model: row.model, contents: question, config: { tools } })) calls.push(...(chunk.functionCalls ?? []));
    expect(calls.map((c) => ({ name: c.name, args: c.args }))).toEqual([{ name: 'get_weather', args: { city: 'Paris' } }]);

    // The model turn goes back as it came (with any thought signature), then the function's response.
    const followUp = await genai().models.generateContent({
      model: row.model,
      contents: [...question, whole.candidates![0].content!, { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temperature: '18°C' } } }] }],
      config: { tools },
    });
    expect(followUp.text).toBeTruthy();
    expect(followUp.functionCalls ?? []).toEqual([]);
  });

  it('countTokens answers without an upstream call or a charge', async () => {
    const before = await t.ctx.storage.db.selectFrom('logs').select('id').where('token_id', '=', tokenId).execute();
    const counted = await genai().models.countTokens({ model: row.model, contents: 'Hello there, how many tokens is this?' });
    expect(counted.totalTokens).toBeGreaterThan(5);
    const after = await t.ctx.storage.db.selectFrom('logs').select('id').where('token_id', '=', tokenId).execute();
    expect(after.length).toBe(before.length);
  });

  it.skipIf(!row.cacheUsage)('prompt-cache reads are reported and charged at the cache price', async () => {
    const response = await genai(pinned.get(row.name)!.cache).models.generateContent({ model: row.model, contents: 'How do I reset the router?' });
    expect(response.usageMetadata).toMatchObject(geminiUsage(row.cacheUsage!));
    await expectCharged(requestIdOf(response), row, row.cacheUsage);
  });

  it.skipIf(!row.thinkingUsage)('thinking: thought parts and thoughtsTokenCount, charged as output', async () => {
    const chunks: GenerateContentResponse[] = [];
    const stream = await genai(pinned.get(row.name)!.thinking).models.generateContentStream({ model: row.model, contents: 'What is 27 * 453?', config: { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } } });
    for await (const chunk of stream) chunks.push(chunk);
    const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
    expect(parts.some((p) => p.thought === true && p.text)).toBe(true);
    expect(parts.some((p) => !p.thought && p.text)).toBe(true);
    expect(chunks.at(-1)?.usageMetadata).toMatchObject(geminiUsage(row.thinkingUsage!));
    await expectCharged(requestIdOf(chunks[0]), row, row.thinkingUsage);
  });
});

describe.each(PROVIDERS)('OpenAI SDK responses -> $name channel', (row) => {
  const openai = () => new OpenAI({ apiKey: `sk-${key}`, baseURL: `${gateway}/v1`, maxRetries: 0 });
  const passThrough = passesThrough(row);
  let mock: RecordingMock;
  let models: ResponsesModels;
  let okChannel: number;
  beforeAll(async () => {
    mock = await row.start();
    ({ models, okChannel } = await seedResponsesChannels(t.ctx.storage, row, mock));
    await t.ctx.options.set('RetryTimes', '2');
  });
  afterAll(() => mock.close());

  /** The request's log, charged exactly `usage` at the prices of the model the client named; settled once. */
  async function expectResponsesCharged(requestId: string | null, model: string, usage: Usage, before: number) {
    const log = await logOf(requestId);
    expect({ prompt: log.prompt_tokens, completion: log.completion_tokens }).toEqual({ prompt: usage.prompt_tokens, completion: usage.completion_tokens });
    expect(log.quota).toBe(costOf(usage, pricesFor(t.ctx.options, model, 'default')));
    await expectSettledOnce(requestId, log.quota, before);
    return log;
  }
  async function expectSettledOnce(requestId: string | null, quota: number, before: number) {
    const logs = await t.ctx.storage.db.selectFrom('logs').selectAll().where('request_id', '=', requestId!).execute();
    expect(logs).toHaveLength(1);
    expect(await remaining()).toBe(before - quota);
    expect(await t.ctx.storage.db.selectFrom('quota_reservations').selectAll().where('status', '=', 'open').execute()).toEqual([]);
  }
  const remaining = async () => (await t.ctx.storage.db.selectFrom('tokens').select('remain_quota').where('id', '=', tokenId).executeTakeFirstOrThrow()).remain_quota;

  it('create: the answer in Responses shape, charged what the provider reported', async () => {
    const before = await remaining();
    const sent = { model: models.ok, instructions: 'You are terse.', input: 'Hello' };
    const { data, response } = await openai().responses.create(sent).withResponse();
    expect(data).toMatchObject({ object: 'response', status: 'completed' });
    expect(data.output_text).toBe(row.text);
    expect(data.usage).toMatchObject(responsesUsageOf(row.usage));
    await expectResponsesCharged(response.headers.get('x-request-id'), models.ok, row.usage, before);
    const upstream = callsOf(mock).at(-1)!;
    // OpenAI takes the client's body as is (model mapped); the others get it in their own dialect.
    if (passThrough) expect({ path: upstream.path, body: upstream.body }).toEqual({ path: '/v1/responses', body: { ...sent, model: row.model } });
    else expect(upstream.path).not.toBe('/v1/responses');
  });

  it('stream: events in order with their sequence numbers, response.completed carries the usage that is billed', async () => {
    const before = await remaining();
    const { data: stream, response } = await openai().responses.create({ model: models.ok, input: 'Hello', stream: true }).withResponse();
    const events = await eventsOf(stream);
    expect(events[0]).toMatchObject({ type: 'response.created', sequence_number: 0 });
    expect(deltas(events, 'response.output_text.delta')).toBe(row.text);
    const completed = events.at(-1)!;
    expect(completed.type).toBe('response.completed');
    expect((completed as OpenAI.Responses.ResponseCompletedEvent).response.usage).toMatchObject(responsesUsageOf(row.usage));
    await expectResponsesCharged(response.headers.get('x-request-id'), models.ok, row.usage, before);
    // The SDK's own stream helper assembles the same answer from the events.
    const final = await openai().responses.stream({ model: models.ok, input: 'Hello' }).finalResponse();
    expect(final.output_text).toBe(row.text);
  });

  it('function calling: the call whole and streamed, then the function_call_output turn is answered', async () => {
    const tools = [{ type: 'function' as const, ...WEATHER_TOOL, strict: false }];
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const whole = await openai().responses.create({ model: models.ok, input, tools });
    const call = whole.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'get_weather', status: 'completed' });
    expect(JSON.parse(call!.arguments)).toEqual({ city: 'Paris' });

    const events = await eventsOf(await openai().responses.create({ model: models.ok, input, tools, stream: true }));
    expect(JSON.parse(deltas(events, 'response.function_call_arguments.delta'))).toEqual({ city: 'Paris' });
    const done = events.find((e) => e.type === 'response.output_item.done' && e.item.type === 'function_call') as OpenAI.Responses.ResponseOutputItemDoneEvent;
    expect(done.item).toMatchObject({ type: 'function_call', name: 'get_weather' });
    expect(JSON.parse((done.item as OpenAI.Responses.ResponseFunctionToolCall).arguments)).toEqual({ city: 'Paris' });

    const followUp = await openai().responses.create({ model: models.ok, tools, input: [...input, ...(whole.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call!.call_id, output: '{"temperature": 18}' }] });
    expect(followUp.output_text).toBeTruthy();
  });

  // Skipped for a row whose model cannot reason at all (Amazon Nova v1 has no extended thinking): RECORDED in
  // test-support/responses-matrix.ts says which rows and why. Every other row checks the reasoning it reports.
  it.skipIf(Boolean(cannot(row, 'reasoning')))('reasoning effort: summary and encrypted reasoning come back, reasoning tokens are billed, the next turn carries them', async () => {
    const expected = recordedUsage(row, 'reasoning');
    const before = await remaining();
    const ask = { model: models.reasoning, reasoning: { effort: 'low' as const, summary: 'auto' as const }, include: ['reasoning.encrypted_content' as const], store: false };
    const { data, response } = await openai().responses.create({ ...ask, input: 'What is 27 * 453?' }).withResponse();
    const reasoning = data.output.find((item): item is OpenAI.Responses.ResponseReasoningItem => item.type === 'reasoning');
    expect(reasoning?.summary[0]?.text).toBeTruthy();
    expect(reasoning?.encrypted_content).toBeTruthy();
    expect(data.usage).toMatchObject(responsesUsageOf(expected));
    await expectResponsesCharged(response.headers.get('x-request-id'), models.reasoning, expected, before);

    // Streamed, the summary arrives as deltas and response.completed reports the reasoning tokens.
    const events = await eventsOf(await openai().responses.create({ ...ask, input: 'What is 27 * 453?', stream: true }));
    expect(deltas(events, 'response.reasoning_summary_text.delta')).toBe(reasoning!.summary.map((s) => s.text).join('\n\n'));
    expect((events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response.usage?.output_tokens_details.reasoning_tokens).toBe(expected.reasoning_tokens ?? 0);

    // The reasoning goes back as the provider needs it (OpenAI checks its encrypted content, Claude its signature).
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'What is 27 * 453?' }, ...(data.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'And twice that?' }];
    const next = await openai().responses.create({ ...ask, input });
    expect(next.status).toBe('completed');
  });

  // Skipped for the same rows: without reasoning there is nothing to send back with the call.
  it.skipIf(Boolean(cannot(row, 'reasoning')))('reasoning with function calling: the reasoning goes back with the call (Claude wants its thinking block first)', async () => {
    const tools = [{ type: 'function' as const, ...WEATHER_TOOL, strict: false }];
    const ask = { model: models.reasoning, tools, reasoning: { effort: 'medium' as const }, include: ['reasoning.encrypted_content' as const], store: false };
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const events = await eventsOf(await openai().responses.create({ ...ask, input, stream: true }));
    const output = (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response.output;
    const call = output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call')!;
    expect(call.name).toBe('get_weather');
    // Codex CLI rebuilds its history from output_item.done events: they must hold the same items.
    const done = events.flatMap((e) => (e.type === 'response.output_item.done' ? [e.item] : []));
    expect(done).toEqual(output);
    const next = await openai().responses.create({ ...ask, input: [...input, ...(done as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '18°C' }] });
    expect(next.output_text).toBeTruthy();
  });

  // Skipped for a row whose provider does not report prompt caching (none at present: see RECORDED).
  it.skipIf(Boolean(cannot(row, 'cache')))('cached input: cache reads (and writes) are reported and billed at their own prices', async () => {
    const expected = recordedUsage(row, 'cache');
    expect((expected.cached_tokens ?? 0) > 0).toBe(true);
    const before = await remaining();
    const { data, response } = await openai().responses.create({ model: models.cache, input: 'How do I reset the router?', prompt_cache_key: 'handbook' }).withResponse();
    expect(data.usage).toMatchObject(responsesUsageOf(expected));
    const log = await expectResponsesCharged(response.headers.get('x-request-id'), models.cache, expected, before);
    expect(log.content).toContain(`缓存读取 ${expected.cached_tokens}`);
  });

  it('state and built-in tools: kept for OpenAI, refused with a clear 400 (and no charge) when translated', async () => {
    const before = await remaining();
    const first = await openai().responses.create({ model: models.ok, input: 'Hello' });
    const charged = before - (await remaining());
    const follow = openai().responses.create({ model: models.ok, input: 'And then?', previous_response_id: first.id });
    const search = openai().responses.create({ model: models.ok, input: 'News?', tools: [{ type: 'web_search' }] });
    if (passThrough) {
      expect((await follow).status).toBe('completed');
      expect((await search).status).toBe('completed');
    } else {
      await expect(follow).rejects.toMatchObject({ status: 400, message: expect.stringContaining('previous_response_id') });
      await expect(search).rejects.toMatchObject({ status: 400, message: expect.stringContaining('web_search') });
      await new Promise((r) => setTimeout(r, 50));
      expect(before - (await remaining())).toBe(charged);
    }
  });

  it('faults: 429 and 500 are retried on another channel; billed once, to the channel that answered', async () => {
    const from = mock.requests.length;
    const before = await remaining();
    const { data, response } = await openai().responses.create({ model: models.fault, input: 'Hello' }).withResponse();
    expect(data.output_text).toBe(row.text);
    expect(callsOf(mock, from).map(modeOfCall)).toEqual(['fail-429', 'fail-500', 'ok']);
    const log = await expectResponsesCharged(response.headers.get('x-request-id'), models.fault, row.usage, before);
    expect(log.channel_id).toBe(okChannel);
  });

  it('faults: a stream that breaks mid-way ends with the error event and response.failed, never completed; billed once', async () => {
    const before = await remaining();
    const { data: stream, response } = await openai().responses.create({ model: models.broken, input: 'Hello', stream: true }).withResponse();
    const events = await eventsOf(stream);
    const types = events.map((e) => e.type);
    expect(types).not.toContain('response.completed');
    expect(types.slice(-2)).toEqual(['error', 'response.failed']);
    expect((events.at(-1) as OpenAI.Responses.ResponseFailedEvent).response).toMatchObject({ status: 'failed', error: { code: 'server_error' } });
    const log = await logOf(response.headers.get('x-request-id'));
    expect(log.content).toContain('上游流式响应中断');
    await expectSettledOnce(response.headers.get('x-request-id'), log.quota, before);
  });

  it('faults: a client that aborts mid-stream cancels the upstream call and is billed once', async () => {
    const before = await remaining();
    const from = mock.requests.length;
    const abort = new AbortController();
    const res = await fetch(`${gateway}/v1/responses`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: models.slow, input: 'Hello', stream: true }),
    });
    await res.body!.getReader().read();
    abort.abort();
    const log = await logOf(res.headers.get('x-request-id'));
    expect(log.content).toContain('客户端中途断开');
    await expectSettledOnce(res.headers.get('x-request-id'), log.quota, before);
    const call = () => callsOf(mock, from)[0];
    for (let i = 0; i < 100 && !call()?.aborted; i++) await new Promise((r) => setTimeout(r, 10));
    expect(call()).toMatchObject({ aborted: true });
  });
});

describe('errors in the client dialect', () => {
  it('an unknown key gets each dialect its own error shape', async () => {
    const openai = await new OpenAI({ apiKey: 'sk-nope', baseURL: `${gateway}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(openai).toBeInstanceOf(OpenAI.AuthenticationError);
    const anthropic = await new Anthropic({ apiKey: 'sk-nope', baseURL: gateway, maxRetries: 0 }).messages.create({ model: 'claude-sonnet-4-5-20250929', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(anthropic).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((anthropic as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const gemini = await new GoogleGenAI({ apiKey: 'sk-nope', httpOptions: { baseUrl: gateway } }).models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }).catch((e: unknown) => e);
    expect(gemini).toBeInstanceOf(ApiError);
    expect((gemini as ApiError).status).toBe(401);
    expect(JSON.parse((gemini as ApiError).message)).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
  });
});
