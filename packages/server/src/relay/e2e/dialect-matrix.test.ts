import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import type { Usage } from '../../billing/usage.js';
import { MOCK_REPLY, startMockUpstream } from '../../test-support/mock-openai.js';
import { seedChannel, seedToken } from '../../test-support/seed.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';
import { startMockAnthropic } from '../../test-support/upstreams/anthropic.js';
import { bedrockCredentials, startMockBedrock } from '../../test-support/upstreams/bedrock.js';

/**
 * Every client dialect against every provider, through the official SDKs, the gateway and a local mock that
 * speaks the provider's documented protocol and checks what it checks: answers arrive in the client's own
 * shape (text, streams, tool calls) and each request is charged exactly what the provider reported.
 *
 * A provider is one row of PROVIDERS; a client dialect is one block of tests.
 */
interface ProviderRow {
  name: string;
  type: number;
  model: string;
  start(): Promise<{ url: string; close(): Promise<void> }>;
  /** What the mock answers to a plain question, and the usage it reports for it. */
  text: string;
  usage: Usage;
  /** The channel's key when the mock wants more than its mode ('ok'). */
  key?: string;
  /** ModelRatio and CompletionRatio of the row's model. */
  prices?: { model: number; completion: number };
}

/** An AWS channel's key (AK|SK|Region) for the Bedrock mock. */
const awsKey = (mode: Parameters<typeof bedrockCredentials>[0] = 'ok') => `${bedrockCredentials(mode).accessKeyId}|${bedrockCredentials(mode).secretAccessKey}|us-east-1`;

const PROVIDERS: ProviderRow[] = [
  { name: 'OpenAI', type: 1, model: 'gpt-4o-mini', start: startMockUpstream, text: MOCK_REPLY, usage: { prompt_tokens: 12, completion_tokens: 10 } },
  {
    name: 'Anthropic',
    type: 14,
    model: 'claude-sonnet-4-5-20250929',
    start: () => startMockAnthropic(),
    text: 'Hello! How can I help you today?',
    usage: { prompt_tokens: 12, completion_tokens: 12 },
  },
  {
    // Claude through InvokeModel: the Anthropic SDK passes through; the console's name becomes the inference profile.
    name: 'Bedrock Claude',
    type: 33,
    model: 'claude-3-7-sonnet-20250219',
    start: () => startMockBedrock({ region: 'us-east-1', strictTurns: true }),
    text: 'Hello! How can I help you today?',
    usage: { prompt_tokens: 12, completion_tokens: 12 },
    key: awsKey(),
    prices: { model: 1.5, completion: 5 },
  },
  {
    // Amazon Nova through Converse / ConverseStream: every client dialect is translated.
    name: 'Bedrock Nova',
    type: 33,
    model: 'amazon.nova-lite-v1:0',
    start: () => startMockBedrock({ region: 'us-east-1' }),
    text: 'Hello! How can I help you today?',
    usage: { prompt_tokens: 9, completion_tokens: 10 },
    key: awsKey(),
    prices: { model: 0.03, completion: 4 },
  },
];

const WEATHER_TOOL = { name: 'get_weather', description: 'Current weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

let t: TestApp;
let gateway: string;
let userId: number;
let key: string;
let tokenId: number;
const mocks: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  t = await createTestApp();
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  userId = (await t.ctx.repositories.users.findByUsername('root'))!.id;
  const rowPrices = PROVIDERS.flatMap((row) => (row.prices ? [[row.model, row.prices] as const] : []));
  await t.ctx.options.set('ModelRatio', JSON.stringify({ 'gpt-4o-mini': 0.075, 'claude-sonnet-4-5-20250929': 1.5, ...Object.fromEntries(rowPrices.map(([m, p]) => [m, p.model])) }));
  await t.ctx.options.set('CompletionRatio', JSON.stringify({ 'gpt-4o-mini': 4, 'claude-sonnet-4-5-20250929': 5, ...Object.fromEntries(rowPrices.map(([m, p]) => [m, p.completion])) }));
  for (const row of PROVIDERS) {
    const mock = await row.start();
    mocks.push(mock);
    await seedChannel(t.ctx.storage, { name: row.name, type: row.type, key: row.key ?? 'ok', baseUrl: mock.url, models: row.model });
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
    expect(data.model).toBe(row.model);
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

describe('errors in the client dialect', () => {
  it('an unknown key gets each dialect its own error shape', async () => {
    const openai = await new OpenAI({ apiKey: 'sk-nope', baseURL: `${gateway}/v1`, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(openai).toBeInstanceOf(OpenAI.AuthenticationError);
    const anthropic = await new Anthropic({ apiKey: 'sk-nope', baseURL: gateway, maxRetries: 0 }).messages.create({ model: 'claude-sonnet-4-5-20250929', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(anthropic).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((anthropic as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });
});
