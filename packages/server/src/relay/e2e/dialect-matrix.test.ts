import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI, Type, type Content, type GenerateContentResponse } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import type { Usage } from '../../billing/usage.js';
import { settledLog, startMatrixApp, WEATHER_TOOL } from '../../test-support/dialect-matrix-app.js';
import { HANDBOOK, PROVIDERS, type Behaviour, type ProviderRow } from '../../test-support/dialect-providers.js';
import { seedChannel } from '../../test-support/seed.js';
import type { TestApp } from '../../test-support/test-app.js';

/**
 * Every client dialect against every provider, through the official SDKs, the gateway and a local mock that
 * speaks the provider's documented protocol and checks what it checks: answers arrive in the client's own
 * shape (text, streams, tool calls) and each request is charged exactly what the provider reported.
 *
 * A provider is one row of PROVIDERS; a client dialect is one block of tests (the Responses API's, the longest,
 * is in dialect-matrix-responses.test.ts).
 */
let t: TestApp;
let gateway: string;
let key: string;
let tokenId: number;
const mocks: Array<{ close(): Promise<void> }> = [];
/** Per row, channels forced to a behaviour: outside the user's group, reached only by pinning (sk-<key>-<id>). */
const pinned = new Map<string, Record<'cache' | 'thinking', number>>();

beforeAll(async () => {
  ({ t, gateway, key, tokenId } = await startMatrixApp());
  for (const row of PROVIDERS) {
    const mock = await row.start();
    mocks.push(mock);
    const channel = (behaviour: Behaviour) => mock.channel?.(behaviour) ?? { key: behaviour };
    await seedChannel(t.ctx.storage, { name: row.name, type: row.type, baseUrl: mock.url, models: row.model, ...channel('ok') });
    const seed = (behaviour: Behaviour) => seedChannel(t.ctx.storage, { name: `${row.name} ${behaviour}`, type: row.type, baseUrl: mock.url, models: row.model, group: 'pinned', ...channel(behaviour) });
    pinned.set(row.name, { cache: await seed('cache'), thinking: await seed('thinking') });
  }
});
afterAll(async () => {
  await t.close();
  for (const mock of mocks) await mock.close();
});

const logOf = (requestId: string | null) => settledLog(t, tokenId, requestId);

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
    // The earlier tests' settlements committed first, then nothing more may be logged.
    await t.ctx.relay.ledger.drain();
    const before = await t.ctx.storage.db.selectFrom('logs').select('id').where('token_id', '=', tokenId).execute();
    const counted = await genai().models.countTokens({ model: row.model, contents: 'Hello there, how many tokens is this?' });
    expect(counted.totalTokens).toBeGreaterThan(5);
    await t.ctx.relay.ledger.drain();
    const after = await t.ctx.storage.db.selectFrom('logs').select('id').where('token_id', '=', tokenId).execute();
    expect(after.length).toBe(before.length);
  });

  it.skipIf(!row.cacheUsage)('prompt-cache reads are reported and charged at the cache price', async () => {
    const response = await genai(pinned.get(row.name)!.cache).models.generateContent({ model: row.model, contents: `${HANDBOOK}\n\nHow do I reset the router?` });
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
