import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../billing/pricing.js';
import type { Usage } from '../billing/usage.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { settledToken } from '../test-support/settled-token.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';

/**
 * A client that leaves a stream before its end (docs/ledger.md, when a request ends badly). What the answer cost is
 * known only from the usage the upstream reports at its end: hidden reasoning, images and cache writes are in no
 * text the client was sent. So the gateway reads the upstream on, relaying it to nobody, until its end (for at most
 * STREAM_DRAIN_SECONDS, 1 s here), and bills the usage it reports; cut by that limit, it bills what it read, an
 * Anthropic stream's input as Anthropic counted it in message_start.
 *
 * The upstream here is scripted per request: it sends the head of its answer, then waits for the test to send the
 * rest, which the test does once the gateway has seen its client go.
 */
let t: TestApp;
let gateway: string;
let upstream: Server;
let upstreamUrl: string;
let userId: number;
/** Requests the upstream holds, oldest first: the response, and whether the gateway hung up on it. */
const held: Array<{ res: ServerResponse; closedEarly: () => boolean }> = [];
/** Connections of the gateway's clients that have closed, as the gateway saw them. */
let clientsGone = 0;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    let ended = false;
    res.on('finish', () => (ended = true));
    let closedEarly = false;
    res.on('close', () => (closedEarly = !ended));
    held.push({ res, closedEarly: () => closedEarly });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  t = await createTestApp({ STREAM_DRAIN_SECONDS: '1' });
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  t.app.server.on('connection', (socket: Socket) => socket.once('close', () => clientsGone++));
  userId = await seedUser(t.ctx.storage, 'leaver', 100_000_000, 'LEAVER');
  await t.ctx.options.set('ModelRatio', JSON.stringify({ o3: 1, 'claude-sonnet-4-5': 1.5 }));
  await t.ctx.options.set('CompletionRatio', JSON.stringify({ o3: 4, 'claude-sonnet-4-5': 5 }));
});
afterAll(async () => {
  await t.close();
  for (const { res } of held) res.destroy();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});
beforeEach(async () => {
  await t.ctx.storage.db.deleteFrom('abilities').execute();
  await t.ctx.storage.db.deleteFrom('channels').execute();
  held.length = 0;
});

const until = async (what: () => boolean) => {
  for (let i = 0; i < 500 && !what(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(what()).toBe(true);
};

/** Opens a stream through the gateway, reads its first bytes, leaves, and answers once the gateway has seen it go. */
async function leaveAfterFirstBytes(path: string, headers: Record<string, string>, body: object): Promise<string> {
  const controller = new AbortController();
  const gone = clientsGone;
  const res = await fetch(`${gateway}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: controller.signal });
  expect(res.status).toBe(200);
  const first = new TextDecoder().decode((await res.body!.getReader().read()).value);
  controller.abort();
  await until(() => clientsGone > gone);
  return first;
}

/** A prompt long enough for the cache counts below (a report above what the prompt could hold is billed at that bound). */
const document = Array.from({ length: 400 }, (_, i) => `Paragraph ${i}: the quarterly figures rose.`).join('\n');

const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const chunk = (delta: Record<string, unknown>, finish: string | null = null) => sse({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'o3', choices: [{ index: 0, delta, finish_reason: finish }] });

async function expectBilled(tokenId: number, model: string, usage: Usage, suffix: boolean) {
  const after = await settledToken(t.ctx.storage, tokenId, 1);
  expect(after.logs).toHaveLength(1);
  const [log] = after.logs;
  expect([log.prompt_tokens, log.completion_tokens, Number(log.reasoning_tokens ?? 0), Number(log.cached_tokens ?? 0), Number(log.cache_write_tokens ?? 0)]).toEqual([
    usage.prompt_tokens,
    usage.completion_tokens,
    usage.reasoning_tokens ?? 0,
    usage.cached_tokens ?? 0,
    usage.cache_write_tokens ?? 0,
  ]);
  expect(log.quota).toBe(costOf(usage, pricesFor(t.ctx.options, model, 'default')));
  expect(log.content ?? '').toContain(suffix ? '客户端中途断开' : '');
  if (!suffix) expect(log.content ?? '').not.toContain('客户端中途断开');
  expect(log.content ?? '').not.toContain('用量异常');
  expect(after.token.remain_quota).toBe(10_000_000 - log.quota);
  expect(after.open).toEqual([]);
  return log;
}

/** An o3 channel and a key; a stream whose client leaves once the upstream's `first` bytes reached it. Answers the held upstream response. */
async function leftO3Stream(first: string) {
  await seedChannel(t.ctx.storage, { name: 'openai', type: 1, key: 'sk-up', baseUrl: upstreamUrl, models: 'o3' });
  const token = await seedToken(t.ctx.storage, userId, { remain_quota: 10_000_000 });
  const opened = leaveAfterFirstBytes('/v1/chat/completions', { authorization: `Bearer sk-${token.key}` }, { model: 'o3', stream: true, messages: [{ role: 'user', content: 'Prove it.' }] });
  await until(() => held.length === 1);
  const { res, closedEarly } = held[0];
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(first);
  const received = await opened;
  return { token, res, closedEarly, received };
}

describe('a client that leaves a stream', () => {
  it('after the first words of a reasoning model: the upstream is read to its end and its reasoning billed', async () => {
    const { token, res, closedEarly, received } = await leftO3Stream(chunk({ role: 'assistant', content: 'Here' }));
    expect(received).toContain('Here');
    // The rest comes after the client has gone: the answer's end, then the usage with 20,000 reasoning tokens.
    res.write(chunk({ content: ' is the proof.' }));
    res.write(chunk({}, 'stop'));
    res.end(sse({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'o3', choices: [], usage: { prompt_tokens: 9, completion_tokens: 20_004, total_tokens: 20_013, completion_tokens_details: { reasoning_tokens: 20_000 } } }) + 'data: [DONE]\n\n');
    await expectBilled(token.id, 'o3', { prompt_tokens: 9, completion_tokens: 20_004, reasoning_tokens: 20_000 }, true);
    expect(closedEarly()).toBe(false);
  });

  it('after the answer\'s end but before its usage: billed as a whole answer, at the usage', async () => {
    const { token, res } = await leftO3Stream(chunk({ role: 'assistant', content: 'Done.' }) + chunk({}, 'stop'));
    res.end(sse({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'o3', choices: [], usage: { prompt_tokens: 9, completion_tokens: 3_002, total_tokens: 3_011, completion_tokens_details: { reasoning_tokens: 3_000 } } }) + 'data: [DONE]\n\n');
    await expectBilled(token.id, 'o3', { prompt_tokens: 9, completion_tokens: 3_002, reasoning_tokens: 3_000 }, false);
  });

  it('translated (an Anthropic client on an OpenAI channel): the same', async () => {
    await seedChannel(t.ctx.storage, { name: 'openai', type: 1, key: 'sk-up', baseUrl: upstreamUrl, models: 'o3' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 10_000_000 });
    const opened = leaveAfterFirstBytes('/v1/messages', { 'x-api-key': `sk-${token.key}`, 'anthropic-version': '2023-06-01' }, { model: 'o3', max_tokens: 30_000, stream: true, messages: [{ role: 'user', content: 'Prove it.' }] });
    await until(() => held.length === 1);
    const { res } = held[0];
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: 'Here' }));
    expect(await opened).toContain('message_start');
    res.end(chunk({ content: ' it is.' }, 'stop') + sse({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'o3', choices: [], usage: { prompt_tokens: 12, completion_tokens: 8_004, total_tokens: 8_016, completion_tokens_details: { reasoning_tokens: 8_000 } } }) + 'data: [DONE]\n\n');
    await expectBilled(token.id, 'o3', { prompt_tokens: 12, completion_tokens: 8_004, reasoning_tokens: 8_000 }, true);
  });

  it('an upstream that goes on past STREAM_DRAIN_SECONDS is cancelled then, and billed what was read', async () => {
    const { token, res, closedEarly } = await leftO3Stream(chunk({ role: 'assistant', content: 'Here' }));
    // A word every 50 ms, for ever: only the drain's limit ends it.
    const words = setInterval(() => res.write(chunk({ content: ' word' })), 50);
    try {
      await until(closedEarly);
    } finally {
      clearInterval(words);
    }
    const after = await settledToken(t.ctx.storage, token.id, 1);
    expect(after.logs).toHaveLength(1);
    expect(after.logs[0].content).toContain('客户端中途断开');
    // Counted: the prompt and the words read (more than the client got before it left).
    expect(after.logs[0].completion_tokens).toBeGreaterThan(1);
    expect(after.token.remain_quota).toBe(10_000_000 - after.logs[0].quota);
    expect(after.open).toEqual([]);
  });

  it('Anthropic, cut before its message_delta: the input is billed as message_start counted it, cache reads and writes apart', async () => {
    await seedChannel(t.ctx.storage, { name: 'claude', type: 14, key: 'sk-ant', baseUrl: upstreamUrl, models: 'claude-sonnet-4-5' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 10_000_000 });
    const opened = leaveAfterFirstBytes('/v1/messages', { 'x-api-key': `sk-${token.key}`, 'anthropic-version': '2023-06-01' }, { model: 'claude-sonnet-4-5', max_tokens: 1000, stream: true, messages: [{ role: 'user', content: `Summarise this document.\n${document}` }] });
    await until(() => held.length === 1);
    const { res, closedEarly } = held[0];
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      event('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 500, cache_read_input_tokens: 2_000, cache_creation_input_tokens: 1_000, output_tokens: 1 } } }) +
        event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'The document' } }),
    );
    await opened;
    // Then nothing: the drain's limit cuts it.
    await until(closedEarly);
    await expectBilled(token.id, 'claude-sonnet-4-5', { prompt_tokens: 3_500, completion_tokens: 2, cached_tokens: 2_000, cache_write_tokens: 1_000 }, true);
  });
});
