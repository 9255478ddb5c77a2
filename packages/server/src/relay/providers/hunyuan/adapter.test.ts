import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VendorAnswerError } from '../../dialects/shared.js';
import { SseDecoder } from '../../transport/frame-decoders.js';
import type { BuildInput, ChannelTarget } from '../types.js';
import { hunyuanAdapter, hunyuanClaudeApi, tencentSecret } from './adapter.js';
import { classifyHunyuanError, hunyuanCodec } from './hunyuan-codec.js';
import { signTc3 } from './tc3-sign.js';

const dir = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const fixture = (name: string) => JSON.parse(readFileSync(dir + name, 'utf8'));
const fixtureText = (name: string) => readFileSync(dir + name, 'utf8');

const KEY = '1250000000|AKIDexample|secretexample';
const channel = (key = KEY, baseUrl = '', other = ''): ChannelTarget => ({ type: 23, baseUrl, key, other, config: {} });
const input = (fields: Partial<BuildInput>): BuildInput => ({ endpoint: 'chat', dialect: 'openai-chat', channel: channel(), model: 'hunyuan-turbos-latest', stream: false, body: {}, path: '/v1/chat/completions', ...fields });

afterEach(() => vi.useRealTimers());

describe('Hunyuan requests', () => {
  it.each(['text', 'tools', 'tool-result', 'image', 'reasoning'])('%s: the OpenAI body becomes the documented ChatCompletions body', (scenario) => {
    const request = fixture(`${scenario}.request.json`);
    const built = hunyuanAdapter.build(input({ body: request, model: request.model }));
    expect(JSON.parse(built.body as string)).toEqual(fixture(`${scenario}.hunyuan-request.json`));
  });

  it('an AppId|SecretId|SecretKey key signs POST / on hunyuan.tencentcloudapi.com with TC3-HMAC-SHA256 over the exact body', () => {
    vi.useFakeTimers({ now: new Date('2026-11-27T01:02:03Z') });
    const built = hunyuanAdapter.build(input({ body: fixture('text.request.json'), stream: true }));
    expect(built.url).toBe('https://hunyuan.tencentcloudapi.com/');
    expect(built.headers).toMatchObject({ 'content-type': 'application/json', 'x-tc-action': 'ChatCompletions', 'x-tc-version': '2023-09-01', 'x-tc-timestamp': '1795741323' });
    expect(built.headers).not.toHaveProperty('x-tc-region');
    expect(JSON.parse(built.body as string).Stream).toBe(true);
    const expected = signTc3({ secretId: 'AKIDexample', secretKey: 'secretexample', service: 'hunyuan', timestamp: 1795741323, headers: { 'content-type': 'application/json', host: 'hunyuan.tencentcloudapi.com', 'x-tc-action': 'ChatCompletions' }, body: built.body as string });
    expect(built.headers.authorization).toBe(expected.authorization);
    expect(built.headers.authorization).toMatch(/^TC3-HMAC-SHA256 Credential=AKIDexample\/2026-11-27\/hunyuan\/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=[0-9a-f]{64}$/);
  });

  it("the channel's base URL names the host signed for; its `other` field the region", () => {
    const built = hunyuanAdapter.build(input({ channel: channel(KEY, 'http://127.0.0.1:9/', 'ap-guangzhou'), body: fixture('text.request.json') }));
    expect(built.url).toBe('http://127.0.0.1:9/');
    expect(built.headers['x-tc-region']).toBe('ap-guangzhou');
    const timestamp = Number(built.headers['x-tc-timestamp']);
    const again = signTc3({ secretId: 'AKIDexample', secretKey: 'secretexample', service: 'hunyuan', timestamp, headers: { 'content-type': 'application/json', host: '127.0.0.1:9', 'x-tc-action': 'ChatCompletions' }, body: built.body as string });
    expect(built.headers.authorization).toBe(again.authorization);
  });

  it('embeddings go to GetEmbedding (no model in the body); other endpoints are refused', () => {
    const built = hunyuanAdapter.build(input({ endpoint: 'embeddings', body: fixture('get-embedding.request.json'), path: '/v1/embeddings' }));
    expect(built.headers['x-tc-action']).toBe('GetEmbedding');
    expect(JSON.parse(built.body as string)).toEqual(fixture('get-embedding.hunyuan-request.json'));
    expect(JSON.parse(hunyuanAdapter.build(input({ endpoint: 'embeddings', body: { input: ['a', 'b'] } })).body as string)).toEqual({ InputList: ['a', 'b'] });
    expect(() => hunyuanAdapter.build(input({ endpoint: 'embeddings', body: { input: [[1, 2]] } }))).toThrow('文本');
    expect(() => hunyuanAdapter.build(input({ endpoint: 'images', body: {} }))).toThrow('不支持');
    expect(hunyuanAdapter.supports('embeddings') && !hunyuanAdapter.supports('rerank')).toBe(true);
  });

  it('a plain API key uses the OpenAI-compatible API with Bearer, its base URL kept (with /v1), the body passed through', () => {
    const body = { model: 'hunyuan-turbos-latest', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 };
    const built = hunyuanAdapter.build(input({ channel: channel('sk-plain'), body, stream: true }));
    expect(built.url).toBe('https://api.hunyuan.cloud.tencent.com/v1/chat/completions');
    expect(built.headers.authorization).toBe('Bearer sk-plain');
    expect(JSON.parse(built.body as string)).toEqual({ ...body, stream_options: { include_usage: true } });
    expect(hunyuanAdapter.build(input({ channel: channel('sk-plain', 'https://hunyuan.tencentcloudapi.com'), body })).url).toBe('https://api.hunyuan.cloud.tencent.com/v1/chat/completions');
    expect(hunyuanAdapter.build(input({ channel: channel('sk-plain', 'http://127.0.0.1:9/v1'), body })).url).toBe('http://127.0.0.1:9/v1/chat/completions');
    expect(hunyuanAdapter.build(input({ channel: channel('sk-plain', 'http://127.0.0.1:9'), endpoint: 'embeddings', body: { input: 'x' } })).url).toBe('http://127.0.0.1:9/v1/embeddings');
  });

  it('reads one-api keys, SecretId|SecretKey too, and refuses a malformed one', () => {
    expect(tencentSecret('1250000000|AKID|SK')).toEqual({ secretId: 'AKID', secretKey: 'SK' });
    expect(tencentSecret('AKID|SK')).toEqual({ secretId: 'AKID', secretKey: 'SK' });
    expect(tencentSecret('sk-plain')).toBeUndefined();
    expect(() => tencentSecret('a|b|c|d')).toThrow('AppId|SecretId|SecretKey');
    expect(() => tencentSecret('app||')).toThrow('AppId|SecretId|SecretKey');
  });

  it('tool choice: a named tool is custom with CustomTool; required has no equal and stays auto; no output limit is sent', () => {
    const body = { ...fixture('tools.request.json'), tool_choice: { type: 'function', function: { name: 'get_weather' } }, max_tokens: 100, stop: 'END', seed: 7 };
    const sent = JSON.parse(hunyuanAdapter.build(input({ body })).body as string);
    expect(sent).toMatchObject({ ToolChoice: 'custom', CustomTool: { Type: 'function', Function: { Name: 'get_weather' } }, Stop: ['END'], Seed: 7 });
    expect(sent).not.toHaveProperty('MaxTokens');
    expect(JSON.parse(hunyuanAdapter.build(input({ body: { ...body, tool_choice: 'required' } })).body as string).ToolChoice).toBe('auto');
  });

  it('system and developer messages become one system message first; consecutive user texts are joined', () => {
    const body = { messages: [{ role: 'user', content: 'a' }, { role: 'system', content: 's1' }, { role: 'developer', content: [{ type: 'text', text: 's2' }] }, { role: 'user', content: 'b' }] };
    expect(JSON.parse(hunyuanAdapter.build(input({ body })).body as string).Messages).toEqual([{ Role: 'system', Content: 's1\n\ns2' }, { Role: 'user', Content: 'a\n\nb' }]);
  });
});

describe('Hunyuan answers', () => {
  const codec = hunyuanCodec('hunyuan-turbos-latest');
  const frames = (name: string) => {
    const decoder = new SseDecoder();
    const read = codec.stream!();
    return [...decoder.push(Buffer.from(fixtureText(name))), ...decoder.end()].flatMap((f) => read(f)).map((f) => JSON.parse(f.data));
  };

  it('a whole answer in its envelope reads as chat.completion (tool calls, reasoning, usage)', () => {
    expect(codec.answer!(fixture('text.response.json'))).toEqual({
      id: '2d2a1a5e-8c2f-4c47-9d6b-5f0c3e2b7a11',
      object: 'chat.completion',
      created: 1764220800,
      model: 'hunyuan-turbos-latest',
      choices: [{ index: 0, message: { role: 'assistant', content: '你好！有什么我可以帮你的吗？' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 9, completion_tokens: 10, total_tokens: 19 },
    });
    const tools = codec.answer!(fixture('tools.response.json')) as any;
    expect(tools.choices[0]).toMatchObject({ finish_reason: 'tool_calls', message: { tool_calls: [{ id: 'call_d3k8m2p1q9r7s5t0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"北京"}' } }] } });
    expect((codec.answer!(fixture('reasoning.response.json')) as any).choices[0].message.reasoning_content).toMatch(/^把 453/);
    expect(codec.answer!({ Response: { Choices: [], Usage: { PromptTokens: 5, CompletionTokens: 1, TotalTokens: 6, PromptTokensDetails: { CachedTokens: '3' } } } }).usage).toEqual({ prompt_tokens: 5, completion_tokens: 1, total_tokens: 6, prompt_tokens_details: { cached_tokens: 3 } });
  });

  it('GetEmbedding reads as the OpenAI embeddings list; an answer without the envelope passes unchanged', () => {
    expect(codec.answer!(fixture('get-embedding.response.json'))).toMatchObject({ object: 'list', model: 'hunyuan-turbos-latest', data: [{ object: 'embedding', index: 0, embedding: expect.any(Array) }], usage: { prompt_tokens: 4, total_tokens: 4 } });
    const openai = { id: 'x', object: 'chat.completion', choices: [] };
    expect(codec.answer!(openai)).toBe(openai);
  });

  it('Response.Error (HTTP 200) is a failure with the status its code means', () => {
    const errors = fixture('errors.json');
    const status = (name: string) => {
      try {
        codec.answer!(errors[name].body);
      } catch (error) {
        expect(error).toBeInstanceOf(VendorAnswerError);
        return [(error as VendorAnswerError).status, (error as Error).message];
      }
      return undefined;
    };
    expect(status('signature_failure')).toEqual([401, 'AuthFailure.SignatureFailure: The provided credentials could not be validated. Please check your signature is correct.']);
    expect(status('resource_pack_exhausted')?.[0]).toBe(403);
    expect(status('request_limit')?.[0]).toBe(429);
    expect(status('engine_timeout')?.[0]).toBe(504);
    expect(status('internal')?.[0]).toBe(500);
    expect(status('unknown_parameter')?.[0]).toBe(400);
  });

  it('the SSE stream reads as chunks: role once, tool call pieces merged by Id, usage once at the end', () => {
    const text = frames('text.stream.txt');
    expect(text.map((c) => c.choices[0]?.delta.content).join('')).toBe('你好！有什么我可以帮你的吗？');
    expect(text.filter((c) => c.choices[0]?.delta.role)).toHaveLength(1);
    expect(text.filter((c) => c.usage)).toEqual([{ id: '2d2a1a5e-8c2f-4c47-9d6b-5f0c3e2b7a11', object: 'chat.completion.chunk', created: 1764220800, model: 'hunyuan-turbos-latest', choices: [], usage: { prompt_tokens: 9, completion_tokens: 10, total_tokens: 19 } }]);
    const calls = frames('tools.stream.txt').flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: 'call_d3k8m2p1q9r7s5t0', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } },
      { index: 0, function: { arguments: '"北京"}' } },
    ]);
    expect(frames('tools.stream.txt').map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls']);
    expect(frames('reasoning.stream.txt').map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('')).toMatch(/^把 453.*12231。$/);
  });

  it('ErrorMsg mid-stream breaks the stream with its message; OpenAI-compatible frames pass', () => {
    const read = codec.stream!();
    expect(() => read({ data: JSON.stringify(fixture('errors.json').stream_error_frame.frame) })).toThrow('4001: 请求模型超时');
    const chunk = { data: '{"id":"x","object":"chat.completion.chunk","choices":[]}' };
    expect(read(chunk)).toEqual([chunk]);
    expect(read({ data: '[DONE]' })).toEqual([{ data: '[DONE]' }]);
  });

  it('verdicts: a dead key or unpaid account disables; an expired signature (our clock) and limits only retry', () => {
    expect(classifyHunyuanError(401, '{"error":{"message":"AuthFailure.SecretIdNotFound: The SecretId is not found"}}')).toEqual({ retry: true, disableChannel: true, message: 'AuthFailure.SecretIdNotFound: The SecretId is not found' });
    expect(classifyHunyuanError(401, '{"error":{"message":"AuthFailure.SignatureExpire: Signature expired"}}')).toMatchObject({ retry: true, disableChannel: false });
    expect(classifyHunyuanError(403, '{"error":{"message":"ResourceUnavailable.InArrears: 账号已欠费。"}}')).toMatchObject({ retry: true, disableChannel: true });
    expect(classifyHunyuanError(400, '{"error":{"message":"InvalidParameter: bad"}}')).toMatchObject({ retry: false, disableChannel: false });
    expect(classifyHunyuanError(502, '{"error":{"message":"4001: 请求模型超时"}}')).toMatchObject({ retry: true, disableChannel: false });
    expect(classifyHunyuanError(401, '{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}')).toMatchObject({ retry: true, disableChannel: true });
  });
});

describe("Hunyuan's Anthropic-compatible API", () => {
  const on = (key: string, baseUrl = ''): ChannelTarget => ({ ...channel(key, baseUrl), config: { claude_api: 'on' } });

  it('an API-key channel that turned it on: /anthropic/v1/messages on the API-key host, the Messages body as sent', () => {
    expect(hunyuanClaudeApi(on('sk-hy'))).toBe('https://api.hunyuan.cloud.tencent.com/anthropic/v1/messages');
    expect(hunyuanClaudeApi(on('sk-hy', 'https://hunyuan.tencentcloudapi.com'))).toBe('https://api.hunyuan.cloud.tencent.com/anthropic/v1/messages');
    expect(hunyuanClaudeApi(on('sk-hy', 'https://hy.example.com/v1'))).toBe('https://hy.example.com/anthropic/v1/messages');
    expect(hunyuanAdapter.dialects(on('sk-hy'), 'hunyuan-2.0-instruct-20251111')).toEqual(['openai-chat', 'anthropic']);
    const body = { model: 'hunyuan-2.0-instruct-20251111', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
    const built = hunyuanAdapter.build(input({ dialect: 'anthropic', channel: on('sk-hy'), body, path: '/v1/messages' }));
    expect(built).toMatchObject({ url: 'https://api.hunyuan.cloud.tencent.com/anthropic/v1/messages', headers: { 'x-api-key': 'sk-hy', authorization: 'Bearer sk-hy' } });
    expect(JSON.parse(String(built.body))).toEqual(body);
    // its answers are Anthropic's: no Tencent envelope to read
    expect(hunyuanAdapter.codec!(on('sk-hy'), 'hunyuan-2.0-instruct-20251111')).toBeUndefined();
  });

  it('not without the switch, and never for a SecretId triple (it signs API 3.0 calls only)', () => {
    expect(hunyuanClaudeApi(channel('sk-hy'))).toBeUndefined();
    expect(hunyuanClaudeApi(on(KEY))).toBeUndefined();
    expect(hunyuanAdapter.dialects(on(KEY), 'hunyuan-lite')).toEqual(['openai-chat']);
    expect(hunyuanAdapter.codec!(on(KEY), 'hunyuan-lite')).toBeDefined();
  });
});
