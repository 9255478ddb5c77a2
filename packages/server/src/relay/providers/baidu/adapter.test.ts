import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VendorAnswerError } from '../../dialects/shared.js';
import { SseDecoder } from '../../transport/frame-decoders.js';
import { CredentialError, CredentialResolver } from '../../credentials/credential-resolver.js';
import { baiduOAuthSource } from '../../credentials/baidu-oauth.js';
import { baiduKey, baiduV2Key, startMockBaidu, type MockBaidu } from '../../../test-support/upstreams/baidu.js';
import type { BuildInput, ChannelTarget } from '../types.js';
import { baiduAdapter } from './adapter.js';
import { erniePath } from './endpoints.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;
const sse = (name: string) => {
  const decoder = new SseDecoder();
  return [...decoder.push(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url))), ...decoder.end()];
};
const channel = (key = 'ak|sk', baseUrl = ''): ChannelTarget => ({ type: 15, baseUrl, key, other: '', config: {}, credentials: { kind: 'bearer', token: '24.abc' } });
const input = (fields: Partial<BuildInput>): BuildInput => ({ endpoint: 'chat', dialect: 'openai-chat', channel: channel(), model: 'ERNIE-3.5-8K', stream: false, body: {}, path: '/v1/chat/completions', ...fields });
const sent = (fields: Partial<BuildInput>) => {
  const request = baiduAdapter.build(input(fields));
  return { ...request, json: JSON.parse(request.body as string) as Record<string, unknown> };
};

describe('Baidu adapter: ERNIE v1', () => {
  it.each(['text', 'tools', 'tool-result'])('%s: the OpenAI body becomes the ERNIE body the docs describe, the token in the query', (scenario) => {
    const request = sent({ body: fixture(`${scenario}.request.json`) });
    expect(request.url).toBe('https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions?access_token=24.abc');
    expect(request.headers).toEqual({ 'content-type': 'application/json' });
    expect(request.json).toEqual(fixture(`${scenario}.ernie.json`));
  });

  it('the model names the endpoint: documented names mapped, others lower-cased; the channel base URL is kept', () => {
    expect(erniePath('chat', 'ERNIE-4.0-8K')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro');
    expect(erniePath('chat', 'ERNIE-3.5-8K')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions');
    expect(erniePath('chat', 'ERNIE-Speed-128K')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie-speed-128k');
    expect(erniePath('chat', 'ERNIE-Lite-8K')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie-lite-8k');
    expect(erniePath('chat', 'ERNIE-Speed-8K')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie_speed');
    expect(erniePath('chat', 'ERNIE-Bot-turbo')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/eb-instant');
    expect(erniePath('chat', 'ERNIE-4.0-Turbo-8K')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie-4.0-turbo-8k');
    expect(erniePath('embeddings', 'Embedding-V1')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/embedding-v1');
    expect(erniePath('embeddings', 'bge-large-zh')).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/bge_large_zh');
    expect(sent({ model: 'ERNIE-Speed-128K', channel: channel('a|b', 'https://proxy.example.com/'), body: fixture('text.request.json') }).url).toBe('https://proxy.example.com/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/ernie-speed-128k?access_token=24.abc');
  });

  it("brings OpenAI's ranges into ERNIE's: temperature (0, 1], penalty_score [1, 2], max_output_tokens up to the model's, at most 4 stops", () => {
    const body = { messages: [{ role: 'user', content: 'hi' }], temperature: 1.7, frequency_penalty: 1, max_tokens: 8000, stop: ['a', 'b', 'c', 'd', 'e'], stream: true };
    expect(sent({ body, stream: true }).json).toEqual({ messages: [{ role: 'user', content: 'hi' }], stream: true, temperature: 1, penalty_score: 1.5, max_output_tokens: 2048, stop: ['a', 'b', 'c', 'd'] });
    expect(sent({ body: { ...body, temperature: 0, max_tokens: 8000 }, model: 'ERNIE-Speed-128K' }).json).toMatchObject({ temperature: 0.01, max_output_tokens: 4096 });
    expect(sent({ body: { messages: [{ role: 'user', content: 'hi' }], penalty_score: 1.2, tool_choice: 'none', tools: fixture('tools.request.json').tools } }).json).toEqual({ messages: [{ role: 'user', content: 'hi' }], penalty_score: 1.2 });
  });

  it('consecutive turns are merged so roles alternate; an image is refused with the reason', () => {
    const body = { messages: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }, { role: 'assistant', content: 'c' }, { role: 'user', content: [{ type: 'text', text: 'd' }] }] };
    expect(sent({ body }).json.messages).toEqual([{ role: 'user', content: 'a\nb' }, { role: 'assistant', content: 'c' }, { role: 'user', content: 'd' }]);
    const image = { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] };
    expect(() => sent({ body: image })).toThrow('不支持图片');
  });

  it('embeddings and rerank go to their own APIs with ERNIE bodies', () => {
    const embeddings = sent({ endpoint: 'embeddings', model: 'Embedding-V1', body: fixture('embeddings.request.json'), path: '/v1/embeddings' });
    expect(embeddings.url).toBe('https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/embedding-v1?access_token=24.abc');
    expect(embeddings.json).toEqual(fixture('embeddings.ernie.json'));
    expect(sent({ endpoint: 'embeddings', model: 'Embedding-V1', body: { input: 'one' } }).json).toEqual({ input: ['one'] });
    const rerank = sent({ endpoint: 'rerank', model: 'bce-reranker-base', body: fixture('rerank.request.json'), path: '/v1/rerank' });
    expect(rerank.url).toBe('https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/reranker/bce_reranker_base?access_token=24.abc');
    expect(rerank.json).toEqual(fixture('rerank.ernie.json'));
    expect(baiduAdapter.supports('images')).toBe(false);
  });
});

describe('Baidu adapter: ERNIE answers', () => {
  const codec = baiduAdapter.codec!(channel(), 'ERNIE-3.5-8K')!;

  it('a whole answer, a function call and embeddings read as OpenAI answers', () => {
    expect(codec.answer!(fixture('text.response.json'))).toMatchObject({ id: 'as-bcmt5ct4iy', object: 'chat.completion', model: 'ERNIE-3.5-8K', choices: [{ message: { role: 'assistant', content: '你好！有什么可以帮你的吗？' }, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 } });
    expect(codec.answer!(fixture('tools.response.json'))).toMatchObject({ choices: [{ message: { tool_calls: [{ id: 'call_as-weh5yaiqhi', type: 'function', function: { name: 'get_weather', arguments: '{"city":"北京"}' } }] }, finish_reason: 'tool_calls' }] });
    expect(codec.answer!(fixture('embeddings.response.json'))).toMatchObject({ object: 'list', data: [{ object: 'embedding', index: 0 }, { index: 1 }], usage: { prompt_tokens: 12, total_tokens: 12 } });
    expect(codec.answer!(fixture('rerank.response.json'))).toMatchObject({ results: [{ index: 0, relevance_score: 0.7659813761711121 }, { index: 1 }], usage: { prompt_tokens: 15 } });
  });

  it('the stream becomes OpenAI chunks, usage in a last chunk without choices', () => {
    const read = codec.stream!();
    const chunks = sse('text.stream.txt').flatMap(read).map((f) => JSON.parse(f.data));
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? null)).toEqual(['你好！', '有什么可以', '帮你的吗？', null]);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks[2].choices[0].finish_reason).toBe('stop');
    expect(chunks[3]).toMatchObject({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 } });
    const tool = sse('tools.stream.txt').flatMap(codec.stream!()).map((f) => JSON.parse(f.data));
    expect(tool[0].choices[0]).toMatchObject({ delta: { tool_calls: [{ index: 0, function: { name: 'get_weather', arguments: '{"city":"北京"}' } }] }, finish_reason: 'tool_calls' });
  });

  it('an error sent with HTTP 200 throws with the status it means: a dead token 401, limits 429', () => {
    const statusOf = (code: number) => {
      try {
        codec.answer!({ error_code: code, error_msg: 'x' });
      } catch (error) {
        return error instanceof VendorAnswerError ? error.status : -1;
      }
      return 0;
    };
    expect([110, 111, 18, 17, 336003, 336100].map(statusOf)).toEqual([401, 401, 429, 429, 400, 503]);
    expect(() => codec.stream!()({ data: '{"error_code":336501,"error_msg":"Rate limit reached for RPM"}' })).toThrow('Rate limit reached for RPM（错误码 336501）');
  });
});

describe('Baidu adapter: Qianfan v2 (bce-v3 keys)', () => {
  it('OpenAI wire at qianfan.baidubce.com/v2 with the key as bearer, model in lower case, usage asked for in streams', () => {
    const key = 'bce-v3/ALTAK-abc/def';
    const request = sent({ channel: { ...channel(key), credentials: { kind: 'bearer', token: key } }, model: 'ERNIE-4.0-8K', stream: true, body: { model: 'ERNIE-4.0-8K', stream: true, messages: [{ role: 'user', content: 'hi' }] } });
    expect(request.url).toBe('https://qianfan.baidubce.com/v2/chat/completions');
    expect(request.headers).toEqual({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
    expect(request.json).toEqual({ model: 'ernie-4.0-8k', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] });
    expect(baiduAdapter.codec!(channel(key), 'ERNIE-4.0-8K')).toBeUndefined();
    expect(sent({ endpoint: 'embeddings', channel: channel(key, 'https://aip.baidubce.com'), model: 'Embedding-V1', body: { input: 'x' } }).url).toBe('https://qianfan.baidubce.com/v2/embeddings');
    expect(sent({ endpoint: 'rerank', channel: channel(key, 'https://qf.example.com/v2'), model: 'bce-reranker-base', body: { query: 'q', documents: ['d'] } }).url).toBe('https://qf.example.com/v2/rerankers');
  });
});

describe('baidu-oauth credentials', () => {
  let mock: MockBaidu;
  beforeAll(async () => {
    mock = await startMockBaidu({ ttlSeconds: 7200, exchangeDelayMs: 20 });
  });
  afterAll(() => mock.close());
  const target = (key: string): ChannelTarget => ({ type: 15, baseUrl: mock.url, key, other: '', config: {} });

  it('exchanges API Key and Secret Key for an access token good for expires_in', async () => {
    const started = Date.now();
    const { credentials, expiresAt } = await baiduOAuthSource.resolve(target(baiduKey('ok')));
    expect(credentials).toMatchObject({ kind: 'bearer', token: expect.stringMatching(/^24\./) });
    expect(expiresAt).toBeGreaterThanOrEqual(started + 7_200_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 7_200_000);
    expect(mock.requests.at(-1)).toMatchObject({ method: 'POST', path: '/oauth/2.0/token', query: { grant_type: 'client_credentials', client_id: 'ok', client_secret: 'secret-ok' } });
  });

  it('through the resolver, 20 concurrent first requests share one exchange', async () => {
    const resolver = new CredentialResolver({ 'baidu-oauth': baiduOAuthSource });
    const before = mock.tokenExchanges.length;
    const tokens = await Promise.all(Array.from({ length: 20 }, () => resolver.resolve('baidu-oauth', target(baiduKey('ok:shared')))));
    expect(new Set(tokens.map((t) => (t as { token: string }).token)).size).toBe(1);
    expect(mock.tokenExchanges.length - before).toBe(1);
  });

  it('refuses a wrong secret or a malformed key with the reason; a bce-v3 key is its own token, no exchange', async () => {
    await expect(baiduOAuthSource.resolve(target(baiduKey('ok', 'wrong')))).rejects.toThrow(new CredentialError('百度 access_token 获取失败：invalid_client: Client authentication failed'));
    await expect(baiduOAuthSource.resolve(target('only-one-part'))).rejects.toThrow('APIKey|SecretKey');
    const before = mock.requests.length;
    expect(await baiduOAuthSource.resolve(target(baiduV2Key('ok')))).toEqual({ credentials: { kind: 'bearer', token: baiduV2Key('ok') }, expiresAt: Number.POSITIVE_INFINITY });
    expect(mock.requests.length).toBe(before);
  });
});
