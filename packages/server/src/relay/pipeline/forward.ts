import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import type { FastifyReply } from 'fastify';
import { Pool } from 'undici';
import type { ProviderAdapter, UpstreamRequest, Usage } from '../providers/types.js';

/** What happened upstream. Only 'failure' leaves the client untouched, so only it may be retried. */
export type ForwardOutcome =
  | { kind: 'success'; usage?: Usage; text: string }
  | { kind: 'failure'; status: number; body: string }
  | { kind: 'broken'; usage?: Usage; text: string; message: string }
  | { kind: 'aborted'; usage?: Usage; text: string };

/** One keep-alive pool per upstream origin (ARCHITECTURE: undici Pool, never fetch). */
export class UpstreamPools {
  private readonly pools = new Map<string, Pool>();
  constructor(
    private readonly timeoutMs: number,
    /** Concurrent connections per upstream origin: each in-flight stream holds one. */
    private readonly maxConnections = 4096,
  ) {}

  get(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, { connections: this.maxConnections, pipelining: 1, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs, keepAliveTimeout: 30_000 });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
    this.pools.clear();
  }
}

/** Reads usage and text from an SSE byte stream on the side, without holding the stream back. */
class StreamWatcher {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  usage?: Usage;
  text = '';
  constructor(private readonly adapter: ProviderAdapter) {}

  push(chunk: Buffer): void {
    this.pending += this.decoder.write(chunk);
    let newline = this.pending.indexOf('\n');
    while (newline >= 0) {
      const line = this.pending.slice(0, newline).trim();
      this.pending = this.pending.slice(newline + 1);
      if (line.startsWith('data:')) {
        const event = this.adapter.readStreamEvent(line.slice(5).trim());
        if (event.usage) this.usage = event.usage;
        if (event.text) this.text += event.text;
      }
      newline = this.pending.indexOf('\n');
    }
  }
}

/** The client left before an answer was sent: nothing more to write, and fastify must not try to. */
function clientGone(reply: FastifyReply): ForwardOutcome {
  reply.hijack();
  reply.raw.destroy();
  return { kind: 'aborted', text: '' };
}

const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'set-cookie', 'server', 'date']);

/**
 * Step 4: call the upstream and relay its answer. A stream is written to the client chunk by chunk as it
 * arrives (honouring backpressure) while usage is read on the side; an upstream break ends the stream with
 * an error event instead of a fake success; a client abort cancels the upstream call.
 */
export async function forward(
  pools: UpstreamPools,
  adapter: ProviderAdapter,
  upstream: UpstreamRequest,
  reply: FastifyReply,
  requestId: string,
): Promise<ForwardOutcome> {
  const url = new URL(upstream.url);
  const abort = new AbortController();
  const res = reply.raw;
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.once('close', onClose);
  try {
    let response;
    try {
      response = await pools.get(url.origin).request({
        method: upstream.method,
        path: `${url.pathname}${url.search}`,
        headers: upstream.headers,
        body: upstream.body,
        signal: abort.signal,
      });
    } catch (error) {
      if (abort.signal.aborted) return clientGone(reply);
      return { kind: 'failure', status: 504, body: JSON.stringify({ error: { message: `上游请求失败：${(error as Error).message}` } }) };
    }

    if (response.statusCode >= 400) {
      const body = await response.body.text().catch(() => '');
      return { kind: 'failure', status: response.statusCode, body };
    }

    const contentType = String(response.headers['content-type'] ?? '');
    const headers: Record<string, string | string[]> = { 'x-request-id': requestId };
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name.toLowerCase())) headers[name] = value;
    }

    if (!contentType.includes('text/event-stream')) {
      let buffer: Buffer;
      try {
        buffer = Buffer.from(await response.body.arrayBuffer());
      } catch (error) {
        if (abort.signal.aborted) return clientGone(reply);
        return { kind: 'failure', status: 502, body: JSON.stringify({ error: { message: `上游响应中断：${(error as Error).message}` } }) };
      }
      let usage: Usage | undefined;
      if (contentType.includes('json')) {
        try {
          usage = adapter.usageFromResponse(JSON.parse(buffer.toString('utf8')));
        } catch {
          /* not JSON after all: relay as is */
        }
      }
      reply.hijack();
      res.writeHead(response.statusCode, { ...headers, 'content-length': String(buffer.length) });
      res.end(buffer);
      return { kind: 'success', usage, text: '' };
    }

    reply.hijack();
    res.writeHead(response.statusCode, { ...headers, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    const watcher = new StreamWatcher(adapter);
    try {
      for await (const chunk of response.body) {
        const buffer = chunk as Buffer;
        watcher.push(buffer);
        if (!res.write(buffer)) await once(res, 'drain', { signal: abort.signal });
      }
    } catch (error) {
      if (abort.signal.aborted) return { kind: 'aborted', usage: watcher.usage, text: watcher.text };
      const message = `上游流式响应中断：${(error as Error).message}`;
      const event = { error: { message, type: 'upstream_error', param: '', code: 'stream_broken' } };
      res.end(`data: ${JSON.stringify(event)}\n\n`);
      return { kind: 'broken', usage: watcher.usage, text: watcher.text, message };
    }
    res.end();
    return { kind: 'success', usage: watcher.usage, text: watcher.text };
  } finally {
    res.off('close', onClose);
  }
}
