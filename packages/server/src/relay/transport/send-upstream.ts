import type { Readable } from 'node:stream';
import type { UpstreamRequest } from '../providers/types.js';
import type { UpstreamPools } from './upstream-pools.js';
import { openWebSocket } from './websocket.js';
import type { CancelSignal } from './cancel.js';

/** An answer's bytes as they arrive (undici's body, or a WebSocket's messages), readable whole with `text()`. */
export type UpstreamBody = Readable & { text(): Promise<string> };

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  body: UpstreamBody;
}

/**
 * The transport seam: sends a built request and hands back the status, headers and the body as a byte
 * stream. HTTP through the per-origin pools; an upstream that answers over another transport (iFlytek Spark's
 * WebSocket) plugs in here with the same shape, its messages as the body's chunks.
 */
export async function sendUpstream(pools: UpstreamPools, request: UpstreamRequest, signal: CancelSignal): Promise<UpstreamResponse> {
  const url = new URL(request.url);
  if (url.protocol === 'wss:' || url.protocol === 'ws:') return openWebSocket(request, signal, pools.timeoutMs);
  const response = await pools.get(url.origin).request({
    method: request.method,
    path: `${url.pathname}${url.search}`,
    headers: request.headers,
    // undici turns a string body into bytes and keeps both until the answer ends; handed the bytes, it keeps one
    // copy of the prompt per open stream instead of two (bench/README.md, what a stream holds).
    body: typeof request.body === 'string' ? Buffer.from(request.body) : request.body,
    // undici takes any object with an AbortSignal's `aborted`, `reason` and listener methods.
    signal: signal as AbortSignal,
  });
  return { status: response.statusCode, headers: response.headers, contentType: String(response.headers['content-type'] ?? ''), body: response.body };
}
