import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { Usage } from '../../billing/usage.js';
import { seedChannel } from '../../test-support/seed.js';
import { deeplKey, startMockDeepL } from '../../test-support/upstreams/deepl.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * DeepL channels (type 38) end to end: the official SDKs -> the gateway -> a local DeepL API playing the Pro host
 * (a Free `:fx` key is refused there, as DeepL does). The last user message is translated into the model's language;
 * the charge is DeepL's billed characters at the default price (12.5 quota units a character = US$25 per 1M).
 */
const SENTENCE = 'The gateway relays every request to the cheapest healthy channel.';
const TRANSLATION = '网关将每个请求转发到最便宜的健康渠道。';

const gw = vendorGateway({ mock: () => startMockDeepL({ plan: 'pro' }) });
const { seedKey, openai, anthropic, settled } = gw;

const deeplChannel = (key: string, fields: { priority?: number; models?: string } = {}) =>
  seedChannel(gw.t.ctx.storage, { name: `deepl-${key}`, type: 38, key, baseUrl: gw.mock.url, models: fields.models ?? 'deepl-zh,deepl-ja,deepl-en', priority: fields.priority });

/** Settled once: DeepL's billed characters at 12.5 units each, the translation's characters free, no anomaly. */
async function expectChargedOnce(tokenId: number, model: string, usage: Usage, quota: number) {
  const log = await gw.expectChargedOnce(tokenId, model, usage);
  expect(log.quota).toBe(quota);
  expect(log.content).not.toContain('用量异常');
  return log;
}

describe('a translation answered as a chat completion', () => {
  it('an OpenAI client: the last user message goes to /v2/translate in the language the model names, billed by its characters', async () => {
    await deeplChannel(deeplKey('ok'));
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({
      model: 'deepl-zh',
      messages: [
        { role: 'user', content: 'Good morning.' },
        { role: 'assistant', content: '早上好。' },
        { role: 'user', content: SENTENCE },
      ],
    });
    expect(answer.choices[0].message.content).toBe(TRANSLATION);
    expect(answer.usage).toMatchObject({ prompt_tokens: 65, completion_tokens: [...TRANSLATION].length });
    const [sent] = gw.mock.requests;
    expect(sent.path).toBe('/v2/translate');
    expect(sent.headers.authorization).toBe('DeepL-Auth-Key ok');
    expect(sent.body).toEqual({ text: [SENTENCE], target_lang: 'ZH', show_billed_characters: true });
    // 65 characters x 12.5 = 812.5 -> 813 units (US$0.001625: US$25 per 1M characters).
    await expectChargedOnce(token.id, 'deepl-zh', { prompt_tokens: 65, completion_tokens: [...TRANSLATION].length }, 813);
  });

  it('a long conversation before the sentence: DeepL is sent the sentence alone, and its billed characters are weighed against that', async () => {
    await deeplChannel(deeplKey('ok'));
    const token = await seedKey();
    // The usage check weighs a reported usage against the prompt the upstream was sent: here the sentence, not the
    // 2,700 characters of conversation before it, which DeepL never saw and does not bill.
    const history = 'An earlier turn about something else entirely. '.repeat(60);
    const answer = await openai(token.key).chat.completions.create({
      model: 'deepl-zh',
      messages: [
        { role: 'user', content: history },
        { role: 'assistant', content: '好的。' },
        { role: 'user', content: SENTENCE },
      ],
    });
    expect(answer.choices[0].message.content).toBe(TRANSLATION);
    expect(gw.mock.requests[0].body).toEqual({ text: [SENTENCE], target_lang: 'ZH', show_billed_characters: true });
    await expectChargedOnce(token.id, 'deepl-zh', { prompt_tokens: 65, completion_tokens: [...TRANSLATION].length }, 813);
  });

  it('an OpenAI stream client gets the translation as one streamed answer, with its usage', async () => {
    await deeplChannel(deeplKey('ok'));
    const token = await seedKey();
    const stream = await openai(token.key).chat.completions.create({ model: 'deepl-ja', messages: [{ role: 'user', content: 'Hello, World!' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage ??= chunk.usage;
    }
    expect(text).toBe('こんにちは、世界！');
    expect(usage).toMatchObject({ prompt_tokens: 13, completion_tokens: 9 });
    expect(gw.mock.requests[0].body).toMatchObject({ target_lang: 'JA' });
    await expectChargedOnce(token.id, 'deepl-ja', { prompt_tokens: 13, completion_tokens: 9 }, 163);
  });

  it('an Anthropic client: deepl-en translates into American English', async () => {
    await deeplChannel(deeplKey('ok'));
    const token = await seedKey();
    const message = await anthropic(token.key).messages.create({ model: 'deepl-en', max_tokens: 100, messages: [{ role: 'user', content: '你好' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hello' });
    expect(message.usage).toMatchObject({ input_tokens: 2, output_tokens: 5 });
    expect(gw.mock.requests[0].body).toEqual({ text: ['你好'], target_lang: 'EN-US', show_billed_characters: true });
    await expectChargedOnce(token.id, 'deepl-en', { prompt_tokens: 2, completion_tokens: 5 }, 25);
  });
});

describe('faults, each settled exactly once', () => {
  it('a Free key on the Pro host (403 wrong endpoint) disables its channel; another answers', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const free = await deeplChannel(deeplKey('ok', 'free'), { priority: 10 });
    await deeplChannel(deeplKey('ok:pro'), { priority: 0 });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: 'deepl-zh', messages: [{ role: 'user', content: SENTENCE }] });
    expect(answer.choices[0].message.content).toBe(TRANSLATION);
    expect(gw.mock.requests.map((r) => r.key)).toEqual(['ok:fx', 'ok:pro']);
    expect((await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', free).executeTakeFirstOrThrow()).status).toBe(3);
    await expectChargedOnce(token.id, 'deepl-zh', { prompt_tokens: 65, completion_tokens: [...TRANSLATION].length }, 813);
  });

  it('a used-up character quota (456) disables its channel; too many requests (429) is retried and the channel kept', async () => {
    await gw.t.ctx.options.set('RetryTimes', '2');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const spent = await deeplChannel(deeplKey('fail-456'), { priority: 20 });
    const busy = await deeplChannel(deeplKey('fail-429'), { priority: 10 });
    await deeplChannel(deeplKey('ok'), { priority: 0 });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: 'deepl-zh', messages: [{ role: 'user', content: SENTENCE }] });
    expect(answer.choices[0].message.content).toBe(TRANSLATION);
    expect(gw.mock.requests.map((r) => r.key)).toEqual(['fail-456', 'fail-429', 'ok']);
    const status = async (id: number) => (await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    expect(await status(spent)).toBe(3);
    expect(await status(busy)).toBe(1);
    await expectChargedOnce(token.id, 'deepl-zh', { prompt_tokens: 65, completion_tokens: [...TRANSLATION].length }, 813);
  });

  it('a model that names no language is refused with the reason, nothing sent and nothing charged', async () => {
    await deeplChannel(deeplKey('ok'), { models: 'deepl' });
    const token = await seedKey();
    const error = await openai(token.key).chat.completions.create({ model: 'deepl', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('deepl-<目标语言>');
    expect(gw.mock.requests).toHaveLength(0);
    const after = await settled(token.id, 0);
    expect(after.token.remain_quota).toBe(10_000_000);
    expect(after.open).toEqual([]);
  });
});

describe('the channel test button', () => {
  it('tests a DeepL channel; a key whose quota is used up fails the test and is disabled', async () => {
    const root = await gw.t.login('root', '123456');
    const create = (name: string, key: string) => gw.t.call({ method: 'POST', url: '/api/channel/', cookie: root, payload: { name, type: 38, key, base_url: gw.mock.url, models: 'deepl-zh', group: 'default' } });
    expect((await create('deepl-good', deeplKey('ok'))).body.success).toBe(true);
    expect((await create('deepl-spent', deeplKey('fail-456'))).body.success).toBe(true);
    const list = (await gw.t.call({ method: 'GET', url: '/api/channel/?p=0', cookie: root })).body.data as Array<{ id: number; name: string }>;
    const idOf = (name: string) => list.find((c) => c.name === name)!.id;

    const good = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('deepl-good')}`, cookie: root });
    expect(good.body).toMatchObject({ success: true, model: 'deepl-zh', message: '嗨' });
    expect(gw.mock.requests.at(-1)!.body).toEqual({ text: ['hi'], target_lang: 'ZH', show_billed_characters: true });

    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const spent = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('deepl-spent')}`, cookie: root });
    expect(spent.body).toMatchObject({ success: false, message: expect.stringContaining('Quota exceeded') });
    expect((await gw.t.call({ method: 'GET', url: `/api/channel/${idOf('deepl-spent')}`, cookie: root })).body.data.status).toBe(3);
  });
});
