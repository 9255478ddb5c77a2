import type { Dispatcher } from 'undici';
import type { UpstreamRequest } from '../providers/types.js';
import type { UpstreamPools } from './upstream-pools.js';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  body: Dispatcher.ResponseData['body'];
}

/**
 * The transport seam: sends a built request and hands back the status, headers and the body as a byte
 * stream. HTTP through the per-origin pools; an upstream that answers over another transport (iFlytek Spark's
 * WebSocket) plugs in here with the same shape, its messages as the body's chunks.
 */
export async function sendUpstream(pools: UpstreamPools, request: UpstreamRequest, signal: AbortSignal): Promise<UpstreamResponse> {
  const url = new URL(request.url);
  const response = await pools.get(url.origin).request({
    method: request.method,
    path: `${url.pathname}${url.search}`,
    headers: request.headers,
    body: request.body,
    signal,
  });
  return { status: response.statusCode, headers: response.headers, contentType: String(response.headers['content-type'] ?? ''), body: response.body };
}
