import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import type { Usage } from '../../billing/usage.js';
import { seedChannel, seedToken } from '../../test-support/seed.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';
import { deeplKey, startMockDeepL } from '../../test-support/upstreams/deepl.js';
import type { MockHandle } from '../../test-support/upstreams/mock-server.js';
import { settledToken } from '../../test-support/settled-token.js';

/**
 * DeepL channels (type 38) end to end: the official SDKs -> the gateway -> a local DeepL API playing the Pro host
 * (a Free `:fx` key is refused there, as DeepL does). The last user message is translated into the model's language;
 * the charge is DeepL's billed characters at the default price (12.5 quota units a character = US$25 per 1M).
 */
const SENTENCE = 'The gateway relays every request to the cheapest healthy channel.';
const TRANSLATION = '网关将每个请求转发到最便宜的健康渠道。';

let t: TestApp;
let mock: MockHandle;
let gateway: string;
let userId: number;

const deeplChannel = (key: string, fields: { priority?: number; models?: string } = {}) =>
  seedChannel(t.ctx.storage, { name: `deepl-${key}`, type: 38, key, baseUrl: mock.url, models: fields.models ?? 'deepl-zh,deepl-ja,deepl-en', priority: fields.priority });

const openai = (key: string) => new OpenAI({ apiKey: `sk-${key}`, baseURL: `${gateway}/v1`, maxRetries: 0 });
const anthropic = (key: string) => new Anthropic({ apiKey: `sk-${key}`, baseURL: gateway, maxRetries: 0 });

const settled = (tokenId: number, logs: number) => settledToken(t.ctx.storage, tokenId, logs);

/** Settled once: DeepL's billed characters at 12.5 units each, the translation's characters free, no anomaly. */
async function expectChargedOnce(tokenId: number, model: string, usage: Usage, quota: number) {
  const after = await settled(tokenId, 1);
  expect(after.logs).toHaveLength(1);
  expect({ prompt: after.logs[0].prompt_tokens, completion: after.logs[0].completion_tokens }).toEqual({ prompt: usage.prompt_tokens, completion: usage.completion_tokens });
  expect(after.logs[0].quota).toBe(costOf(usage, pricesFor(t.ctx.options, model, 'default')));
  expect(after.logs[0].quota).toBe(quota);
  expect(after.logs[0].content).not.toContain('用量异常');
  expect(after.token.remain_quota).toBe(10_000_000 - quota);
  expect(after.open).toEqual([]);
  return after.logs[0];
}

beforeAll(async () => {
  mock = await startMockDeepL({ plan: 'pro' });
  t = await createTestApp({ RELAY_TIMEOUT_SECONDS: '5' });
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  userId = (await t.ctx.repositories.users.findByUsername('root'))!.id;
});
afterAll(async () => {
  t.app.server.closeAllConnections();
  await t.close();
  await mock.close();
});
beforeEach(async () => {
  await t.ctx.storage.db.deleteFrom('abilities').execute();
  await t.ctx.storage.db.deleteFrom('channels').execute();
  await t.ctx.options.set('RetryTimes', '0');
  await t.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
  mock.requests.length = 0;
});

describe('a translation answered as a chat completion', () => {
  it('an OpenAI client: the last user message goes to /v2/translate in the language the model names, billed by its characters', async () => {
    await deeplChannel(deeplKey('ok'));
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 10_000_000 });
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
    const [sent] = mock.requests;
    expect(sent.path).toBe('/v2/translate');
    expect(sent.headers.authorization).toBe('DeepL-Auth-Key ok');
    expect(sent.body).toEqual({ text: [SENTENCE], target_lang: 'ZH', show_billed_characters: true });
    // 65 characters x 12.5 = 812.5 -> 813 units (US$0.001625: US$25 per 1M characters).
    await expectChargedOnce(token.id, 'deepl-zh', { prompt_tokens: 65, completion_tokens: [...TRANSLATION].length }, 813);
  });

  it('an OpenAI stream client gets the translation as one streamed answer, with its usage', async () => {
    await deeplChannel(deeplKey('ok'));
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 10_000_000 });
    const stream = await openai(token.key).chat.completions.create({ model: 'deepl-ja', messages: [{ role: 'user', content: 'Hello, World!' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      usage ??= chunk.usage;
    }
    expect(text).toBe('こんにちは、世界！');
    expect(usage).toMatchObject({ prompt_tokens: 13, completion_tokens: 9 });
    expect(mock.requests[0].body).toMatchObject({ target_lang: 'JA' });
    await expectChargedOnce(token.id, 'deepl-ja', { prompt_tokens: 13, completion_tokens: 9 }, 163);
  });

  it('an Anthropic client: deepl-en translates into American English', async () => {
    await deeplChannel(deeplKey('ok'));
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 10_000_000 });
    const message = await anthropic(token.key).messages.create({ model: 'deepl-en', max_tokens: 100, messages: [{ role: 'user', content: '你好' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hello' });
    expect(message.usage).toMatchObject({ input_tokens: 2, output_tokens: 5 });
    expect(mock.requests[0].body).toEqual({ text: ['你好'], target_lang: 'EN-US', show_billed_characters: true });
    await expectChargedOnce(token.id, 'deepl-en', { prompt_tokens: 2, completion_tokens: 5 }, 25);
  });
});

describe('faults, each settled exactly once', () => {
  it('a Free key on the Pro host (403 wrong endpoint) disables its channel; another answers', async () => {
    await t.ctx.options.set('RetryTimes', '1');
    await t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const free = await deeplChannel(deeplKey('ok', 'free'), { priority: 10 });
    await deeplChannel(deeplKey('ok:pro'), { priority: 0 });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 10_000_000 });
    const answer = await openai(token.key).chat.completions.create({ model: 'deepl-zh', messages: [{ role: 'user', content: SENTENCE }] });
    expect(answer.choices[0].message.content).toBe(TRANSLATION);
    expect(mock.requests.map((r) => r.key)).toEqual(['ok:fx', 'ok:pro']);
    expect((await t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', free).executeTakeFirstOrThrow()).status).toBe(3);
    await expectChargedOnce(token.id, 'deepl-zh', { prompt_tokens: 65, completion_tokens: [...TRANSLATION].length }, 813);
  });

  it('a used-up character quota (456) disables its channel; too many requests (429) is retried and the channel kept', async () => {
    await t.ctx.options.set('RetryTimes', '2');
    await t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const spent = await deeplChannel(deeplKey('fail-456'), { priority: 20 });
    const busy = await deeplChannel(deeplKey('fail-429'), { priority: 10 });
    await deeplChannel(deeplKey('ok'), { priority: 0 });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 10_000_000 });
    const answer = await openai(token.key).chat.completions.create({ model: 'deepl-zh', messages: [{ role: 'user', content: SENTENCE }] });
    expect(answer.choices[0].message.content).toBe(TRANSLATION);
    expect(mock.requests.map((r) => r.key)).toEqual(['fail-456', 'fail-429', 'ok']);
    const status = async (id: number) => (await t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    expect(await status(spent)).toBe(3);
    expect(await status(busy)).toBe(1);
    await expectChargedOnce(token.id, 'deepl-zh', { prompt_tokens: 65, completion_tokens: [...TRANSLATION].length }, 813);
  });

  it('a model that names no language is refused with the reason, nothing sent and nothing charged', async () => {
    await deeplChannel(deeplKey('ok'), { models: 'deepl' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 10_000_000 });
    const error = await openai(token.key).chat.completions.create({ model: 'deepl', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('deepl-<目标语言>');
    expect(mock.requests).toHaveLength(0);
    const after = await settled(token.id, 0);
    expect(after.token.remain_quota).toBe(10_000_000);
    expect(after.open).toEqual([]);
  });
});

describe('the channel test button', () => {
  it('tests a DeepL channel; a key whose quota is used up fails the test and is disabled', async () => {
    const root = await t.login('root', '123456');
    const create = (name: string, key: string) => t.call({ method: 'POST', url: '/api/channel/', cookie: root, payload: { name, type: 38, key, base_url: mock.url, models: 'deepl-zh', group: 'default' } });
    expect((await create('deepl-good', deeplKey('ok'))).body.success).toBe(true);
    expect((await create('deepl-spent', deeplKey('fail-456'))).body.success).toBe(true);
    const list = (await t.call({ method: 'GET', url: '/api/channel/?p=0', cookie: root })).body.data as Array<{ id: number; name: string }>;
    const idOf = (name: string) => list.find((c) => c.name === name)!.id;

    const good = await t.call({ method: 'GET', url: `/api/channel/test/${idOf('deepl-good')}`, cookie: root });
    expect(good.body).toMatchObject({ success: true, model: 'deepl-zh', message: '嗨' });
    expect(mock.requests.at(-1)!.body).toEqual({ text: ['hi'], target_lang: 'ZH', show_billed_characters: true });

    await t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const spent = await t.call({ method: 'GET', url: `/api/channel/test/${idOf('deepl-spent')}`, cookie: root });
    expect(spent.body).toMatchObject({ success: false, message: expect.stringContaining('Quota exceeded') });
    expect((await t.call({ method: 'GET', url: `/api/channel/${idOf('deepl-spent')}`, cookie: root })).body.data.status).toBe(3);
  });
});
