import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { seedChannel, seedToken } from '../test-support/seed.js';

/** How a stream starts for the client: its headers, then the first bytes as they come (pipeline/deliver-stream.ts). */
let t: TestApp;
let gatewayUrl: string;
let userId: number;

beforeAll(async () => {
  t = await createTestApp({ RELAY_TIMEOUT_SECONDS: '1' });
  gatewayUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  userId = (await t.ctx.repositories.users.findByUsername('root'))!.id;
});
afterAll(async () => {
  await t.close();
});

/** The key's consume log once its settlement has committed. */
async function settledLog(tokenId: number) {
  await t.ctx.relay.ledger.drain();
  return t.ctx.storage.db.selectFrom('logs').selectAll().where('token_id', '=', tokenId).where('type', '=', 2).executeTakeFirstOrThrow();
}

describe('the start of a stream', () => {
  it('a stream whose upstream is slow to its first bytes has its headers at once; the first bytes follow when they come', async () => {
    // An upstream that answers 200 with its headers, then thinks (a reasoning model) until the test lets it go on.
    let goOn!: () => void;
    const thinking = new Promise<void>((resolve) => (goOn = resolve));
    const slow = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        void thinking.then(() => {
          res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: 'late' }, finish_reason: 'stop' }] })}\n\n`);
          res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } })}\n\n`);
          res.end('data: [DONE]\n\n');
        });
      });
    }).listen(0, '127.0.0.1');
    await once(slow, 'listening');
    try {
      await seedChannel(t.ctx.storage, { key: 'thinking', baseUrl: `http://127.0.0.1:${(slow.address() as AddressInfo).port}`, models: 'gpt-4o-mini' });
      const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
      const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true }),
      });
      // fetch resolves on the headers: the upstream has not sent a byte of its body yet.
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      goOn();
      const body = await res.text();
      expect(body).toContain('"content":"late"');
      expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
      const log = await settledLog(token.id);
      expect(log).toMatchObject({ prompt_tokens: 3, completion_tokens: 1 });
    } finally {
      goOn();
      slow.close();
    }
  });

  it('events that arrive together go out together: the head and every event of one upstream read in one write to the client', async () => {
    // The upstream writes its head and four events in one turn: node sends them as one write, the gateway reads them
    // at once (one data event per chunk of the chunked body). Relayed one write per event (or the head with the
    // first alone), the client would be woken once per piece; the bare node:http pass-through writes them as one.
    const events = [
      { choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: { content: 'one write' }, finish_reason: null }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      { choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } },
    ].map((event) => `data: ${JSON.stringify({ id: 'c2', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', ...event })}\n\n`);
    const burst = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const event of events) res.write(event);
        res.end('data: [DONE]\n\n');
      });
    }).listen(0, '127.0.0.1');
    await once(burst, 'listening');
    // What the gateway writes to each client connection, write by write (a writev is one write of several pieces).
    const writes: string[][] = [];
    const watch = (socket: Socket) => {
      const seen: string[] = [];
      writes.push(seen);
      const write = socket._write.bind(socket);
      const writev = socket._writev?.bind(socket);
      socket._write = (chunk, encoding, callback) => (seen.push(String(chunk)), write(chunk, encoding, callback));
      if (writev) socket._writev = (chunks, callback) => (seen.push(chunks.map((c) => String(c.chunk)).join('')), writev(chunks, callback));
    };
    t.app.server.on('connection', watch);
    try {
      await seedChannel(t.ctx.storage, { key: 'burst', baseUrl: `http://127.0.0.1:${(burst.address() as AddressInfo).port}`, models: 'gpt-4o-burst' });
      const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
      const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({ model: 'gpt-4o-burst', messages: [{ role: 'user', content: 'hi' }], stream: true }),
      });
      const body = await res.text();
      expect(body).toContain('"content":"one write"');
      expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
      const seen = writes.find((connection) => connection.some((write) => write.includes('one write')));
      expect(seen?.[0]).toMatch(/^HTTP\/1\.1 200/);
      // The first write holds the head and every event, [DONE] included; the chunked body's end may follow it.
      expect(seen?.[0]).toContain('"content":"one write"');
      expect(seen?.[0]).toContain('data: [DONE]');
      expect((await settledLog(token.id)).completion_tokens).toBe(2);
    } finally {
      t.app.server.off('connection', watch);
      burst.close();
    }
  });
});
