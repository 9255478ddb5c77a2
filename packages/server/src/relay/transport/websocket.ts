import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type WebSocket from 'ws';
import { optional } from '../../lib/optional-modules.js';
import type { UpstreamRequest } from '../providers/types.js';
import type { UpstreamBody, UpstreamResponse } from './send-upstream.js';
import type { CancelSignal } from './cancel.js';

/** What a WebSocket upstream's messages read as: one JSON value a line (frame-decoders.ts reads `ndjson`). */
export const WEBSOCKET_CONTENT_TYPE = 'application/x-ndjson';

/** Close codes of a socket that ended as agreed (normal closure, or a close frame without a code). */
const CLEAN_CLOSE = new Set([1000, 1005]);

/**
 * An upstream that answers over a WebSocket (iFlytek Spark's chat API), seen through the transport seam as an HTTP
 * response: the socket is opened at `request.url` (its handshake headers are `request.headers`), the request body is
 * sent as the first message, and the upstream's messages become the body, one a line, as they arrive (status 200,
 * `application/x-ndjson`). A refused handshake is the HTTP answer it was: its status, headers and body.
 *
 * The abort signal closes the socket at any time; `timeoutMs` bounds the handshake and the wait for each message
 * (the HTTP pools' headers and body timeouts). A socket that drops without a close frame mid-answer fails the body,
 * so the relay ends the client's stream as broken, never as a finished answer.
 */
export function openWebSocket(request: UpstreamRequest, signal: CancelSignal, timeoutMs: number): Promise<UpstreamResponse> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    const socket = new (optional.ws())(request.url, { headers: request.headers, perMessageDeflate: false, followRedirects: false });
    let opened = false;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      cleanup();
      socket.terminate();
      reject(error);
    };
    const connectTimer = setTimeout(() => fail(Object.assign(new Error('WebSocket 握手超时'), { code: 'WS_CONNECT_TIMEOUT' })), timeoutMs);
    const onAbort = () => {
      if (!opened) fail(abortError(signal));
    };
    const cleanup = () => {
      clearTimeout(connectTimer);
      signal.removeEventListener('abort', onAbort);
    };
    signal.addEventListener('abort', onAbort, { once: true });

    socket.on('error', (error) => fail(error));
    socket.on('unexpected-response', (_req, res: IncomingMessage) => {
      // The handshake was refused (a wrong signature, an expired date): the refusal is the answer, read whole.
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => fail(error));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        cleanup();
        socket.terminate();
        const body = new MessageBody();
        body.push(Buffer.concat(chunks));
        body.push(null);
        resolve({ status: res.statusCode ?? 502, headers: res.headers, contentType: String(res.headers['content-type'] ?? ''), body });
      });
    });
    socket.once('upgrade', (res: IncomingMessage) => {
      socket.once('open', () => {
        if (settled) return;
        settled = true;
        opened = true;
        cleanup();
        const body = new MessageBody(socket, signal, timeoutMs);
        if (request.body !== undefined) socket.send(request.body);
        resolve({ status: 200, headers: { ...res.headers, 'content-type': WEBSOCKET_CONTENT_TYPE }, contentType: WEBSOCKET_CONTENT_TYPE, body });
      });
    });
  });
}

function abortError(signal: CancelSignal): Error {
  return signal.reason instanceof Error ? signal.reason : Object.assign(new Error('aborted'), { name: 'AbortError' });
}

const NEWLINE = Buffer.from('\n');

/**
 * The messages of an open socket as a readable body (or a refused handshake's bytes when there is no socket). The
 * socket is paused while the reader is behind (the relay waits for a slow client), and closed when the body is
 * destroyed: a client that leaves closes the upstream's socket too.
 */
class MessageBody extends Readable implements UpstreamBody {
  private idle: NodeJS.Timeout | undefined;
  private readonly onAbort = () => this.destroy(abortError(this.signal!));

  constructor(
    private readonly socket?: WebSocket,
    private readonly signal?: CancelSignal,
    private readonly timeoutMs = 0,
  ) {
    super();
    if (!socket) return;
    signal?.addEventListener('abort', this.onAbort, { once: true });
    this.arm();
    socket.on('message', (data: WebSocket.RawData) => {
      this.arm();
      const message = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      if (!this.push(Buffer.concat([message, NEWLINE]))) socket.pause();
    });
    socket.on('close', (code: number) => {
      this.disarm();
      if (this.destroyed) return;
      if (CLEAN_CLOSE.has(code)) this.push(null);
      else this.destroy(Object.assign(new Error(`WebSocket 连接异常关闭（${code}）`), { code: 'WS_CLOSED' }));
    });
    socket.on('error', (error) => this.destroy(error));
  }

  override _read(): void {
    if (this.socket?.isPaused) this.socket.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.disarm();
    this.signal?.removeEventListener('abort', this.onAbort);
    const socket = this.socket;
    if (socket && (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING)) {
      // Spark: "如果在生成的过程中需要终止,可以直接发送websocket的close消息" — a close frame, then the socket goes.
      if (socket.readyState === socket.OPEN) socket.close(1000);
      else socket.terminate();
      setTimeout(() => socket.terminate(), 1_000).unref();
    }
    callback(error);
  }

  async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of this) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  /** No message within the timeout: the upstream stalled (the HTTP pools' body timeout). */
  private arm(): void {
    if (!this.timeoutMs) return;
    this.disarm();
    this.idle = setTimeout(() => this.destroy(Object.assign(new Error('WebSocket 等待上游消息超时'), { code: 'WS_BODY_TIMEOUT' })), this.timeoutMs);
    this.idle.unref();
  }

  private disarm(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
  }
}
