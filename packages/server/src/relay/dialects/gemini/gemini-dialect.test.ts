import { describe, expect, it } from 'vitest';
import { collectStream, type ChatRequest, type StreamPart } from '../../canonical.js';
import { JsonStreamDecoder, SseDecoder } from '../../transport/frame-decoders.js';
import { validateGenerateContent } from '../../../test-support/upstreams/gemini-validate.js';
import { anthropicDialect } from '../anthropic/index.js';
import { openAiChatDialect } from '../openai-chat/index.js';
import { UpstreamStreamError } from '../shared.js';
import { DUMMY_THOUGHT_SIGNATURE } from './build-request.js';
import { mediaBoundsFor } from '../../../billing/media-bounds.js';
import { geminiDialect } from './index.js';

const context = { id: 'resp-1', model: 'gemini-2.5-flash', created: 1, includeUsage: true };
const rules = (model = 'gemini-2.5-flash') => ({ platform: 'gemini' as const, model, signatures: new Set(['sig-call', 'sig-text', 'sig-a', 'sig-b']), cachedContents: new Set<string>() });

describe('Gemini requests', () => {
  it('reads proto JSON in snake_case exactly as in lowerCamelCase', () => {
    const camel = {
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Hi' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }],
      tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT', properties: { max_items: { type: 'INTEGER' } }, required: ['max_items'] } }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } },
      generationConfig: { maxOutputTokens: 50, topK: 3, stopSequences: ['x'], responseMimeType: 'application/json', thinkingConfig: { thinkingBudget: 0 } },
    };
    const snake = {
      system_instruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Hi' }, { inline_data: { mime_type: 'image/png', data: 'AAAA' } }] }],
      tools: [{ function_declarations: [{ name: 'f', parameters: { type: 'OBJECT', properties: { max_items: { type: 'INTEGER' } }, required: ['max_items'] } }] }],
      tool_config: { function_calling_config: { mode: 'ANY', allowed_function_names: ['f'] } },
      generation_config: { max_output_tokens: 50, top_k: 3, stop_sequences: ['x'], response_mime_type: 'application/json', thinking_config: { thinking_budget: 0 } },
    };
    const parsed = geminiDialect.parseRequest(camel);
    expect(geminiDialect.parseRequest(snake)).toEqual(parsed);
    expect(parsed).toMatchObject({
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } }] }],
      // A property name is the caller's, not a proto field: it keeps its underscore.
      tools: [{ name: 'f', parameters: { type: 'object', properties: { max_items: { type: 'integer' } }, required: ['max_items'] } }],
      toolChoice: { type: 'tool', name: 'f' },
      maxOutputTokens: 50,
      topK: 3,
      stop: ['x'],
      responseFormat: { type: 'json_object' },
      reasoning: { enabled: false },
    });
    const facts = geminiDialect.inspect(snake, mediaBoundsFor);
    expect(facts).toMatchObject({ maxTokens: 50, choices: 1, includeUsage: true });
    expect(facts.promptBound).toBeGreaterThan(1000);
  });

  it('gives function calls stable ids and answers each functionResponse by id, then name, then order', () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }, { functionCall: { name: 'get_time', args: { city: 'Paris' } } }] },
        // The responses come in the other order: matched by name.
        { role: 'user', parts: [{ functionResponse: { name: 'get_time', response: { output: '12:00' } } }, { functionResponse: { name: 'get_weather', response: { temperature: 18 } } }] },
        { role: 'model', parts: [{ functionCall: { name: 'lookup', args: {} } }] },
        // A response under a name that was never called answers the open call.
        { role: 'user', parts: [{ functionResponse: { name: 'renamed', response: { error: 'boom' } } }] },
      ],
    };
    const first = geminiDialect.parseRequest(body);
    expect(geminiDialect.parseRequest(body)).toEqual(first);
    const calls = first.messages.flatMap((m) => m.content.flatMap((p) => (p.type === 'tool_call' ? [[p.id, p.name]] : [])));
    expect(calls).toEqual([
      ['call_1_0', 'get_weather'],
      ['call_1_1', 'get_time'],
      ['call_3_0', 'lookup'],
    ]);
    const results = first.messages.flatMap((m) => m.content.flatMap((p) => (p.type === 'tool_result' ? [[p.callId, p.content, p.isError ?? false]] : [])));
    expect(results).toEqual([
      ['call_1_1', [{ type: 'text', text: '12:00' }], false],
      ['call_1_0', [{ type: 'text', text: '{"temperature":18}' }], false],
      ['call_3_0', [{ type: 'text', text: 'boom' }], true],
    ]);
    // Through OpenAI's shape and back to Gemini, every response still answers its call, by name.
    const viaOpenAi = geminiDialect.buildRequest({ ...openAiChatDialect.parseRequest(openAiChatDialect.buildRequest({ ...first, model: 'm' })), model: 'gemini-2.5-flash' });
    expect(validateGenerateContent(viaOpenAi, rules())).toBeNull();
    const turns = viaOpenAi.contents as Array<{ role: string; parts: Array<Record<string, any>> }>;
    expect(turns[2].parts.map((p) => [p.functionResponse.name, p.functionResponse.response])).toEqual([
      ['get_time', { output: '12:00' }],
      ['get_weather', { temperature: 18 }],
    ]);
    // OpenAI's tool messages cannot say a result is an error; straight back to Gemini it still is one.
    expect(turns[4].parts[0].functionResponse).toEqual({ name: 'lookup', response: { output: 'boom' } });
    const direct = geminiDialect.buildRequest(first).contents as Array<{ parts: Array<Record<string, any>> }>;
    expect(direct[4].parts[0].functionResponse).toEqual({ name: 'renamed', response: { error: 'boom' } });
  });

  it('carries thought signatures through a round trip, through the Anthropic dialect too', () => {
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'Think, then call.' }] },
        {
          role: 'model',
          parts: [{ text: 'Let me think.', thought: true }, { text: 'I will look it up.', thoughtSignature: 'sig-text' }, { functionCall: { name: 'lookup', args: { q: 1 } }, thoughtSignature: 'sig-call' }],
        },
        { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { output: 'found' } } }] },
      ],
    };
    const canonical = geminiDialect.parseRequest(body);
    expect(canonical.messages[1].content).toEqual([
      { type: 'reasoning', text: 'Let me think.', signature: 'sig-text' },
      { type: 'text', text: 'I will look it up.' },
      { type: 'tool_call', id: 'call_1_2', name: 'lookup', arguments: '{"q":1}', signature: 'sig-call' },
    ]);
    const rebuilt = geminiDialect.buildRequest({ ...canonical, model: 'gemini-3-pro-preview' });
    expect((rebuilt.contents as unknown[])[1]).toEqual(body.contents[1]);
    expect(validateGenerateContent(rebuilt, rules('gemini-3-pro-preview'))).toBeNull();

    // An Anthropic client holds the reasoning as thinking blocks with their signatures and sends them back. Its
    // tool_use blocks have no place for the call's own signature: Gemini 3 gets the documented placeholder.
    const answer = geminiDialect.parseResponse({ candidates: [{ content: body.contents[1], finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 5 } });
    const message = anthropicDialect.writeResponse(answer, context) as { content: unknown[] };
    const next = anthropicDialect.parseRequest({ model: 'claude', max_tokens: 100, messages: [{ role: 'user', content: 'Think, then call.' }, { role: 'assistant', content: message.content }] });
    const back = geminiDialect.buildRequest({ ...next, model: 'gemini-3-pro-preview' }).contents as Array<{ parts: unknown[] }>;
    expect(back[1].parts).toEqual([
      { text: 'Let me think.', thought: true },
      { text: 'I will look it up.', thoughtSignature: 'sig-text' },
      { functionCall: { name: 'lookup', args: { q: 1 } }, thoughtSignature: DUMMY_THOUGHT_SIGNATURE },
    ]);
  });

  it('joins a thought streamed over several model turns into one signed block, as Anthropic needs it', () => {
    // What a Gemini client keeps from a translated Claude stream: one model content per chunk.
    const request = geminiDialect.parseRequest({
      contents: [
        { role: 'user', parts: [{ text: 'Hi' }] },
        { role: 'model', parts: [{ text: 'Hm', thought: true }] },
        { role: 'model', parts: [{ text: 'm.', thought: true }] },
        { role: 'model', parts: [{ text: 'Hello.', thoughtSignature: 'sig-a' }] },
        { role: 'user', parts: [{ text: 'Again' }] },
      ],
    });
    expect(request.messages[1].content).toEqual([
      { type: 'reasoning', text: 'Hmm.', signature: 'sig-a' },
      { type: 'text', text: 'Hello.' },
    ]);
    expect((anthropicDialect.buildRequest({ ...request, model: 'claude-sonnet-4-5' }).messages as Array<{ content: unknown }>)[1].content).toEqual([
      { type: 'thinking', thinking: 'Hmm.', signature: 'sig-a' },
      { type: 'text', text: 'Hello.' },
    ]);
  });

  it('signs an unsigned function call for Gemini 3 with the documented placeholder, and only there', () => {
    const history: ChatRequest = openAiChatDialect.parseRequest({
      model: 'x',
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }, { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'c2', content: 'rain' },
      ],
    });
    const three = geminiDialect.buildRequest({ ...history, model: 'gemini-3-pro-preview' });
    const parts = (three.contents as Array<{ parts: Array<Record<string, unknown>> }>)[1].parts;
    expect(parts.map((p) => p.thoughtSignature)).toEqual([DUMMY_THOUGHT_SIGNATURE, undefined]);
    expect(validateGenerateContent(three, rules('gemini-3-pro-preview'))).toBeNull();
    const twoFive = geminiDialect.buildRequest({ ...history, model: 'gemini-2.5-flash' });
    expect(JSON.stringify(twoFive)).not.toContain('thoughtSignature');
  });

  it('turns JSON Schema into schemas Gemini accepts', () => {
    const parameters = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      $defs: { unit: { type: 'string', enum: ['c', 'f'] } },
      properties: {
        city: { type: 'string', format: 'uri', minLength: 1 },
        unit: { $ref: '#/$defs/unit' },
        days: { type: ['integer', 'null'], exclusiveMinimum: 0 },
        mode: { const: 'fast' },
        tags: { type: 'array', items: { type: 'string' } },
        extra: { type: 'object', additionalProperties: { type: 'string' } },
      },
      required: ['city', 'ghost'],
    };
    const body = geminiDialect.buildRequest({ ...openAiChatDialect.parseRequest({ model: 'x', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f', parameters } }, { type: 'function', function: { name: 'g' } }] }), model: 'gemini-2.5-flash' });
    expect(validateGenerateContent(body, rules())).toBeNull();
    const [f, g] = (body.tools as Array<{ functionDeclarations: Array<Record<string, any>> }>)[0].functionDeclarations;
    expect(f.parameters).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 1 },
        unit: { type: 'string', enum: ['c', 'f'], format: 'enum' },
        days: { type: 'integer', nullable: true },
        mode: { type: 'string', enum: ['fast'], format: 'enum' },
        tags: { type: 'array', items: { type: 'string' } },
        extra: {},
      },
      required: ['city'],
    });
    expect(g).toEqual({ name: 'g' });
  });

  it('asks for thinking within each model family’s budget', () => {
    const base = openAiChatDialect.parseRequest({ model: 'x', messages: [{ role: 'user', content: 'hi' }] });
    const thinking = (model: string, reasoning: ChatRequest['reasoning']) => (geminiDialect.buildRequest({ ...base, model, reasoning }).generationConfig as Record<string, unknown> | undefined)?.thinkingConfig;
    expect(thinking('gemini-2.5-flash', { budgetTokens: 99_999 })).toEqual({ thinkingBudget: 24576, includeThoughts: true });
    expect(thinking('gemini-2.5-pro', { budgetTokens: 10 })).toEqual({ thinkingBudget: 128, includeThoughts: true });
    expect(thinking('gemini-2.5-flash', { enabled: false })).toEqual({ thinkingBudget: 0 });
    expect(thinking('gemini-2.5-pro', { enabled: false })).toBeUndefined();
    expect(thinking('gemini-2.0-flash', { effort: 'high' })).toBeUndefined();
    expect(thinking('gemini-3-pro-preview', { effort: 'low' })).toEqual({ thinkingLevel: 'low', includeThoughts: true });
    expect(thinking('gemini-2.5-flash', { effort: 'medium' })).toEqual({ thinkingBudget: 8192, includeThoughts: true });
  });

  it('rewrite drops the model and caps the output without raising the client’s own limit', () => {
    expect(geminiDialect.rewrite({ model: 'models/x', contents: [] }, { model: 'y', maxOutputTokens: 100 })).toEqual({ contents: [], generationConfig: { maxOutputTokens: 100 } });
    expect(geminiDialect.rewrite({ contents: [], generationConfig: { maxOutputTokens: 20, temperature: 1 } }, { model: 'y', maxOutputTokens: 100 })).toEqual({ contents: [], generationConfig: { maxOutputTokens: 20, temperature: 1 } });
    expect(geminiDialect.rewrite({ contents: [], generation_config: { max_output_tokens: 500 } }, { model: 'y', maxOutputTokens: 100 })).toEqual({ contents: [], generation_config: { maxOutputTokens: 100 } });
    const untouched = { contents: [], generationConfig: { maxOutputTokens: 5 } };
    expect(geminiDialect.rewrite(untouched, { model: 'y' })).toEqual(untouched);
  });
});

describe('Gemini answers', () => {
  it('usageMetadata: the prompt includes cached tokens, thoughts are completion outside candidates', () => {
    const answer = geminiDialect.parseResponse({
      candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 2058, cachedContentTokenCount: 2048, toolUsePromptTokenCount: 7, candidatesTokenCount: 14, thoughtsTokenCount: 180, totalTokenCount: 2259 },
    });
    expect(answer.usage).toEqual({ prompt_tokens: 2065, completion_tokens: 194, cached_tokens: 2048, reasoning_tokens: 180 });
    const written = geminiDialect.writeResponse(answer, context) as Record<string, any>;
    expect(written.usageMetadata).toEqual({ promptTokenCount: 2065, candidatesTokenCount: 14, thoughtsTokenCount: 180, cachedContentTokenCount: 2048, totalTokenCount: 2259 });
    expect(geminiDialect.parseResponse(written).usage).toEqual(answer.usage);
  });

  it('a function call ends with STOP in Gemini and tool_calls everywhere else; a blocked prompt is content_filter', () => {
    const call = geminiDialect.parseResponse({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'f', args: { a: 1 } } }] }, finishReason: 'STOP' }] });
    expect(call.finishReason).toBe('tool_calls');
    expect(call.content[0]).toMatchObject({ type: 'tool_call', name: 'f', arguments: '{"a":1}' });
    expect((call.content[0] as { id: string }).id).toMatch(/^call_[\w-]+$/);
    expect((geminiDialect.writeResponse(call, context) as any).candidates[0]).toEqual({ content: { role: 'model', parts: [{ functionCall: { name: 'f', args: { a: 1 } } }] }, finishReason: 'STOP', index: 0 });
    expect(geminiDialect.parseResponse({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 3 } })).toMatchObject({ content: [], finishReason: 'content_filter' });
    expect(geminiDialect.parseResponse({ candidates: [{ content: { parts: [{ text: 'cut' }] }, finishReason: 'MAX_TOKENS' }] }).finishReason).toBe('length');
  });

  it('errors are {error: {code, message, status}}', () => {
    expect(geminiDialect.errorBody(429, '额度不足')).toEqual({ error: { code: 429, message: '额度不足', status: 'RESOURCE_EXHAUSTED' } });
    expect(geminiDialect.errorBody(401, 'x')).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
    expect(geminiDialect.errorBody(529, 'x')).toMatchObject({ error: { status: 'UNAVAILABLE' } });
  });
});

/** An Anthropic-style stream: thinking, its signature after it, text, then two tool calls in pieces. */
const PARTS: StreamPart[] = [
  { type: 'start', id: 'm1', model: 'claude' },
  { type: 'reasoning', text: 'Hmm.' },
  { type: 'reasoning', text: '', signature: 'sig-a' },
  { type: 'text', text: 'Checking.' },
  { type: 'tool_call', index: 2, id: 't1', name: 'get_weather' },
  { type: 'tool_call_delta', index: 2, arguments: '{"city":' },
  { type: 'tool_call_delta', index: 2, arguments: '"Paris"}' },
  { type: 'tool_call', index: 3, id: 't2', name: 'get_weather' },
  { type: 'tool_call_delta', index: 3, arguments: '{"city":"Rome"}' },
  { type: 'finish', reason: 'tool_calls' },
  { type: 'usage', usage: { prompt_tokens: 10, completion_tokens: 30, reasoning_tokens: 12 } },
];

describe('Gemini streams', () => {
  it('SSE: thoughts and text as they come, the calls of the turn together with the finish and usage in the last chunk', () => {
    const writer = geminiDialect.createStreamWriter(context);
    const text = PARTS.map((p) => writer.write(p)).join('') + writer.end();
    const decoder = new SseDecoder();
    const chunks = [...decoder.push(Buffer.from(text)), ...decoder.end()].map((f) => JSON.parse(f.data));
    expect(chunks.map((c) => c.candidates[0].content.parts)).toEqual([
      [{ text: 'Hmm.', thought: true }],
      [{ text: 'Checking.', thoughtSignature: 'sig-a' }],
      [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }, { functionCall: { name: 'get_weather', args: { city: 'Rome' } } }],
    ]);
    expect(chunks.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 18, thoughtsTokenCount: 12, totalTokenCount: 40 }, responseId: 'resp-1', modelVersion: 'gemini-2.5-flash' });
    // Read back, the answer is the same.
    const reader = geminiDialect.createStreamReader();
    const back = collectStream(chunks.flatMap((c) => reader.read({ data: JSON.stringify(c) })));
    expect(back.content.map((p) => p.type)).toEqual(['reasoning', 'text', 'tool_call', 'tool_call']);
    expect(back).toMatchObject({ finishReason: 'tool_calls', usage: { prompt_tokens: 10, completion_tokens: 30, reasoning_tokens: 12 } });
  });

  it('JSON array: "[" first, "," between elements, "]" at the end; the error element closes it too', () => {
    const writer = geminiDialect.createStreamWriter({ ...context, jsonArray: true });
    const text = PARTS.map((p) => writer.write(p)).join('') + writer.end();
    expect(text.startsWith('[')).toBe(true);
    expect(text.endsWith(']')).toBe(true);
    expect(JSON.parse(text)).toHaveLength(3);
    const decoder = new JsonStreamDecoder();
    expect(decoder.push(Buffer.from(text))).toHaveLength(3);

    const broken = geminiDialect.createStreamWriter({ ...context, jsonArray: true });
    const cut = PARTS.slice(0, 4).map((p) => broken.write(p)).join('') + broken.error('上游流式响应中断');
    expect(JSON.parse(cut).at(-1)).toEqual({ error: { code: 503, message: '上游流式响应中断', status: 'UNAVAILABLE' } });
    // Passed through, the upstream wrote "[" and its elements: a fresh writer's error continues them.
    expect(geminiDialect.createStreamWriter({ ...context, jsonArray: true }).error('x', true)).toBe(`,\r\n${JSON.stringify({ error: { code: 503, message: 'x', status: 'UNAVAILABLE' } })}]`);
    // Nothing written yet: the error is the whole array.
    expect(JSON.parse(geminiDialect.createStreamWriter({ ...context, jsonArray: true }).error('x'))).toHaveLength(1);
    // An empty answer is still a well-formed array.
    const empty = geminiDialect.createStreamWriter({ ...context, jsonArray: true });
    expect(JSON.parse(empty.write({ type: 'start' }) + empty.end())).toHaveLength(1);
    expect(geminiDialect.createStreamWriter(context).error('x')).toBe(`data: ${JSON.stringify({ error: { code: 503, message: 'x', status: 'UNAVAILABLE' } })}\r\n\r\n`);
  });

  it('the reader passes usage on only once it counts the answer, and throws on an error element', () => {
    const reader = geminiDialect.createStreamReader();
    const first = reader.read({ data: JSON.stringify({ candidates: [{ content: { parts: [{ text: 'Hi' }] } }], usageMetadata: { promptTokenCount: 6, totalTokenCount: 6 }, responseId: 'r', modelVersion: 'gemini-2.5-flash' }) });
    expect(first).toEqual([{ type: 'start', id: 'r', model: 'gemini-2.5-flash' }, { type: 'text', text: 'Hi' }]);
    const last = reader.read({ data: JSON.stringify({ candidates: [{ content: { parts: [{ text: '!' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 6, candidatesTokenCount: 2, totalTokenCount: 8 } }) });
    expect(last).toEqual([{ type: 'text', text: '!' }, { type: 'finish', reason: 'stop' }, { type: 'usage', usage: { prompt_tokens: 6, completion_tokens: 2 } }]);
    expect(() => reader.read({ data: JSON.stringify({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }) })).toThrow(UpstreamStreamError);
  });
});
