import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Cancel } from './cancel.js';

describe('Cancel (the relay abort controller)', () => {
  it('runs each listener once, in order, on the first abort only; removed listeners do not run', () => {
    const cancel = new Cancel();
    const calls: string[] = [];
    const a = () => calls.push('a');
    const b = () => calls.push('b');
    const c = () => calls.push('c');
    cancel.addEventListener('abort', a);
    cancel.addEventListener('abort', b);
    cancel.addEventListener('abort', c);
    cancel.removeEventListener('abort', b);
    expect(cancel.aborted).toBe(false);
    cancel.abort();
    cancel.abort('again');
    expect(calls).toEqual(['a', 'c']);
    expect(cancel.aborted).toBe(true);
    expect(cancel.reason).toBeInstanceOf(DOMException);
    expect((cancel.reason as DOMException).name).toBe('AbortError');
    // A listener added after the abort is not kept (nothing would call it).
    cancel.addEventListener('abort', a);
    expect(calls).toEqual(['a', 'c']);
  });

  it('keeps the reason given, and a single listener removed leaves none', () => {
    const cancel = new Cancel();
    let called = false;
    const only = () => (called = true);
    cancel.addEventListener('abort', only);
    cancel.removeEventListener('abort', only);
    const reason = new Error('client left');
    cancel.abort(reason);
    expect(called).toBe(false);
    expect(cancel.reason).toBe(reason);
    expect(cancel.signal).toBe(cancel);
  });

  it('a listener that throws does not stop the others', () => {
    const cancel = new Cancel();
    const calls: string[] = [];
    const reported: unknown[] = [];
    const original = globalThis.queueMicrotask;
    globalThis.queueMicrotask = (task) => {
      try {
        task();
      } catch (error) {
        reported.push(error);
      }
    };
    try {
      cancel.addEventListener('abort', () => {
        throw new Error('listener failed');
      });
      cancel.addEventListener('abort', () => calls.push('second'));
      cancel.abort();
    } finally {
      globalThis.queueMicrotask = original;
    }
    expect(calls).toEqual(['second']);
    expect(reported).toHaveLength(1);
  });

  describe('as undici\'s signal', () => {
    let server: Server;
    let pool: Pool;
    beforeAll(async () => {
      // Headers at once, then a body that never ends: a held stream.
      server = createServer((req, res) => {
        if (req.url === '/whole') return void res.end('whole answer');
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
    afterAll(async () => {
      await pool.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('cancels a request before its answer and a body under way', async () => {
      const early = new Cancel();
      early.abort();
      await expect(pool.request({ method: 'GET', path: '/', signal: early as unknown as AbortSignal })).rejects.toThrow();

      const cancel = new Cancel();
      const response = await pool.request({ method: 'GET', path: '/', signal: cancel as unknown as AbortSignal });
      expect(response.statusCode).toBe(200);
      const failed = new Promise<unknown>((resolve) => response.body.on('error', resolve));
      response.body.on('data', () => {});
      cancel.abort();
      expect(await failed).toBeTruthy();
      expect(response.body.destroyed).toBe(true);
    });

    it('lets go of its listener once an answer has been read', async () => {
      const cancel = new Cancel();
      const response = await pool.request({ method: 'GET', path: '/whole', signal: cancel as unknown as AbortSignal });
      expect(await response.body.text()).toBe('whole answer');
      // undici removes it when the body closes, right after its end.
      await vi.waitFor(() => expect((cancel as unknown as { listeners: unknown }).listeners).toBeUndefined());
    });
  });
});
