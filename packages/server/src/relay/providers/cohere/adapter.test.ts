import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { VendorAnswerError } from '../../dialects/shared.js';
import { SseDecoder } from '../../transport/frame-decoders.js';
import type { BuildInput, ChannelTarget, Endpoint } from '../types.js';
import { classifyCohereError, cohereAdapter } from './adapter.js';
import { cohereChatBody } from './chat-body.js';
import { SEARCH_UNIT_TOKENS } from './codec.js';

const dir = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const text = (name: string) => readFileSync(dir + name, 'utf8');
const json = (name: string) => JSON.parse(text(name)) as Record<string, unknown>;

const channel = (baseUrl = ''): ChannelTarget => ({ type: 35, baseUrl, key: 'co-key', other: '', config: {} });
const build = (endpoint: Endpoint, body: Record<string, unknown>, fields: Partial<BuildInput> = {}) =>
  cohereAdapter.build({ endpoint, dialect: 'openai-chat', channel: channel(), model: String(body.model), stream: false, body, path: '/v1/x', ...fields });
const codec = (model = 'command-a-03-2025') => cohereAdapter.codec!(channel(), model)!;

/** A recorded SSE stream read through the codec's stream reader: the OpenAI chunks it writes. */
function chunks(name: string): Array<Record<string, any>> {
  const decoder = new SseDecoder();
  const read = codec().stream!();
  return [...decoder.push(Buffer.from(text(name))), ...decoder.end()].flatMap(read).map((f) => JSON.parse(f.data));
}

describe('Cohere adapter: requests', () => {
  it.each(['text', 'tools', 'tool-result', 'embed', 'rerank'])('%s: the OpenAI body becomes the recorded Cohere v2 body', (scenario) => {
    const endpoint: Endpoint = scenario === 'embed' ? 'embeddings' : scenario === 'rerank' ? 'rerank' : 'chat';
    const request = build(endpoint, json(`${scenario}.request.json`));
    expect(request.url).toBe(`https://api.cohere.com${{ chat: '/v2/chat', embeddings: '/v2/embed', rerank: '/v2/rerank' }[endpoint as 'chat']}`);
    expect(request.headers).toMatchObject({ authorization: 'Bearer co-key', 'content-type': 'application/json', accept: 'application/json' });
    expect(JSON.parse(request.body as string)).toEqual(json(`${scenario}.upstream.json`));
  });

  it('streams ask for SSE; a channel on api.cohere.ai (one-api\'s default), with or without its version path, keeps its host', () => {
    const stream = build('chat', json('text.request.json'), { stream: true });
    expect(stream.headers.accept).toBe('text/event-stream');
    expect(JSON.parse(stream.body as string).stream).toBe(true);
    for (const base of ['https://api.cohere.ai', 'https://api.cohere.ai/', 'https://api.cohere.ai/v1']) {
      expect(build('chat', json('text.request.json'), { channel: channel(base) }).url).toBe('https://api.cohere.ai/v2/chat');
    }
  });

  it('serves chat, embeddings and rerank only', () => {
    expect((['chat', 'embeddings', 'rerank', 'images', 'completions', 'audio_speech', 'moderations'] as Endpoint[]).filter(cohereAdapter.supports)).toEqual(['chat', 'embeddings', 'rerank']);
    expect(() => build('images', { model: 'x', prompt: 'p' })).toThrow('不支持');
  });

  it('writes only what Cohere defines: ranges clamped, OpenAI-only fields left out, names mapped', () => {
    const body = cohereChatBody(
      {
        model: 'command-r7b-12-2024',
        messages: [
          { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
          { role: 'user', name: 'amy', content: [{ type: 'text', text: 'Look' }, { type: 'image_url', image_url: { url: 'https://x.test/a.png', detail: 'low' } }] },
        ],
        max_tokens: 500,
        max_completion_tokens: 200,
        top_p: 1,
        top_k: 900,
        frequency_penalty: -1,
        presence_penalty: 1.5,
        stop: ['a', 'b', 'c', 'd', 'e', 'f'],
        seed: 7,
        n: 1,
        user: 'u-1',
        logit_bias: {},
        parallel_tool_calls: true,
        stream_options: { include_usage: true },
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
      },
      true,
    );
    expect(body).toEqual({
      model: 'command-r7b-12-2024',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image_url', image_url: { url: 'https://x.test/a.png', detail: 'low' } }] },
      ],
      stream: true,
      max_tokens: 200,
      p: 0.99,
      k: 500,
      frequency_penalty: 0,
      presence_penalty: 1,
      stop_sequences: ['a', 'b', 'c', 'd', 'e'],
      seed: 7,
      response_format: { type: 'json_object', json_schema: { type: 'object' } },
    });
  });

  it('tool choice: none and required as Cohere spells them; a named tool is the only one offered, and required', () => {
    const tools = [
      { type: 'function', function: { name: 'a', parameters: { type: 'object' } } },
      { type: 'function', function: { name: 'b' } },
    ];
    const base = { model: 'm', messages: [{ role: 'user', content: 'x' }], tools };
    expect(cohereChatBody({ ...base, tool_choice: 'none' }, false).tool_choice).toBe('NONE');
    expect(cohereChatBody({ ...base, tool_choice: 'required' }, false).tool_choice).toBe('REQUIRED');
    const named = cohereChatBody({ ...base, tool_choice: { type: 'function', function: { name: 'b' } } }, false);
    expect(named).toMatchObject({ tool_choice: 'REQUIRED', tools: [{ type: 'function', function: { name: 'b', parameters: { type: 'object', properties: {} } } }] });
    expect(cohereChatBody({ ...base, tool_choice: 'auto' }, false)).not.toHaveProperty('tool_choice');
  });

  it("an assistant's words beside its tool calls (or its reasoning_content) go back as the tool plan", () => {
    const call = { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } };
    const said = cohereChatBody({ model: 'm', messages: [{ role: 'assistant', content: 'Checking.', tool_calls: [call] }] }, false);
    expect(said.messages).toEqual([{ role: 'assistant', tool_calls: [call], tool_plan: 'Checking.' }]);
    const reasoned = cohereChatBody({ model: 'm', messages: [{ role: 'assistant', content: null, reasoning_content: 'Plan.', tool_calls: [call] }] }, false);
    expect(reasoned.messages).toEqual([{ role: 'assistant', tool_calls: [call], tool_plan: 'Plan.' }]);
  });

  it('refuses what Cohere cannot take, in Chinese', () => {
    expect(() => cohereChatBody({ model: 'm', messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] }, false)).toThrow('Cohere 不支持此类消息内容');
    expect(() => cohereChatBody({ model: 'm', messages: [{ role: 'critic', content: 'x' }] }, false)).toThrow('Cohere 不支持消息角色');
    expect(() => build('embeddings', { model: 'embed-v4.0', input: [[1, 2, 3]] })).toThrow('只接受文本');
  });

  it('embeddings: base64 (what the openai SDKs ask for) is asked for beside the floats; dimensions become output_dimension', () => {
    const body = JSON.parse(build('embeddings', { model: 'embed-v4.0', input: 'hi', encoding_format: 'base64', dimensions: 256 }).body as string);
    expect(body).toEqual({ model: 'embed-v4.0', texts: ['hi'], input_type: 'search_document', embedding_types: ['float', 'base64'], output_dimension: 256 });
  });

  it('rerank: `{text}` documents give their text; top_n and max_tokens_per_doc pass', () => {
    const body = JSON.parse(build('rerank', { model: 'rerank-v3.5', query: 'q', documents: [{ text: 'a' }, 'b'], top_n: 1, max_tokens_per_doc: 512, return_documents: true }).body as string);
    expect(body).toEqual({ model: 'rerank-v3.5', query: 'q', documents: ['a', 'b'], top_n: 1, max_tokens_per_doc: 512 });
  });
});

describe('Cohere codec: answers', () => {
  it('a text answer is a chat.completion billed by billed_units', () => {
    const answer = codec().answer!(json('text.response.json'));
    expect(answer).toMatchObject({
      id: '5d1e7a0c-3f2b-4c55-9a61-0b8e2f4c7d10',
      object: 'chat.completion',
      model: 'command-a-03-2025',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! How can I help you today?' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 9, completion_tokens: 9, total_tokens: 18 },
    });
  });

  it('a tool call: the plan as reasoning_content, the calls as OpenAI tool_calls, finish tool_calls', () => {
    const answer = codec().answer!(json('tools.response.json')) as Record<string, any>;
    expect(answer.choices[0]).toMatchObject({
      message: { content: null, reasoning_content: 'I will look up the current weather in Paris.', tool_calls: [{ id: 'get_weather_7k2m9x4q1p3z', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      finish_reason: 'tool_calls',
    });
    expect(answer.usage).toEqual({ prompt_tokens: 34, completion_tokens: 21, total_tokens: 55 });
  });

  it('finish reasons; an ERROR finish is a failure the next channel may take; without billed units, tokens are used', () => {
    const finish = (reason: string) => (codec().answer!({ id: 'x', finish_reason: reason, message: { role: 'assistant', content: [{ type: 'text', text: 'a' }] } }) as any).choices[0].finish_reason;
    expect(['COMPLETE', 'STOP_SEQUENCE', 'MAX_TOKENS', 'TOOL_CALL', 'TIMEOUT'].map(finish)).toEqual(['stop', 'stop', 'length', 'tool_calls', 'length']);
    expect(() => finish('ERROR')).toThrow(VendorAnswerError);
    const thinking = codec().answer!({ id: 'x', finish_reason: 'COMPLETE', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'Hmm.' }, { type: 'text', text: 'Yes.' }] }, usage: { tokens: { input_tokens: 5, output_tokens: 7 } } }) as any;
    expect(thinking.choices[0].message).toMatchObject({ content: 'Yes.', reasoning_content: 'Hmm.' });
    expect(thinking.usage).toEqual({ prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 });
  });

  it('embeddings: OpenAI\'s list, usage from meta.billed_units; base64 written as float32 little-endian', () => {
    const answer = codec('embed-v4.0').answer!(json('embed.response.json')) as Record<string, any>;
    expect(answer).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.0123, -0.0456, 0.0789, 0.0012] },
        { object: 'embedding', index: 1, embedding: [-0.0321, 0.0654, -0.0987, 0.021] },
      ],
      model: 'embed-v4.0',
      usage: { prompt_tokens: 11, total_tokens: 11 },
    });
    const encoded = codec('embed-v4.0').answer!({ id: 'e', embeddings: { float: [[0.5, -1]], base64: ['ignored'] }, meta: { billed_units: { input_tokens: 2 } } }) as Record<string, any>;
    const bytes = Buffer.from(encoded.data[0].embedding, 'base64');
    expect([bytes.readFloatLE(0), bytes.readFloatLE(4)]).toEqual([0.5, -1]);
  });

  it(`rerank: results as they came, a search unit reported as ${SEARCH_UNIT_TOKENS} prompt tokens`, () => {
    expect(codec('rerank-v3.5').answer!(json('rerank.response.json'))).toEqual({
      id: '3f8a2c6e-7d1b-4e5f-9a0c-2b4d6f8a1c30',
      results: [
        { index: 0, relevance_score: 0.9871 },
        { index: 2, relevance_score: 0.3125 },
      ],
      usage: { prompt_tokens: 100, total_tokens: 100 },
    });
  });
});

describe('Cohere codec: streams', () => {
  it('text deltas, then the finish, then usage', () => {
    const out = chunks('text.stream.txt');
    expect(out[0]).toMatchObject({ id: '5d1e7a0c-3f2b-4c55-9a61-0b8e2f4c7d10', object: 'chat.completion.chunk', model: 'command-a-03-2025', choices: [{ delta: { role: 'assistant' } }] });
    expect(out.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Hello! How can I help you today?');
    expect(out.at(-2)!.choices[0].finish_reason).toBe('stop');
    expect(out.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 9 } });
  });

  it('the tool plan as reasoning, each call numbered from 0 with its arguments in pieces', () => {
    const out = chunks('tools.stream.txt');
    expect(out.map((c) => c.choices[0]?.delta?.reasoning_content ?? '').join('')).toBe('I will look up the current weather in Paris.');
    const calls = out.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(calls[0]).toEqual({ index: 0, id: 'get_weather_7k2m9x4q1p3z', type: 'function', function: { name: 'get_weather', arguments: '' } });
    expect(calls.map((c: any) => c.function.arguments).join('')).toBe('{"city":"Paris"}');
    expect(out.at(-2)!.choices[0].finish_reason).toBe('tool_calls');
  });

  it('state is per answer: a second reader numbers its calls from 0 again; citations are left out', () => {
    expect(chunks('tools.stream.txt').flatMap((c) => c.choices[0]?.delta?.tool_calls ?? [])[0].index).toBe(0);
    const out = chunks('tool-result.stream.txt');
    expect(out.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('It is 18°C and cloudy in Paris right now.');
  });

  it('a message-end with an error breaks the stream with what Cohere said', () => {
    const { frame } = (json('errors.json').stream_error_event as { frame: { event: string; data: unknown } });
    expect(() => codec().stream!()({ event: frame.event, data: JSON.stringify(frame.data) })).toThrow('Cohere 生成失败：internal server error');
  });
});

describe('Cohere errors', () => {
  it('a dead or unpaid key disables the channel; limits and cancellations retry; the request\'s faults do not', () => {
    expect(classifyCohereError(401, '{"id":"x","message":"invalid api token"}')).toEqual({ retry: true, disableChannel: true, message: 'invalid api token' });
    expect(classifyCohereError(402, '{"message":"Please add or update your payment method"}')).toMatchObject({ retry: true, disableChannel: true });
    expect(classifyCohereError(429, '{"message":"slow down"}')).toMatchObject({ retry: true, disableChannel: false });
    expect(classifyCohereError(400, '{"message":"invalid request"}')).toMatchObject({ retry: false, disableChannel: false });
    expect(classifyCohereError(502, '<html>bad gateway</html>')).toMatchObject({ retry: true, message: '<html>bad gateway</html>' });
    expect(classifyCohereError(503, '{}').message).toBe('upstream returned HTTP 503');
  });
});
