import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { openAiChatDialect } from '../dialects/openai-chat/index.js';
import { Cancel } from '../transport/cancel.js';
import { SseDecoder } from '../transport/frame-decoders.js';
import type { UpstreamResponse } from '../transport/send-upstream.js';
import { deliverStream } from './deliver-stream.js';
import type { DeliveryOutcome, DeliveryPlan } from './delivery-types.js';

/**
 * A stream relayed as it is writes the bytes of its head's tick with the head at the tick's end and reads them for
 * the usage only then (deliver-stream.ts `flushHead`). undici never ends or fails a body within the tick of its
 * data, but a body that does (the same tick's `end` or `error` event) must still have those bytes read before its
 * outcome is told: otherwise the upstream's reported usage would be lost and the answer billed at the gateway's own
 * count. Driven here on a real client connection with a body whose events the test emits itself.
 */
const CHUNK = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: 'stop' }] })}\n\ndata: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } })}\n\n`;

const plan: DeliveryPlan = {
  endpoint: 'chat',
  client: openAiChatDialect,
  upstream: openAiChatDialect,
  translate: false,
  stream: true,
  context: { id: 'c1', model: 'gpt-4o-mini', created: 1, includeUsage: true },
  requestId: 'req-1',
  drainMs: 0,
};

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/**
 * Serves one request by delivering `body` as an upstream's stream, runs `drive` on the body right after the delivery
 * has started (in the same tick), and answers what the client received and the delivery's outcome.
 */
async function relayed(drive: (body: Readable) => void): Promise<{ received: string; outcome: DeliveryOutcome }> {
  let outcome!: Promise<DeliveryOutcome>;
  const server = createServer((_req, res: ServerResponse) => {
    const body = new Readable({ read() {} });
    const response = { status: 200, headers: { 'content-type': 'text/event-stream' }, contentType: 'text/event-stream', body } as unknown as UpstreamResponse;
    const reply = { raw: res, request: { protocol: 'http' }, hijack() {} } as unknown as FastifyReply;
    const started = deliverStream(response, new SseDecoder(), plan, reply, new Cancel());
    drive(body);
    outcome = started.then((delivery) => {
      if (delivery.kind !== 'streaming') throw new Error(`expected a stream under way, got ${delivery.kind}`);
      return delivery.finished;
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  close = () => new Promise((resolve) => server.close(() => resolve()));
  const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const received = await answer.text();
  return { received, outcome: await outcome };
}

describe("a stream whose body ends in its head's tick", () => {
  it('an end in the same tick as the first bytes: they reach the client and their usage is read before the outcome', async () => {
    const { received, outcome } = await relayed((body) => {
      body.emit('data', Buffer.from(CHUNK));
      body.emit('end');
    });
    expect(received).toBe(CHUNK);
    expect(outcome).toMatchObject({ kind: 'success', text: 'Hi', usage: { prompt_tokens: 12, completion_tokens: 3 } });
  });

  it('a failure in the same tick as the first bytes: the stream is cut with an error event, and what was sent is billed by its usage', async () => {
    const { received, outcome } = await relayed((body) => {
      body.emit('data', Buffer.from(CHUNK));
      body.emit('error', new Error('socket hang up'));
    });
    expect(received.startsWith(CHUNK)).toBe(true);
    expect(received.slice(CHUNK.length)).toContain('error');
    expect(outcome).toMatchObject({ kind: 'broken', text: 'Hi', usage: { prompt_tokens: 12, completion_tokens: 3 } });
  });
});
