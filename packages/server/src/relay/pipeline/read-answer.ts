import { collectStream, type ChatResponse } from '../canonical.js';
import { parseEvent, VendorAnswerError } from '../dialects/shared.js';
import type { Dialect, Frame } from '../dialects/types.js';
import type { VendorCodec } from '../providers/types.js';
import { frameDecoderFor } from '../transport/frame-decoders.js';
import type { UpstreamResponse } from '../transport/send-upstream.js';

/**
 * A successful upstream answer read whole into the canonical model, whatever its framing (a whole JSON body, SSE,
 * NDJSON, AWS event-stream) and through the vendor's codec: what the channel test reads, the same way the relay
 * reads an answer it delivers. A vendor error sent with a success status is a failure.
 */
export async function readAnswer(
  response: UpstreamResponse,
  dialect: Dialect,
  codec: VendorCodec | undefined,
): Promise<{ ok: true; answer: ChatResponse } | { ok: false; status: number; message: string }> {
  const decoder = frameDecoderFor(response.contentType);
  try {
    if (!decoder) {
      const json = parseEvent(await response.body.text()) ?? {};
      return { ok: true, answer: dialect.parseResponse(codec?.answer ? codec.answer(json) : json) };
    }
    const reader = dialect.createStreamReader();
    const unwrap = codec?.stream?.();
    const frames: Frame[] = [];
    for await (const chunk of response.body) frames.push(...decoder.push(chunk as Buffer));
    frames.push(...decoder.end());
    return { ok: true, answer: collectStream(frames.flatMap((frame) => (unwrap ? unwrap(frame) : [frame])).flatMap((frame) => reader.read(frame))) };
  } catch (error) {
    if (error instanceof VendorAnswerError) return { ok: false, status: error.status, message: error.message };
    throw error;
  }
}
