import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import { seedChannel } from '../../test-support/seed.js';
import { LIBRARY_ID, startMockAiProxyLibrary } from '../../test-support/upstreams/aiproxy-library.js';
import type { MockMode } from '../../test-support/upstreams/mock-server.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * AI Proxy knowledge base channels (type 21) end to end: the official SDKs -> the gateway -> a local
 * `/api/library/ask` that checks the Api-Key header and the library id (the channel's 知识库 ID). The library reports
 * no usage: the gateway counts the prompt and the delivered answer (its references included) and bills that.
 */
const MODEL = 'gpt-3.5-turbo';
const ANSWER = 'Hold the reset button on the back for ten seconds, until the power light blinks.';
const REFERENCES = '\n\n参考文档：\n1. [Router handbook, chapter 3: Resetting](https://docs.example.com/router/reset)\n2. [Troubleshooting FAQ](https://docs.example.com/router/faq)';

const gw = vendorGateway({ mock: startMockAiProxyLibrary });
const { seedKey, openai, anthropic, settled, expectSettledOnce } = gw;

const libraryChannel = (mode: MockMode | `${MockMode}:${string}`, fields: { priority?: number; library?: string } = {}) =>
  seedChannel(gw.t.ctx.storage, { name: `library-${mode}`, type: 21, key: mode, baseUrl: gw.mock.url, models: MODEL, priority: fields.priority, other: fields.library ?? LIBRARY_ID });

/** Settled once at the gateway's own count: the delivered answer's tokens exactly, the prompt's counted too. */
async function expectCountedOnce(tokenId: number, delivered: string, question = 'How do I reset the router?') {
  const after = await settled(tokenId, 1);
  expect(after.logs).toHaveLength(1);
  const log = after.logs[0];
  const [completion, prompt] = await gw.t.ctx.relay.counter.count([delivered, question]);
  expect(log.completion_tokens).toBe(completion);
  // The library was asked the last user message alone: the prompt is counted from that, not the whole conversation.
  expect(log.prompt_tokens).toBe(prompt);
  expect(log.quota).toBe(costOf({ prompt_tokens: log.prompt_tokens, completion_tokens: log.completion_tokens }, pricesFor(gw.t.ctx.options, MODEL, 'default')));
  expect(log.content).not.toContain('用量异常');
  expect(after.token.remain_quota).toBe(10_000_000 - log.quota);
  expect(after.open).toEqual([]);
  return log;
}

describe('the knowledge base answers as a chat model', () => {
  it('an OpenAI client: the last user message asks the library; the answer carries its documents as links', async () => {
    await libraryChannel('ok');
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello! Ask me about the router.' },
        { role: 'user', content: 'How do I reset the router?' },
      ],
    });
    expect(answer.choices[0].message.content).toBe(ANSWER + REFERENCES);
    const [sent] = gw.mock.requests;
    expect(sent.path).toBe('/api/library/ask');
    expect(sent.headers['api-key']).toBe('ok');
    expect(sent.body).toEqual({ model: MODEL, query: 'How do I reset the router?', libraryId: LIBRARY_ID, stream: false });
    await expectCountedOnce(token.id, ANSWER + REFERENCES);
  });

  it('an OpenAI stream: the library streams the answer, the references follow it, then the gateway-counted usage', async () => {
    await libraryChannel('ok');
    const token = await seedKey();
    const stream = await openai(token.key).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'How do I reset the router?' }], stream: true });
    let text = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish ??= chunk.choices[0]?.finish_reason;
    }
    expect(text).toBe(ANSWER + REFERENCES);
    expect(finish).toBe('stop');
    expect(gw.mock.requests[0].body).toMatchObject({ stream: true });
    await expectCountedOnce(token.id, ANSWER + REFERENCES);
  });

  it('an Anthropic client gets the same answer', async () => {
    await libraryChannel('ok');
    const token = await seedKey();
    const message = await anthropic(token.key).messages.create({ model: MODEL, max_tokens: 512, messages: [{ role: 'user', content: 'How do I reset the router?' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: ANSWER + REFERENCES });
    await expectCountedOnce(token.id, ANSWER + REFERENCES);
  });

  it('a channel without its 知识库 ID is refused with the reason before anything is sent', async () => {
    await libraryChannel('ok', { library: '' });
    const token = await seedKey();
    const error = await openai(token.key).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('知识库 ID');
    expect(gw.mock.requests).toHaveLength(0);
  });
});

describe('faults, each settled exactly once', () => {
  it('an invalid key (401) disables its channel and another answers', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const dead = await libraryChannel('fail-401', { priority: 10 });
    await libraryChannel('ok', { priority: 0 });
    const token = await seedKey();
    const answer = await openai(token.key).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'How do I reset the router?' }] });
    expect(answer.choices[0].message.content).toBe(ANSWER + REFERENCES);
    expect(gw.mock.requests.map((r) => r.key)).toEqual(['fail-401', 'ok']);
    expect((await gw.t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', dead).executeTakeFirstOrThrow()).status).toBe(3);
    await expectCountedOnce(token.id, ANSWER + REFERENCES);
  });

  it('an unknown library, said with status 200, reaches the client and costs nothing; no other channel is tried', async () => {
    await gw.t.ctx.options.set('RetryTimes', '1');
    await libraryChannel('ok:a', { priority: 10, library: '99999' });
    await libraryChannel('ok:b', { priority: 0 });
    const token = await seedKey();
    const error = await openai(token.key).chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('Library not found');
    expect(gw.mock.requests).toHaveLength(1);
    const after = await settled(token.id, 0);
    expect(after.token.remain_quota).toBe(10_000_000);
    expect(after.open).toEqual([]);
  });

  it('a failure event half way ends the OpenAI stream with its error chunk, billed for what was delivered', async () => {
    await libraryChannel('stream-error');
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'How do I reset the router?' }], stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('"content":"Hold the reset button"');
    expect(text).toContain('"code":"stream_broken"');
    expect(text).toContain('The model stopped answering');
    const log = await expectSettledOnce(token.id);
    const [delivered] = await gw.t.ctx.relay.counter.count(['Hold the reset button on the back for ten seconds,']);
    expect(log.completion_tokens).toBe(delivered);
  });

  it('a stream cut mid-way ends an Anthropic stream with its error event, settled once', async () => {
    await libraryChannel('break');
    const token = await seedKey();
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': `sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'How do I reset the router?' }] }),
    });
    const text = await res.text();
    expect(text).toContain('event: error');
    expect(text).not.toContain('message_stop');
    await expectSettledOnce(token.id);
  });
});

describe('the channel test button', () => {
  it('tests a knowledge base channel saved with its 知识库 ID; an invalid key fails the test and disables it', async () => {
    const root = await gw.t.login('root', '123456');
    const create = (name: string, key: string) =>
      gw.t.call({ method: 'POST', url: '/api/channel/', cookie: root, payload: { name, type: 21, key, base_url: gw.mock.url, models: MODEL, group: 'default', other: LIBRARY_ID } });
    expect((await create('library-good', 'ok')).body.success).toBe(true);
    expect((await create('library-bad', 'not-a-key')).body.success).toBe(true);
    const list = (await gw.t.call({ method: 'GET', url: '/api/channel/?p=0', cookie: root })).body.data as Array<{ id: number; name: string }>;
    const idOf = (name: string) => list.find((c) => c.name === name)!.id;

    const good = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('library-good')}`, cookie: root });
    expect(good.body).toMatchObject({ success: true, model: MODEL, message: ANSWER + REFERENCES });
    expect(gw.mock.requests.at(-1)!.body).toEqual({ model: MODEL, query: 'hi', libraryId: LIBRARY_ID, stream: false });

    await gw.t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const bad = await gw.t.call({ method: 'GET', url: `/api/channel/test/${idOf('library-bad')}`, cookie: root });
    expect(bad.body).toMatchObject({ success: false, message: 'Invalid Api-Key' });
    expect((await gw.t.call({ method: 'GET', url: `/api/channel/${idOf('library-bad')}`, cookie: root })).body.data.status).toBe(3);
  });
});
