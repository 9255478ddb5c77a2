import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStatusProbe } from '../test-support/hostile/event-loop.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';

/**
 * Large bodies are parsed, measured and translated on a body worker (ingress/large-json.ts): while a 600,000-content
 * Gemini request (about 30 MB) is translated for an OpenAI channel, GET /api/status keeps answering (issue 19).
 */
let t: TestApp;
let gateway: string;
let sink: Worker;
let sinkUrl: string;

/**
 * An OpenAI-style upstream on a thread of its own (its reading of 30 MB must not count against the gateway's event
 * loop, which shares this process), that answers without parsing and tells what it received.
 */
const SINK = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
const received = [];
const server = http.createServer((req, res) => {
  let bytes = 0;
  let head = '';
  req.on('data', (chunk) => {
    if (head.length < 200) head += chunk.subarray(0, 200).toString();
    bytes += chunk.length;
  });
  req.on('end', () => {
    received.push({ path: req.url, bytes, head: head.slice(0, 200) });
    const answer = JSON.stringify({
      id: 'chatcmpl-sink', object: 'chat.completion', created: 1, model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Read it all.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3000000, completion_tokens: 4, total_tokens: 3000004 },
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (message) => {
  if (message === 'last') parentPort.postMessage({ last: received[received.length - 1] });
  if (message === 'stop') server.close(() => parentPort.close());
});
`;

/** What the sink received last: its path, size and first characters. */
function lastReceived(): Promise<{ path: string; bytes: number; head: string }> {
  return new Promise((resolve) => {
    const listen = (message: { last?: { path: string; bytes: number; head: string } }) => {
      if (!('last' in message)) return;
      sink.off('message', listen);
      resolve(message.last!);
    };
    sink.on('message', listen);
    sink.postMessage('last');
  });
}

beforeAll(async () => {
  sink = new Worker(SINK, { eval: true });
  const { port } = await new Promise<{ port: number }>((resolve) => sink.once('message', resolve));
  sinkUrl = `http://127.0.0.1:${port}`;
  t = await createTestApp({ RELAY_TIMEOUT_SECONDS: '60' });
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  sink.postMessage('stop');
  await new Promise((resolve) => sink.once('exit', resolve));
});

async function key(): Promise<{ id: number; key: string }> {
  const userId = await seedUser(t.ctx.storage, `big${Date.now()}`, 1e12, `BIG${Date.now()}`);
  return seedToken(t.ctx.storage, userId, { unlimited: true });
}

describe('a large body is handled off the event loop', () => {
  // covers issue 19 item 5
  /**
   * The longest a status probe may wait while the body is worked on: translating it on the event loop held every other
   * request for 1.5-2.7 s; on a machine loaded by other suites a probe waits up to ~120 ms for reasons of its own.
   */
  const SLOW_MS = 500;

  it('600,000 Gemini contents translated for an OpenAI channel: GET /api/status stays under half a second (it was held 2.7 s), the upstream gets them all, billed', async () => {
    await seedChannel(t.ctx.storage, { key: 'sink', baseUrl: sinkUrl, models: 'gpt-4o-mini' });
    const token = await key();
    const contents = Array.from({ length: 600_000 }, (_, i) => ({ role: i % 2 ? 'model' : 'user', parts: [{ text: `message ${i}` }] }));
    contents.push({ role: 'user', parts: [{ text: 'Summarise.' }] });
    const body = Buffer.from(JSON.stringify({ contents }));
    expect(body.length).toBeGreaterThan(24 * 1024 * 1024);

    const send = () => fetch(`${gateway}/v1beta/models/gpt-4o-mini:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': `sk-${token.key}`, 'content-type': 'application/json' }, body });
    const probe = startStatusProbe(gateway);
    let slowest = Infinity;
    let res: Response | undefined;
    let answer: { candidates: Array<{ content: { parts: Array<{ text: string }> } }> } | undefined;
    // A loop held by the gateway is held every time; a slow answer on a busy machine (other suites share its two
    // cores) is not: a slow round is measured again, up to three times, and the fastest counts.
    for (let round = 0; round < 3 && slowest >= SLOW_MS; round++) {
      await probe.take();
      res = await send();
      answer = await res.json();
      slowest = Math.min(slowest, await probe.take());
    }
    await probe.stop();

    expect(res!.status).toBe(200);
    expect(answer!.candidates[0].content.parts[0].text).toBe('Read it all.');
    expect(slowest).toBeLessThan(SLOW_MS);
    const upstream = await lastReceived();
    expect(upstream.path).toBe('/v1/chat/completions');
    expect(upstream.head).toMatch(/^\{"model":"gpt-4o-mini","messages":\[\{"role":"user","content":"message 0"\}/);
    expect(upstream.bytes).toBeGreaterThan(20 * 1024 * 1024);
    let log;
    for (let i = 0; i < 200 && !log; i++) {
      log = await t.ctx.storage.db.selectFrom('logs').selectAll().where('token_id', '=', token.id).where('type', '=', 2).executeTakeFirst();
      if (!log) await new Promise((r) => setTimeout(r, 20));
    }
    expect(log?.prompt_tokens).toBe(3_000_000);
  }, 120_000);

  it('a large body passed through keeps every message; a large malformed or too deeply nested one is refused like a small one', async () => {
    await seedChannel(t.ctx.storage, { key: 'sink', baseUrl: sinkUrl, models: 'gpt-4o-mini' });
    const token = await key();
    const post = (body: string) =>
      fetch(`${gateway}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' }, body });
    const messages = Array.from({ length: 40_000 }, (_, i) => ({ role: 'user', content: `line ${i}` }));
    const sent = JSON.stringify({ model: 'gpt-4o-mini', messages });
    expect(Buffer.byteLength(sent)).toBeGreaterThan(1024 * 1024);
    const ok = await post(sent);
    expect(ok.status).toBe(200);
    expect((await ok.json()).choices[0].message.content).toBe('Read it all.');
    // Only the output limit the reservation covers is added.
    const upstream = await lastReceived();
    expect(upstream.bytes).toBeGreaterThan(Buffer.byteLength(sent));
    expect(upstream.bytes).toBeLessThan(Buffer.byteLength(sent) + 40);

    const padding = 'x'.repeat(1024 * 1024);
    const broken = await post(`{"model":"gpt-4o-mini","pad":"${padding}","messages":[`);
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.message).toBe('请求体不是合法的 JSON');
    const deep = await post(`{"model":"gpt-4o-mini","pad":"${padding}","messages":[{"role":"user","content":"hi","x":${'['.repeat(200)}${']'.repeat(200)}}]}`);
    expect(deep.status).toBe(400);
    expect((await deep.json()).error.message).toContain('嵌套层级过深');
    const notObject = await post(`["${padding}"]`);
    expect(notObject.status).toBe(400);
    expect((await notObject.json()).error.message).toBe('请求体必须是 JSON 对象');
  }, 60_000);
});
