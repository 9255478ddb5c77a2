import type { RelayReply } from './types.js';
import type { UpstreamResponse } from '../transport/send-upstream.js';
import type { DeliveryPlan } from './delivery-types.js';
import { withRelayHeaders } from '../../http/security-headers.js';

/** The headers an answer is written with: the upstream's own when its bytes pass through, else the gateway's. */

/** Headers of the upstream's own connection, encoding and server (its cookies, name and date): the gateway's reply sets its own. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'set-cookie', 'server', 'date']);

/** The upstream's headers for an answer relayed as it sent it, with the gateway's request id. */
export function relayHeaders(response: Pick<UpstreamResponse, 'headers'>, requestId: string): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { 'x-request-id': requestId };
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  return headers;
}

/**
 * Writes the head of an answer written around fastify (after `reply.hijack()`): `headers` (the request id among them)
 * with the relay's security headers and CORS (http/security-headers.ts), which fastify's own replies get from its
 * onSend hook. Given whole to `writeHead`, nothing of them stays on the response once the head is written.
 */
export function writeHead(reply: RelayReply, status: number, headers: Record<string, string | string[]>): void {
  reply.raw.writeHead(status, withRelayHeaders(headers, reply.request.protocol === 'https'));
}

/** The headers of a stream the gateway writes in the client's dialect. */
export function streamHeaders(plan: DeliveryPlan): Record<string, string> {
  // Gemini's JSON-array stream is one JSON document sent piece by piece.
  const type = plan.context.jsonArray ? 'application/json; charset=UTF-8' : plan.client.streamContentType;
  return { 'content-type': type, 'cache-control': 'no-cache', 'x-accel-buffering': 'no', 'x-request-id': plan.requestId };
}
