import { collectStream, type ChatResponse, type StreamPart } from '../canonical.js';
import { parseEvent, VendorAnswerError } from '../dialects/shared.js';
import type { Dialect, Frame, StreamReader } from '../dialects/types.js';
import type { VendorCodec } from '../providers/types.js';
import { frameDecoderFor, type FrameDecoder } from '../transport/frame-decoders.js';
import type { UpstreamResponse } from '../transport/send-upstream.js';
import { pumpBody } from './pump-body.js';

/**
 * A streamed body read to its end into canonical parts: each chunk's frames, through the vendor's unwrapping when it
 * has one, read by the upstream dialect's reader. Shared by the relay (a stream collected for a client that asked
 * for the whole answer) and the channel test.
 */
export async function readStreamParts(body: UpstreamResponse['body'], decoder: FrameDecoder, reader: StreamReader, unwrap?: (frame: Frame) => Frame[]): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  const read = (frames: Frame[]) => {
    for (const frame of frames) for (const f of unwrap ? unwrap(frame) : [frame]) parts.push(...reader.read(f));
  };
  await pumpBody(body, (chunk) => {
    read(decoder.push(chunk));
    return undefined;
  });
  read(decoder.end());
  return parts;
}

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
    return { ok: true, answer: collectStream(await readStreamParts(response.body, decoder, dialect.createStreamReader(), codec?.stream?.())) };
  } catch (error) {
    if (error instanceof VendorAnswerError) return { ok: false, status: error.status, message: error.message };
    throw error;
  }
}
