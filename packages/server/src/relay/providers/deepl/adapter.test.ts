import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deeplKey, startMockDeepL } from '../../../test-support/upstreams/deepl.js';
import type { MockHandle } from '../../../test-support/upstreams/mock-server.js';
import type { BuildInput, ChannelTarget } from '../types.js';
import { classifyDeepLError, deeplAdapter, targetLanguageOf } from './adapter.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));
const channel = (key: string, baseUrl = ''): ChannelTarget => ({ type: 38, baseUrl, key, other: '', config: {} });
const input = (fields: Partial<BuildInput>): BuildInput => ({
  endpoint: 'chat',
  dialect: 'openai-chat',
  channel: channel('0f1e2d3c-aaaa-bbbb-cccc-123456789abc'),
  model: 'deepl-zh',
  stream: false,
  body: fixture('text.request.json'),
  path: '/v1/chat/completions',
  ...fields,
});

describe('DeepL adapter', () => {
  it('translates the last user message with DeepL-Auth-Key, asking for the billed characters', () => {
    const request = deeplAdapter.build(input({}));
    expect(request).toMatchObject({ url: 'https://api.deepl.com/v2/translate', method: 'POST', headers: { authorization: 'DeepL-Auth-Key 0f1e2d3c-aaaa-bbbb-cccc-123456789abc', 'content-type': 'application/json' } });
    expect(JSON.parse(String(request.body))).toEqual(fixture('text.upstream.json'));
  });

  it('a Free key (`:fx`) goes to api-free.deepl.com, unless the channel names its own base URL', () => {
    expect(deeplAdapter.build(input({ channel: channel('abc:fx') })).url).toBe('https://api-free.deepl.com/v2/translate');
    expect(deeplAdapter.build(input({ channel: channel('abc:fx', 'https://deepl.example.com') })).url).toBe('https://deepl.example.com/v2/translate');
  });

  it('the model names the target language; English is American, Portuguese Brazilian; anything else is DeepL code', () => {
    expect(['deepl-zh', 'deepl-en', 'deepl-ja', 'deepl-pt', 'deepl-en-gb', 'deepl-zh-hant', 'DeepL-De'].map(targetLanguageOf)).toEqual(['ZH', 'EN-US', 'JA', 'PT-BR', 'EN-GB', 'ZH-HANT', 'DE']);
    expect(() => targetLanguageOf('gpt-4o')).toThrow('deepl-<目标语言>');
    expect(() => deeplAdapter.build(input({ body: { messages: [{ role: 'system', content: 'x' }] } }))).toThrow('待翻译文本');
  });

  it("answers DeepL's translation as a chat completion: billed characters as prompt tokens, the translation's characters as completion", () => {
    const answer = deeplAdapter.codec!(channel('k'), 'deepl-zh')!.answer!(fixture('text.response.json'));
    expect(answer).toMatchObject({ object: 'chat.completion', model: 'deepl-zh', choices: [{ message: { role: 'assistant', content: '网关将每个请求转发到最便宜的健康渠道。' }, finish_reason: 'stop' }], usage: { prompt_tokens: 65, completion_tokens: 19, total_tokens: 84 } });
    // Without billed_characters (an old DeepL), no usage: the gateway counts.
    expect(deeplAdapter.codec!(channel('k'), 'deepl-zh')!.answer!({ translations: [{ text: 'x' }] })).not.toHaveProperty('usage');
    expect(() => deeplAdapter.codec!(channel('k'), 'deepl-zh')!.answer!({})).toThrow('无法识别');
  });

  it('a body-less 403 or 456 still gets a readable reason', () => {
    expect(classifyDeepLError(456, '')).toEqual({ retry: true, disableChannel: true, message: 'DeepL 字符额度已用完' });
    expect(classifyDeepLError(403, '')).toMatchObject({ disableChannel: true, message: expect.stringContaining('密钥') });
  });

  describe('the mock answers as recorded', () => {
    let free: MockHandle;
    let pro: MockHandle;
    beforeAll(async () => {
      [free, pro] = await Promise.all([startMockDeepL({ plan: 'free' }), startMockDeepL({ plan: 'pro' })]);
    });
    afterAll(() => Promise.all([free.close(), pro.close()]));
    const post = (mock: MockHandle, key: string, body: unknown) =>
      fetch(`${mock.url}/v2/translate`, { method: 'POST', headers: { authorization: `DeepL-Auth-Key ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    it('the recorded body gets the recorded translation; each host takes only its plan', async () => {
      expect(await (await post(pro, deeplKey('ok'), fixture('text.upstream.json'))).json()).toEqual(fixture('text.response.json'));
      expect(await (await post(free, deeplKey('ok', 'free'), fixture('text.upstream.json'))).json()).toEqual(fixture('text.response.json'));
      const wrong = await post(pro, deeplKey('ok', 'free'), fixture('text.upstream.json'));
      expect(wrong.status).toBe(403);
      expect(await wrong.json()).toEqual({ message: 'Wrong endpoint. Use https://api-free.deepl.com' });
    });

    it("refuses a bad target language and a missing text, in DeepL's words", async () => {
      expect((await post(pro, 'ok', { text: ['x'], target_lang: 'XX' })).status).toBe(400);
      expect(await (await post(pro, 'ok', { target_lang: 'DE' })).json()).toEqual({ message: "Parameter 'text' not specified." });
      expect((await post(pro, deeplKey('fail-456'), fixture('text.upstream.json'))).status).toBe(456);
    });
  });
});
