import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Cancel } from './cancel.js';
import { sendUpstream, type UpstreamBody } from './send-upstream.js';
import { UpstreamPools } from './upstream-pools.js';

/** Everything a body says, in order: each chunk's text, `end`, `error: <message>`, `close`. */
function record(body: UpstreamBody): string[] {
  const seen: string[] = [];
  body.on('data', (chunk: Buffer) => seen.push(chunk.toString()));
  body.on('end', () => seen.push('end'));
  body.on('error', (error: Error) => seen.push(`error: ${error.message}`));
  body.on('close', () => seen.push('close'));
  return seen;
}

/** undici has delivered the whole answer to the call (whether or not anybody has read it). */
const completed = (body: UpstreamBody) => (body as unknown as { complete: boolean }).complete;

/** The bytes waiting in the call for a reader. */
const queuedOf = (body: UpstreamBody) => (body as unknown as { queued: number }).queued;

describe('an upstream call through undici\'s dispatch (the relay\'s body)', () => {
  let server: Server;
  let pools: UpstreamPools;
  let origin: string;
  /** The server side of each request, by path, as it arrives. */
  const arrived = new Map<string, { req: IncomingMessage; res: ServerResponse }>();
  const waiting = new Map<string, (value: { req: IncomingMessage; res: ServerResponse }) => void>();
  const serverSide = (path: string) =>
    new Promise<{ req: IncomingMessage; res: ServerResponse }>((resolve) => {
      const there = arrived.get(path);
      if (there) resolve(there);
      else waiting.set(path, resolve);
    });

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url!;
        if (path === '/whole') return void res.end(`whole answer to ${Buffer.concat(chunks).toString()}`);
        if (path === '/refused') return void res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' }).end('{"error":"slow down"}');
        if (path === '/parts') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('one ');
          res.write('two ');
          return void res.end('three');
        }
        arrived.set(path, { req, res });
        waiting.get(path)?.({ req, res });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    pools = new UpstreamPools(30_000);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await pools.close().catch(() => {});
    await new Promise((resolve) => server.close(resolve));
  });

  const send = (path: string, cancel = new Cancel(), body = 'question') => sendUpstream(pools, { url: `${origin}${path}`, method: 'POST', headers: { 'content-type': 'text/plain' }, body }, cancel);

  /** A call whose server side has answered its head (`headers`), the body left to the test: the call's answer and that side. */
  async function opened(path: string, headers: Record<string, string> = {}, cancel = new Cancel()) {
    const answer = send(path, cancel);
    const { res } = await serverSide(path);
    res.writeHead(200, headers);
    res.flushHeaders();
    return { response: await answer, res };
  }

  it('answers the status, the headers and the whole text', async () => {
    const response = await send('/whole');
    expect(response.status).toBe(200);
    expect(response.headers['content-length']).toBe(String('whole answer to question'.length));
    expect(await response.body.text()).toBe('whole answer to question');
    expect(response.body.destroyed).toBe(true);

    const refused = await send('/refused');
    expect(refused.status).toBe(429);
    expect(refused.contentType).toBe('application/json');
    expect(refused.headers['retry-after']).toBe('7');
    expect(await refused.body.text()).toBe('{"error":"slow down"}');
  });

  it('keeps what arrives before anybody listens, and gives it in order, then the end and the close', async () => {
    const cancel = new Cancel();
    const response = await send('/parts', cancel);
    // Read only once the whole answer is in (the relay reads after its reservation is committed).
    await vi.waitFor(() => expect(completed(response.body)).toBe(true));
    const seen = record(response.body);
    await vi.waitFor(() => expect(seen.at(-1)).toBe('close'));
    expect(seen.join('')).toBe('one two threeendclose');
    // The call no longer listens to the request's cancel.
    expect((cancel as unknown as { listeners: unknown }).listeners).toBeUndefined();
  });

  it('holds the chunks while paused and gives them on resume', async () => {
    const { response, res } = await opened('/paused');
    const seen: string[] = [];
    let hold = true;
    response.body.on('data', (chunk: Buffer) => {
      seen.push(chunk.toString());
      if (hold) response.body.pause();
    });
    res.write('first');
    await vi.waitFor(() => expect(seen).toEqual(['first']));
    expect(response.body.isPaused()).toBe(true);
    res.write('second');
    res.end('third');
    // Nothing is given while paused, though the upstream is done.
    await vi.waitFor(() => expect(completed(response.body)).toBe(true));
    expect(seen).toEqual(['first']);
    hold = false;
    const ended = once(response.body as never, 'end');
    response.body.resume();
    await ended;
    expect(seen.join('')).toBe('firstsecondthird');
  });

  it('stops reading the upstream while nobody reads the body, holding at most about 64 KiB', async () => {
    const { response, res } = await opened('/flood');
    // 16 MB written at once, more than the kernel's buffers hold: a reader that stopped reading leaves most of it in
    // the upstream's socket; one that kept on would hold it all within a few turns of the event loop.
    const block = Buffer.alloc(64 * 1024, 'x');
    const sent = 256 * block.length;
    for (let i = 0; i < 256; i++) res.write(block);
    await vi.waitFor(() => expect(queuedOf(response.body)).toBeGreaterThanOrEqual(64 * 1024));
    for (let turn = 0; turn < 50; turn++) await new Promise(setImmediate);
    expect(queuedOf(response.body)).toBeLessThan(192 * 1024);
    expect(res.writableLength).toBeGreaterThan(0);
    res.end();
    let read = 0;
    response.body.on('data', (chunk: Buffer) => (read += chunk.length));
    await once(response.body as never, 'end');
    expect(read).toBe(sent);
  });

  it('a cancel before the answer rejects the call with its reason; a cancel of a call not yet sent sends nothing', async () => {
    const cancel = new Cancel();
    const pending = send('/never', cancel);
    await serverSide('/never');
    const reason = new Error('client left');
    cancel.abort(reason);
    await expect(pending).rejects.toBe(reason);

    const early = new Cancel();
    early.abort(new Error('gone already'));
    await expect(send('/early', early)).rejects.toThrow('gone already');
    expect(arrived.has('/early')).toBe(false);
  });

  it('a cancel during the body fails it with the reason and closes the upstream connection', async () => {
    const cancel = new Cancel();
    const { response, res } = await opened('/held', { 'content-type': 'text/event-stream' }, cancel);
    res.write('data: first\n\n');
    const seen = record(response.body);
    await vi.waitFor(() => expect(seen).toEqual(['data: first\n\n']));
    const closed = once(res, 'close');
    cancel.abort(new Error('client left'));
    await vi.waitFor(() => expect(seen.at(-1)).toBe('close'));
    expect(seen.slice(1)).toEqual(['error: client left', 'close']);
    expect(response.body.destroyed).toBe(true);
    expect((response.body.errored as Error).message).toBe('client left');
    await closed;
  });

  it('destroy() ends a body under way with a close and no error, and closes the upstream connection', async () => {
    const { response, res } = await opened('/dropped');
    res.write('some');
    const seen = record(response.body);
    await vi.waitFor(() => expect(seen).toEqual(['some']));
    const closed = once(res, 'close');
    response.body.destroy();
    await vi.waitFor(() => expect(seen.at(-1)).toBe('close'));
    expect(seen).toEqual(['some', 'close']);
    await closed;
  });

  it('an upstream that breaks mid-body fails it, with or without an error listener (no uncaught error)', async () => {
    const { response, res } = await opened('/broken');
    res.write('part');
    const seen = record(response.body);
    await vi.waitFor(() => expect(seen).toEqual(['part']));
    res.destroy();
    await vi.waitFor(() => expect(seen.at(-1)).toBe('close'));
    expect(seen[1]).toMatch(/^error: /);

    // Nobody listens yet (the relay waits for its reservation): the failure is kept for the reader to find.
    const { response: unread, res: side } = await opened('/broken-unread');
    side.write('part');
    side.destroy();
    await vi.waitFor(() => expect(unread.body.destroyed).toBe(true));
    expect(unread.body.errored).toBeInstanceOf(Error);
    await expect(unread.body.text()).rejects.toBeInstanceOf(Error);
  });
});
