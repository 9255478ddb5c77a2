import type { RelayReply } from './types.js';
import { frameDecoderFor } from '../transport/frame-decoders.js';
import type { UpstreamResponse } from '../transport/send-upstream.js';
import { deliverStream } from './deliver-stream.js';
import { deliverCollected, deliverWhole } from './deliver-whole.js';
import type { DeliveryOutcome, DeliveryPlan, Streaming, UpstreamFailure } from './delivery-types.js';
import type { Cancel } from '../transport/cancel.js';

/**
 * Delivery (docs/architecture.md, the request path): relays an upstream answer to the client and reads its usage
 * on the side.
 *  - same dialect: the bytes pass through as they arrive (a stream whose framing differs, such as Bedrock's
 *    binary event-stream carrying Anthropic events, is re-framed event by event, never re-built);
 *  - different dialects: each frame is read into canonical parts and written in the client's dialect.
 * An upstream that breaks mid-stream ends the client's stream with its dialect's own error event; a client
 * that leaves cancels the upstream call (through `abort`).
 * The ways of delivering: deliver-whole.ts (an answer read whole before it is written) and deliver-stream.ts (a
 * stream relayed as it comes, pumped by pump-body.ts); delivery-headers.ts and delivery-failures.ts serve both, and
 * delivery-types.ts holds what delivery is told and answers.
 */
export async function deliver(response: UpstreamResponse, plan: DeliveryPlan, reply: RelayReply, abort: Cancel): Promise<DeliveryOutcome | UpstreamFailure | Streaming> {
  // Gemini streams a JSON array when not asked for SSE.
  const decoder = frameDecoderFor(response.contentType, plan.stream && plan.upstream.jsonArrayStreams === true);
  if (!decoder) return deliverWhole(response, plan, reply, abort);
  // A vendor that only streams (Coze) answering a client that asked for the whole answer: read it all, answer once.
  if (!plan.stream) return deliverCollected(response, decoder, plan, reply, abort);
  return deliverStream(response, decoder, plan, reply, abort);
}
