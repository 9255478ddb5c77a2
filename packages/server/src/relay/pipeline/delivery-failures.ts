import type { RelayReply } from './types.js';
import { UpstreamStreamError, VendorAnswerError } from '../dialects/shared.js';
import type { DeliveryOutcome, UpstreamFailure } from './delivery-types.js';

/** How a delivery ends when the answer cannot be written: the client left, or the upstream failed before it saw anything. */

/** The client left before an answer was sent: nothing more to write, and fastify must not try to. */
export function clientGone(reply: RelayReply): DeliveryOutcome {
  reply.hijack();
  reply.raw.destroy();
  return { kind: 'aborted', text: '' };
}

/** A vendor's error answered with a success status: a failure the next channel may take over. */
export function vendorFailure(error: unknown): UpstreamFailure {
  if (!(error instanceof VendorAnswerError)) throw error;
  return { kind: 'failure', status: error.status, body: JSON.stringify({ error: { message: error.message } }) };
}

/** An upstream answer the gateway could not read or relay, before the client saw any of it (502, in OpenAI's error shape). */
export function badGateway(message: string): UpstreamFailure {
  return { kind: 'failure', status: 502, body: JSON.stringify({ error: { message } }) };
}

/** What the client is told of a stream that broke: the upstream's own error, or that the stream was cut. */
export const streamBreak = (error: unknown): string => (error instanceof UpstreamStreamError ? `上游返回错误：${error.message}` : '上游流式响应中断');

/** A stream that broke before the client saw any of it: the next channel may answer instead. */
export function streamFailure(error: unknown): UpstreamFailure {
  return error instanceof VendorAnswerError ? vendorFailure(error) : badGateway(streamBreak(error));
}
