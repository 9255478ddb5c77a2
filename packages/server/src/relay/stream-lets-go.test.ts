import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { startMockAnthropic, type MockAnthropic } from '../test-support/upstreams/anthropic.js';
import type { MockHandle } from '../test-support/upstreams/mock-server.js';
import { startMockOllama } from '../test-support/upstreams/ollama.js';

/**
 * A stream open for minutes holds only what its settlement needs (bench/README.md, what a stream holds): once it runs,
 * nothing refers to the client's parsed body any more, so a long prompt is not kept as JS objects for the stream's
 * life. The upstreams here send their first event and hold the rest (`hold-stream`) while the test looks.
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let t: TestApp;
let url: string;
let anthropic: MockAnthropic;
let ollama: MockHandle;
let key: string;
/**
 * Each request's parsed body, weakly: gone once nothing of the gateway holds it. The relay parses its JSON posts
 * without fastify (relay/ingress/direct.ts), so no fastify hook sees them: the bodies are caught where every JSON body
 * is parsed, by JSON.parse, as the first parse of a text holding the test's prompt (the upstream mocks parse the
 * relayed body after it).
 */
const bodies: Array<WeakRef<object>> = [];
const parse = JSON.parse;
let awaiting = false;

beforeAll(async () => {
  [anthropic, ollama] = await Promise.all([startMockAnthropic(), startMockOllama()]);
  // The held streams are left by their clients at each test's end: cancelled at once, not read on for their usage.
  t = await createTestApp({ STREAM_DRAIN_SECONDS: '0' });
  JSON.parse = (text: string, reviver?: Parameters<typeof parse>[1]) => {
    const value = parse(text, reviver) as unknown;
    if (awaiting && typeof text === 'string' && text.includes(MARK) && value && typeof value === 'object') {
      awaiting = false;
      bodies.push(new WeakRef(value));
    }
    return value;
  };
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await seedChannel(t.ctx.storage, { name: 'claude', type: 14, key: 'hold-stream', baseUrl: anthropic.url, models: 'claude-sonnet-4-5' });
  await seedChannel(t.ctx.storage, { name: 'ollama', type: 30, key: 'hold-stream', baseUrl: ollama.url, models: 'llama3.2' });
  const userId = await seedUser(t.ctx.storage, 'letsgo', 10_000_000, 'LETSGO');
  key = (await seedToken(t.ctx.storage, userId, { unlimited: true })).key;
});
afterAll(async () => {
  JSON.parse = parse;
  await t.close();
  await Promise.all([anthropic.close(), ollama.close()]);
});

/** Whether the body is still held after full collections (a WeakRef's target stays alive until the turn that made or read it ends). */
async function held(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
  }
  await new Promise((resolve) => setTimeout(resolve, 10));
  return ref.deref() !== undefined;
}

/** Starts a stream and answers once its first bytes have come, with the way to end it. */
async function openStream(path: string, headers: Record<string, string>, body: object) {
  const controller = new AbortController();
  awaiting = true;
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: controller.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const first = await reader.read();
  expect(first.done).toBe(false);
  return { text: new TextDecoder().decode(first.value), close: () => controller.abort() };
}

const MARK = 'of a long prompt the stream must not keep';
const prompt = Array.from({ length: 200 }, (_, i) => `Line ${i} ${MARK}.`).join('\n');

describe('a running stream lets go of the parsed client body', () => {
  it('passed through (Anthropic Messages on an Anthropic channel)', async () => {
    const before = bodies.length;
    const stream = await openStream('/v1/messages', { 'x-api-key': `sk-${key}`, 'anthropic-version': '2023-06-01' }, { model: 'claude-sonnet-4-5', max_tokens: 100, stream: true, messages: [{ role: 'user', content: prompt }] });
    expect(stream.text).toContain('message_start');
    expect(bodies.length).toBe(before + 1);
    expect(await held(bodies.at(-1)!)).toBe(false);
    stream.close();
  });

  it('through a codec (an OpenAI client on an Ollama channel speaking its own API): once its first bytes are out', async () => {
    const before = bodies.length;
    const stream = await openStream('/v1/chat/completions', { authorization: `Bearer sk-${key}` }, { model: 'llama3.2', stream: true, messages: [{ role: 'user', content: prompt }] });
    expect(stream.text).toContain('chat.completion.chunk');
    expect(bodies.length).toBe(before + 1);
    expect(await held(bodies.at(-1)!)).toBe(false);
    stream.close();
  });
});
