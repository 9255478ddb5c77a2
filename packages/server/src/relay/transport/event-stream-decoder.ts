import type { MessageHeaders } from '@smithy/core/event-streams';
import { optional } from '../../lib/optional-modules.js';
import { UpstreamStreamError } from '../dialects/shared.js';
import type { Frame } from '../dialects/types.js';
import type { FrameDecoder } from './frame-decoders.js';

/** Prelude (total length, headers length, prelude CRC) and the message CRC: the smallest possible message. */
const MIN_MESSAGE_BYTES = 16;
/** The format's limit on one message (https://smithy.io/2.0/aws/amazon-eventstream.html): more is a broken stream. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * AWS event-stream (application/vnd.amazon.eventstream, Bedrock's ConverseStream and
 * InvokeModelWithResponseStream): binary messages, each a prelude with its total length, typed headers, a payload
 * and CRC32 checksums. The total length at the head of each message delimits it; @smithy/core's codec (the AWS
 * SDK's own) checks both checksums and reads the headers. An `event` message becomes a frame named by its
 * `:event-type`; an `exception` or `error` message is the upstream reporting a failure mid-stream and ends it as
 * an UpstreamStreamError. Only the bytes of an incomplete message are kept between chunks.
 */
export class EventStreamDecoder implements FrameDecoder {
  private readonly codec = newCodec();
  private pending: Buffer = Buffer.alloc(0);
  /** A failure met after some frames of the same chunk: those are handed out first, the failure on the next call. */
  private failure: unknown;

  push(chunk: Buffer): Frame[] {
    if (this.failure !== undefined) throw this.failure;
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const frames: Frame[] = [];
    try {
      while (this.pending.length >= 4) {
        const length = this.pending.readUInt32BE(0);
        if (length < MIN_MESSAGE_BYTES || length > MAX_MESSAGE_BYTES) throw new Error(`invalid event-stream message length ${length}`);
        if (this.pending.length < length) break;
        const message = this.codec.decode(this.pending.subarray(0, length));
        this.pending = this.pending.subarray(length);
        frames.push(toFrame(message.headers, optional.smithySerde().toUtf8(message.body)));
      }
    } catch (error) {
      if (frames.length === 0) throw error;
      this.failure = error;
      this.pending = Buffer.alloc(0);
      return frames;
    }
    // Hold no reference to a large chunk for the sake of a few trailing bytes.
    if (this.pending.length > 0 && this.pending.length < 4096 && this.pending.byteOffset > 0) this.pending = Buffer.from(this.pending);
    return frames;
  }

  end(): Frame[] {
    if (this.failure !== undefined) throw this.failure;
    if (this.pending.length > 0) throw new Error('event-stream ended inside a message');
    return [];
  }
}

function newCodec() {
  const { toUtf8, fromUtf8 } = optional.smithySerde();
  return new (optional.smithyEventStreams().EventStreamCodec)(toUtf8, fromUtf8);
}

function toFrame(headers: MessageHeaders, payload: string): Frame {
  const header = (name: string) => {
    const value = headers[name]?.value;
    return typeof value === 'string' ? value : undefined;
  };
  const type = header(':message-type') ?? 'event';
  if (type === 'exception') throw new UpstreamStreamError(describe(header(':exception-type'), payload));
  if (type === 'error') throw new UpstreamStreamError(describe(header(':error-code'), header(':error-message') ?? payload));
  return { event: header(':event-type'), data: payload };
}

/** "<type>: <message>" from an exception's JSON payload ({"message": …}) or its raw text. */
function describe(type: string | undefined, payload: string): string {
  let message = payload;
  try {
    const parsed = JSON.parse(payload) as { message?: unknown; Message?: unknown };
    const text = parsed.message ?? parsed.Message;
    if (typeof text === 'string') message = text;
  } catch {
    /* not JSON: the text itself */
  }
  return [type, message.slice(0, 500)].filter(Boolean).join(': ');
}
