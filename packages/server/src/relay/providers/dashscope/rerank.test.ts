import { describe, expect, it } from 'vitest';
import { VendorAnswerError } from '../../dialects/shared.js';
import { fixtures } from '../../../test-support/upstreams/fixtures.js';
import { openAiCompatibleAdapter } from '../openai-compatible/adapter.js';
import type { BuildInput, ChannelTarget } from '../types.js';

const fx = fixtures('dashscope');
const channel = (baseUrl = '', type = 17): ChannelTarget => ({ type, baseUrl, key: 'sk-ds', other: '', config: {} });
const input = (over: Partial<BuildInput> = {}): BuildInput => ({
  endpoint: 'rerank', dialect: 'openai-chat', channel: channel(), model: 'gte-rerank-v2', stream: false, body: fx.json('rerank.request.json'), path: '/v1/rerank', ...over,
});

describe('DashScope native rerank (type 17)', () => {
  it('/v1/rerank goes to text-rerank with the native body and the key as bearer', () => {
    const sent = openAiCompatibleAdapter.build(input());
    expect(sent.url).toBe('https://dashscope.aliyuncs.com/api/v1/services/rerank/text-rerank/text-rerank');
    expect(sent.headers.authorization).toBe('Bearer sk-ds');
    expect(JSON.parse(String(sent.body))).toEqual(fx.json('rerank.upstream.json'));
  });

  it('a base URL saved with the compatible-mode path (or the international host) still reaches the native API', () => {
    expect(openAiCompatibleAdapter.build(input({ channel: channel('https://dashscope.aliyuncs.com/compatible-mode/v1') })).url).toBe('https://dashscope.aliyuncs.com/api/v1/services/rerank/text-rerank/text-rerank');
    expect(openAiCompatibleAdapter.build(input({ channel: channel('https://dashscope-intl.aliyuncs.com') })).url).toBe('https://dashscope-intl.aliyuncs.com/api/v1/services/rerank/text-rerank/text-rerank');
  });

  it('the mapped model name is the one sent; `{text}` documents are sent as their text; bad bodies are refused', () => {
    const body = { model: 'rerank', query: 'q', documents: [{ text: 'a' }, 'b'] };
    expect(JSON.parse(String(openAiCompatibleAdapter.build(input({ model: 'gte-rerank-v2', body })).body))).toEqual({ model: 'gte-rerank-v2', input: { query: 'q', documents: ['a', 'b'] } });
    expect(() => openAiCompatibleAdapter.build(input({ body: { query: 'q', documents: [] } }))).toThrow(/documents/);
    expect(() => openAiCompatibleAdapter.build(input({ body: { documents: ['a'] } }))).toThrow(/query/);
  });

  it('the answer reads in the Cohere/Jina shape with DashScope’s token count as usage', () => {
    const codec = openAiCompatibleAdapter.codec!(channel(), 'gte-rerank-v2', undefined, 'rerank')!;
    expect(codec.answer!(fx.json('rerank.response.json'))).toEqual(fx.json('rerank.answer.json'));
    expect(() => codec.answer!(fx.json('errors.json').bad_parameter.body)).toThrow(VendorAnswerError);
  });

  it('only rerank on an Alibaba channel: chat and other types keep OpenAI’s wire and no codec', () => {
    expect(openAiCompatibleAdapter.codec!(channel(), 'qwen-plus', undefined, 'chat')).toBeUndefined();
    expect(openAiCompatibleAdapter.codec!(channel('', 16), 'rerank', undefined, 'rerank')).toBeUndefined();
    expect(openAiCompatibleAdapter.build(input({ endpoint: 'chat', body: { model: 'qwen-plus', messages: [] } })).url).toBe('https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions');
    // Zhipu serves rerank in the Cohere/Jina shape at its own prefix: passed through
    expect(openAiCompatibleAdapter.build(input({ channel: channel('', 16), model: 'rerank', body: { model: 'rerank', query: 'q', documents: ['a'] } })).url).toBe('https://open.bigmodel.cn/api/paas/v4/rerank');
  });

  it('DashScope’s errors are read by their message', () => {
    expect(openAiCompatibleAdapter.classifyError(401, JSON.stringify(fx.json('errors.json').invalid_key.body))).toMatchObject({ disableChannel: true, message: 'Invalid API-key provided.' });
    expect(openAiCompatibleAdapter.classifyError(429, JSON.stringify(fx.json('errors.json').throttled.body))).toMatchObject({ retry: true, disableChannel: false });
  });
});
