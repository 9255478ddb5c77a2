import type { UpstreamRequest } from '../providers/types.js';
import type { UpstreamPools } from './upstream-pools.js';
import { openWebSocket } from './websocket.js';
import type { CancelSignal } from './cancel.js';
import { UpstreamCall, type UpstreamResponse } from './upstream-call.js';

export type { UpstreamBody, UpstreamResponse } from './upstream-call.js';

/**
 * The transport seam: sends a built request and hands back the status, headers and the body as a byte
 * stream. HTTP through the per-origin pools (undici's dispatch, upstream-call.ts); an upstream that answers over
 * another transport (iFlytek Spark's WebSocket) plugs in here with the same shape, its messages as the body's chunks.
 */
export function sendUpstream(pools: UpstreamPools, request: UpstreamRequest, signal: CancelSignal): Promise<UpstreamResponse> {
  const url = new URL(request.url);
  if (url.protocol === 'wss:' || url.protocol === 'ws:') return openWebSocket(request, signal, pools.timeoutMs);
  return new Promise((resolve, reject) => {
    const call = new UpstreamCall(signal, resolve, reject);
    pools.get(url.origin).dispatch(
      {
        method: request.method,
        path: `${url.pathname}${url.search}`,
        headers: request.headers,
        // undici turns a string body into bytes and keeps both until the answer ends; handed the bytes, it keeps one
        // copy of the prompt per open stream instead of two (bench/README.md, what a stream holds).
        body: typeof request.body === 'string' ? Buffer.from(request.body) : request.body,
      },
      call,
    );
  });
}
