import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { collectStream, textOf } from '../../canonical.js';
import { VendorAnswerError } from '../../dialects/shared.js';
import { dialectOf } from '../../dialects/registry.js';
import type { Frame } from '../../dialects/types.js';
import { JsonStreamDecoder } from '../../transport/frame-decoders.js';
import { validateSparkFrame } from '../../../test-support/upstreams/spark.js';
import type { ChannelTarget } from '../types.js';
import { sparkAdapter } from './adapter.js';
import { signSparkUrl } from './sign-url.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const KEY = 'a1b2c3d4|MjlmNzkzNmZkMDQ2OTc0ZDdmNGE2ZTZi|key-123';
const channel = (baseUrl = '', key = KEY): ChannelTarget => ({ type: 18, baseUrl, key, other: '', config: {} });
const build = (model: string, body: Record<string, unknown>, target = channel(), stream = true) =>
  sparkAdapter.build({ endpoint: 'chat', dialect: 'openai-chat', channel: target, model, stream, body: { model, ...body }, path: '/v1/chat/completions' });
const hello = { messages: [{ role: 'user', content: 'hi' }] };

/** Spark frames through the codec and the OpenAI chat reader, as the relay reads them. */
function readFrames(frames: Frame[], model = 'Spark-Max') {
  const unwrap = sparkAdapter.codec!(channel(), model)!.stream!();
  const reader = dialectOf('openai-chat')!.createStreamReader();
  return collectStream(frames.flatMap(unwrap).flatMap((frame) => reader.read(frame)));
}
const decode = (text: string) => new JsonStreamDecoder().push(Buffer.from(text));

describe('Spark WebSocket requests', () => {
  it('signs the URL as iFlytek documents it: the example of general_url_authentication.html gives its published signature', () => {
    const url = new URL(signSparkUrl('wss://spark-api.xf-yun.com/v1.1/chat', { appId: 'a', apiSecret: 'MjlmNzkzNmZkMDQ2OTc0ZDdmNGE2ZTZi', apiKey: 'key-123' }, Date.parse('Fri, 05 May 2023 10:43:39 GMT')));
    expect(url.searchParams.get('date')).toBe('Fri, 05 May 2023 10:43:39 GMT');
    expect(url.searchParams.get('host')).toBe('spark-api.xf-yun.com');
    // The document prints the HMAC as Python bytes b'\xcf\x98\x07v\xed...\r\xa4'; this is their base64.
    expect(Buffer.from(url.searchParams.get('authorization')!, 'base64').toString()).toBe(
      'api_key="key-123", algorithm="hmac-sha256", headers="host date request-line", signature="z5gHdu3pxVV4ADMyk467wOWDQ9q6BQzR3nfMTjc/DaQ="',
    );
    expect(url.search).toMatch(/^\?authorization=[^&]+&date=Fri%2C\+05\+May\+2023\+10%3A43%3A39\+GMT&host=spark-api\.xf-yun\.com$/);
  });

  it.each([
    ['Spark-Lite', '/v1.1/chat', 'lite'],
    ['Spark-Pro', '/v3.1/chat', 'generalv3'],
    ['Spark-Pro-128K', '/chat/pro-128k', 'pro-128k'],
    ['Spark-Max', '/v3.5/chat', 'generalv3.5'],
    ['Spark-Max-32K', '/chat/max-32k', 'max-32k'],
    ['Spark-4.0-Ultra', '/v4.0/chat', '4.0Ultra'],
    ['SparkDesk-v3.5', '/v3.5/chat', 'generalv3.5'],
    ['SparkDesk-v4.0', '/v4.0/chat', '4.0Ultra'],
    ['generalv3', '/v3.1/chat', 'generalv3'],
  ])('%s goes to %s with domain %s', (model, path, domain) => {
    const request = build(model, hello);
    const url = new URL(request.url);
    expect(`${url.protocol}//${url.host}${url.pathname}`).toBe(`wss://spark-api.xf-yun.com${path}`);
    const frame = JSON.parse(String(request.body));
    expect(frame).toEqual({ header: { app_id: 'a1b2c3d4' }, parameter: { chat: { domain } }, payload: { message: { text: [{ role: 'user', content: 'hi' }] } } });
    expect(validateSparkFrame(frame, { appId: 'a1b2c3d4', domain })).toBeNull();
  });

  it('keeps the host of a ws:// base URL and signs for it; an unknown model is refused before any call', () => {
    const url = new URL(build('Spark-Lite', hello, channel('ws://127.0.0.1:9000/ignored')).url);
    expect(url.host).toBe('127.0.0.1:9000');
    expect(url.pathname).toBe('/v1.1/chat');
    expect(url.searchParams.get('host')).toBe('127.0.0.1:9000');
    expect(() => build('gpt-4o', hello)).toThrow(/讯飞星火没有模型 gpt-4o/);
    expect(() => build('Spark-Max', hello, channel('', 'only-one-part'))).toThrow('APPID|APISecret|APIKey');
  });

  it('writes the conversation as Spark takes it: one system first, alternating turns, tools as functions, limits in range', () => {
    const body = {
      temperature: 1.6,
      max_tokens: 50_000,
      user: 'u'.repeat(40),
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'system', content: 'Answer in Chinese.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Hefei?' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"合肥"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '晴，25 度' },
        { role: 'system', content: 'Mention the temperature.' },
      ],
    };
    const frame = JSON.parse(String(build('Spark-Max', body).body));
    expect(frame.header).toEqual({ app_id: 'a1b2c3d4', uid: 'u'.repeat(32) });
    expect(frame.parameter.chat).toEqual({ domain: 'generalv3.5', temperature: 1, max_tokens: 8192 });
    expect(frame.payload.message.text).toEqual([
      { role: 'system', content: 'Be brief.\nAnswer in Chinese.' },
      { role: 'user', content: 'Weather in Hefei?' },
      { role: 'assistant', content: '调用函数 get_weather，参数：{"city":"合肥"}' },
      { role: 'user', content: '函数 get_weather 的返回结果：晴，25 度\nMention the temperature.' },
    ]);
    expect(frame.payload.functions).toEqual({ text: [{ name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } }] });
    expect(validateSparkFrame(frame, { domain: 'generalv3.5' })).toBeNull();
  });

  it('the function-call request frame of the documentation passes the mock\'s checks', () => {
    expect(validateSparkFrame(JSON.parse(fixture('ws-function-call.frame.json')), { appId: '12345', domain: 'generalv3.5' })).toBeNull();
  });
});

describe('Spark answers read as OpenAI chunks', () => {
  it('text frames stream as content, the last frame\'s usage is the usage', () => {
    const answer = readFrames(decode(fixture('text.stream.json')));
    expect(textOf(answer.content)).toBe('你好！我是科大讯飞研发的认知智能大模型，我的名字叫讯飞星火认知大模型。');
    expect(answer.finishReason).toBe('stop');
    expect(answer.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 27 });
  });

  it('a function_call becomes a tool call, finished as tool_calls', () => {
    const answer = readFrames(decode(fixture('function-call.stream.json')));
    expect(answer.content).toEqual([expect.objectContaining({ type: 'tool_call', name: '天气查询', arguments: '{"location":"合肥","format":"摄氏度"}' })]);
    expect(answer.finishReason).toBe('tool_calls');
    expect(answer.usage).toMatchObject({ prompt_tokens: 136, completion_tokens: 24 });
  });

  it('an error frame is the vendor\'s error with the status its code means', () => {
    const errors = JSON.parse(fixture('errors.json')) as Record<string, { body: unknown }>;
    const thrown = (name: string) => {
      try {
        readFrames([{ data: JSON.stringify(errors[name].body) }]);
      } catch (error) {
        return error as VendorAnswerError;
      }
      throw new Error('no error');
    };
    expect(thrown('frame-licence')).toMatchObject({ status: 403, message: expect.stringContaining('讯飞星火返回错误 11200') });
    expect(thrown('frame-input-audit')).toMatchObject({ status: 400 });
    expect(thrown('frame-qps')).toMatchObject({ status: 429 });
    expect(thrown('frame-busy')).toMatchObject({ status: 503 });
    // The relayed failure reads back as the same verdict.
    const licence = thrown('frame-licence');
    expect(sparkAdapter.classifyError(licence.status, JSON.stringify({ error: { message: licence.message } }))).toMatchObject({ retry: true, disableChannel: true });
  });
});

describe('Spark HTTP OpenAI-compatible API (an https:// channel)', () => {
  it('posts OpenAI\'s body with the domain as the model and Bearer APIKey:APISecret', () => {
    const request = build('Spark-4.0-Ultra', { ...hello, stream: true, stream_options: { include_usage: true } }, channel('https://spark-api-open.xf-yun.com'));
    expect(request.url).toBe('https://spark-api-open.xf-yun.com/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer key-123:MjlmNzkzNmZkMDQ2OTc0ZDdmNGE2ZTZi');
    expect(JSON.parse(String(request.body))).toEqual({ model: '4.0Ultra', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const password = build('Spark-Lite', hello, channel('https://spark-api-open.xf-yun.com/v1', 'my-api-password'));
    expect(password.url).toBe('https://spark-api-open.xf-yun.com/v1/chat/completions');
    expect(password.headers.authorization).toBe('Bearer my-api-password');
  });

  it('its answers pass, a non-zero code is an error', () => {
    const codec = sparkAdapter.codec!(channel('https://x'), 'Spark-Max')!;
    const ok = JSON.parse(fixture('text.response.json'));
    expect(codec.answer!(ok)).toBe(ok);
    expect(() => codec.answer!({ code: 10013, message: '输入内容审核不通过', sid: 's' })).toThrow(VendorAnswerError);
    const unwrap = codec.stream!();
    expect(unwrap({ data: '[DONE]' })).toEqual([{ data: '[DONE]' }]);
    const chunk = { data: JSON.stringify({ code: 0, message: 'Success', sid: 's', id: 's', created: 1, choices: [{ delta: { role: 'assistant', content: '你好' }, index: 0 }] }) };
    expect(unwrap(chunk)).toEqual([chunk]);
  });
});
