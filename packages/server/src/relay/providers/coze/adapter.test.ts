import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VendorAnswerError } from '../../dialects/shared.js';
import { SseDecoder } from '../../transport/frame-decoders.js';
import { cozeToken, startMockCoze } from '../../../test-support/upstreams/coze.js';
import type { MockHandle } from '../../../test-support/upstreams/mock-server.js';
import type { BuildInput, ChannelTarget } from '../types.js';
import { classifyCozeError, cozeAdapter } from './adapter.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const channel = (fields: Partial<ChannelTarget> = {}): ChannelTarget => ({ type: 34, baseUrl: '', key: 'pat_abc', other: '', config: {}, ...fields });
const input = (fields: Partial<BuildInput>): BuildInput => ({
  endpoint: 'chat',
  dialect: 'openai-chat',
  channel: channel(),
  model: 'bot-7379462189365198898',
  stream: false,
  body: JSON.parse(fixture('text.request.json')),
  path: '/v1/chat/completions',
  ...fields,
});
/** The recorded stream through the codec: the OpenAI chunks' text, usage and the frames' data. */
function readStream(text: string) {
  const decoder = new SseDecoder();
  const read = cozeAdapter.codec!(channel(), 'bot-1')!.stream!();
  const frames = [...decoder.push(Buffer.from(text)), ...decoder.end()].flatMap(read);
  const chunks = frames.filter((f) => f.data !== '[DONE]').map((f) => JSON.parse(f.data));
  return { frames, text: chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), usage: chunks.find((c) => c.usage)?.usage, finish: chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason };
}

describe('Coze adapter', () => {
  it('writes the v3 chat body the documentation shows: bot id without `bot-`, a stream, nothing saved, no system prompt', () => {
    const request = cozeAdapter.build(input({}));
    expect(request).toMatchObject({ url: 'https://api.coze.com/v3/chat', method: 'POST', headers: { authorization: 'Bearer pat_abc', 'content-type': 'application/json' } });
    expect(JSON.parse(String(request.body))).toEqual(JSON.parse(fixture('text.upstream.json')));
  });

  it("uses the channel's base URL (Coze China) and user id; a mapped name that is the bare id works too", () => {
    const request = cozeAdapter.build(input({ channel: channel({ baseUrl: 'https://api.coze.cn', config: { user_id: ' u-9 ' } }), model: '7379462189365198898' }));
    expect(request.url).toBe('https://api.coze.cn/v3/chat');
    expect(JSON.parse(String(request.body))).toMatchObject({ bot_id: '7379462189365198898', user_id: 'u-9' });
  });

  it('refuses what Coze cannot take: a conversation not ending with the user, a base64 image, another endpoint', () => {
    expect(() => cozeAdapter.build(input({ body: { messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }] } }))).toThrow('用户消息结尾');
    expect(() => cozeAdapter.build(input({ body: { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } }] }] } }))).toThrow('http(s)');
    expect(() => cozeAdapter.build(input({ endpoint: 'embeddings' }))).toThrow('仅支持对话接口');
    expect(cozeAdapter.supports('embeddings')).toBe(false);
  });

  it("reads the recorded stream: the answer's deltas only (not its completed repeat, the verbose or follow-up messages), the usage, [DONE]", () => {
    const read = readStream(fixture('text.stream.txt'));
    expect(read.text).toBe('1 October 2024 is a Tuesday.');
    expect(read.finish).toBe('stop');
    expect(read.usage).toEqual({ prompt_tokens: 412, completion_tokens: 11, total_tokens: 423 });
    expect(read.frames.at(-1)).toEqual({ data: '[DONE]' });
  });

  it('an answer that came only as a completed message still counts', () => {
    const completed = 'event:conversation.message.completed\ndata:{"id":"1","role":"assistant","type":"answer","content":"Whole.","content_type":"text"}\n\n';
    expect(readStream(completed).text).toBe('Whole.');
  });

  it("Coze's failures: a failed chat, an error event and a JSON answer to a stream request each mean the status of their code", () => {
    const errors = JSON.parse(fixture('errors.json'));
    const failed = `event:conversation.chat.failed\ndata:${JSON.stringify(errors.chat_failed_event.body)}\n\n`;
    expect(() => readStream(failed)).toThrow(VendorAnswerError);
    expect(() => readStream(failed)).toThrow('The model service is busy');
    const event = `event:error\ndata:${JSON.stringify(errors.error_event.body)}\n\n`;
    expect(() => readStream(event)).toThrow(expect.objectContaining({ status: 429 }));
    const answer = cozeAdapter.codec!(channel(), 'bot-1')!.answer!;
    expect(() => answer(errors.no_permission.body)).toThrow(expect.objectContaining({ status: 401 }));
    expect(() => answer({ code: 0, msg: '', data: { status: 'in_progress' } })).toThrow(expect.objectContaining({ status: 502 }));
    // As the relay hands a VendorAnswerError on: `{error: {message}}` with its status.
    expect(classifyCozeError(401, '{"error":{"message":"Coze 错误 4101：no"}}')).toEqual({ retry: true, disableChannel: true, message: 'Coze 错误 4101：no' });
    expect(classifyCozeError(502, '')).toMatchObject({ retry: true, disableChannel: false, message: 'upstream returned HTTP 502' });
  });

  describe('the mock answers as recorded', () => {
    let mock: MockHandle;
    beforeAll(async () => {
      mock = await startMockCoze();
    });
    afterAll(() => mock.close());
    const post = (body: unknown, token = cozeToken('ok')) =>
      fetch(`${mock.url}/v3/chat`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    it('the recorded body gets the recorded stream, byte for byte; a non-stream chat only starts', async () => {
      const res = await post(JSON.parse(fixture('text.upstream.json')));
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      expect(await res.text()).toBe(fixture('text.stream.txt'));
      const started = await (await post({ ...JSON.parse(fixture('text.upstream.json')), stream: false, auto_save_history: true })).json();
      expect(started).toMatchObject({ code: 0, data: { status: 'in_progress' } });
    });

    it('refuses a wrong token, an unsaved non-stream chat, a conversation ending with the bot, an unknown bot', async () => {
      const body = JSON.parse(fixture('text.upstream.json'));
      expect(await (await post(body, 'pat_nope')).json()).toMatchObject({ code: 4100 });
      expect((await post(body, 'pat_nope')).status).toBe(401);
      expect(await (await post({ ...body, stream: false })).json()).toMatchObject({ code: 4000, msg: expect.stringContaining('auto_save_history') });
      expect(await (await post({ ...body, additional_messages: [...body.additional_messages, { role: 'assistant', content: 'x', content_type: 'text' }] })).json()).toMatchObject({ code: 4000 });
      expect(await (await post({ ...body, bot_id: 'coze-bot' })).json()).toMatchObject({ code: 4200 });
    });
  });
});
