import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseDecoder } from '../../transport/frame-decoders.js';
import { LIBRARY_ID, startMockAiProxyLibrary } from '../../../test-support/upstreams/aiproxy-library.js';
import type { MockHandle } from '../../../test-support/upstreams/mock-server.js';
import type { BuildInput, ChannelTarget } from '../types.js';
import { aiProxyLibraryAdapter, documentsText } from './adapter.js';

const text = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const fixture = (name: string) => JSON.parse(text(name));
const channel = (other = LIBRARY_ID, baseUrl = ''): ChannelTarget => ({ type: 21, baseUrl, key: 'library-key', other, config: {} });
const input = (fields: Partial<BuildInput>): BuildInput => ({
  endpoint: 'chat',
  dialect: 'openai-chat',
  channel: channel(),
  model: 'gpt-3.5-turbo',
  stream: false,
  body: fixture('text.request.json'),
  path: '/v1/chat/completions',
  ...fields,
});
const ANSWER = 'Hold the reset button on the back for ten seconds, until the power light blinks.';

describe('AI Proxy knowledge base adapter', () => {
  it('asks the library the last user message, with the Api-Key header and the channel\'s library id', () => {
    const request = aiProxyLibraryAdapter.build(input({}));
    expect(request).toMatchObject({ url: 'https://api.aiproxy.io/api/library/ask', method: 'POST', headers: { 'api-key': 'library-key', 'content-type': 'application/json' } });
    expect(JSON.parse(String(request.body))).toEqual(fixture('text.upstream.json'));
    expect(JSON.parse(String(aiProxyLibraryAdapter.build(input({ stream: true })).body))).toMatchObject({ stream: true });
    expect(() => aiProxyLibraryAdapter.build(input({ channel: channel(' ') }))).toThrow('知识库 ID');
  });

  it('the whole answer and the stream read the same: the answer, then its documents as links; no usage (the gateway counts)', () => {
    const codec = aiProxyLibraryAdapter.codec!(channel(), 'gpt-3.5-turbo')!;
    const whole = codec.answer!(fixture('text.response.json')) as { choices: Array<{ message: { content: string } }>; usage?: unknown };
    const references = documentsText(fixture('text.response.json').documents);
    expect(references).toBe('\n\n参考文档：\n1. [Router handbook, chapter 3: Resetting](https://docs.example.com/router/reset)\n2. [Troubleshooting FAQ](https://docs.example.com/router/faq)');
    expect(whole.choices[0].message.content).toBe(ANSWER + references);
    expect(whole.usage).toBeUndefined();
    const decoder = new SseDecoder();
    const read = codec.stream!();
    const chunks = [...decoder.push(Buffer.from(text('text.stream.txt'))), ...decoder.end()].flatMap(read).map((f) => JSON.parse(f.data));
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe(ANSWER + references);
    expect(chunks.at(-1).choices[0].finish_reason).toBe('stop');
  });

  it('a failure the library answers with status 200, whole or in the stream, is an error of the status its code means', () => {
    const codec = aiProxyLibraryAdapter.codec!(channel(), 'gpt-3.5-turbo')!;
    expect(() => codec.answer!(fixture('errors.json').library_not_found.body)).toThrow(expect.objectContaining({ status: 400, message: expect.stringContaining('Library not found') }));
    expect(() => codec.stream!()({ data: JSON.stringify(fixture('errors.json').stream_failure_event.body) })).toThrow(expect.objectContaining({ status: 500 }));
  });

  describe('the mock answers as recorded', () => {
    let mock: MockHandle;
    beforeAll(async () => {
      mock = await startMockAiProxyLibrary();
    });
    afterAll(() => mock.close());
    const post = (body: unknown, key = 'ok') => fetch(`${mock.url}/api/library/ask`, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    it('the recorded body gets the recorded answer and stream; a wrong key, a missing query or an unknown library is refused', async () => {
      expect(await (await post(fixture('text.upstream.json'))).json()).toEqual(fixture('text.response.json'));
      expect(await (await post({ ...fixture('text.upstream.json'), stream: true })).text()).toBe(text('text.stream.txt'));
      expect((await post(fixture('text.upstream.json'), 'nope')).status).toBe(401);
      expect((await post({ ...fixture('text.upstream.json'), query: '' })).status).toBe(400);
      expect(await (await post({ ...fixture('text.upstream.json'), libraryId: '1' })).json()).toMatchObject({ success: false, errCode: 1004 });
    });
  });
});
