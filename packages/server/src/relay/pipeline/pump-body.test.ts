import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { UpstreamResponse } from '../transport/send-upstream.js';
import { pumpBody } from './pump-body.js';

const body = (chunks: string[]) => Readable.from(chunks.map((c) => Buffer.from(c)), { objectMode: false }) as unknown as UpstreamResponse['body'];
/** A Readable as the relay's upstream body (it has all of it the pump reads). */
const asBody = (stream: Readable) => stream as unknown as UpstreamResponse['body'];
/** Settles with what pumpBody did, or 'pending' if it has not settled once the stream's own events are long over. */
async function outcome(pumped: Promise<void>): Promise<string> {
  const result = pumped.then(
    () => 'resolved',
    (error: Error) => `rejected: ${error.message}`,
  );
  // Every event of an already finished stream is emitted within a few turns of the event loop.
  for (let i = 0; i < 20; i++) await new Promise(setImmediate);
  return Promise.race([result, Promise.resolve('pending')]);
}

describe('pumpBody', () => {
  it('calls back for each chunk in order and resolves at the end', async () => {
    const seen: string[] = [];
    await pumpBody(body(['a', 'b', 'c']), (chunk) => void seen.push(chunk.toString()));
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('rejects on the body\'s error mid-way, after the chunks before it', async () => {
    const stream = new Readable({ read() {} });
    const seen: string[] = [];
    const pumped = pumpBody(asBody(stream), (chunk) => void seen.push(chunk.toString()));
    stream.push(Buffer.from('first'));
    await new Promise(setImmediate);
    stream.destroy(new Error('other side closed'));
    expect(await outcome(pumped)).toBe('rejected: other side closed');
    expect(seen).toEqual(['first']);
  });

  // The upstream broke while the relay waited before reading (the reservation's commit): the body had failed, and
  // its events were over, before anything listened. The stream must fail, not wait for events that never come
  // (it held the client's stream and the reservation open until the client gave up).
  it('a body that failed before it was pumped rejects at once', async () => {
    const stream = new Readable({ read() {} });
    stream.on('error', () => {}); // as undici's body, whose error has been seen by the request's own handler
    stream.push(Buffer.from('first'));
    stream.destroy(new Error('other side closed'));
    for (let i = 0; i < 5; i++) await new Promise(setImmediate);
    expect(await outcome(pumpBody(asBody(stream), () => undefined))).toBe('rejected: other side closed');
  });

  it('a body destroyed without an error, before or while it is pumped, rejects', async () => {
    const before = new Readable({ read() {} });
    before.destroy();
    for (let i = 0; i < 5; i++) await new Promise(setImmediate);
    expect(await outcome(pumpBody(asBody(before), () => undefined))).toMatch(/^rejected: /);

    const during = new Readable({ read() {} });
    const pumped = pumpBody(asBody(during), () => undefined);
    during.push(Buffer.from('x'));
    await new Promise(setImmediate);
    during.destroy();
    expect(await outcome(pumped)).toMatch(/^rejected: /);
  });
});
