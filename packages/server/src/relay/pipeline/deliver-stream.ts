import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { Usage } from '../../billing/usage.js';
import type { StreamPart } from '../canonical.js';
import { UpstreamStreamError } from '../dialects/shared.js';
import type { Frame, StreamWriter } from '../dialects/types.js';
import type { FrameDecoder } from '../transport/frame-decoders.js';
import type { UpstreamResponse } from '../transport/send-upstream.js';
import { clientGone, streamBreak, streamFailure } from './delivery-failures.js';
import { relayHeaders, streamHeaders, writeHead } from './delivery-headers.js';
import type { DeliveryOutcome, DeliveryPlan, Streaming, UpstreamFailure } from './delivery-types.js';
import { pumpBody } from './pump-body.js';
import type { Cancel } from '../transport/cancel.js';

/** How often a stream tells how much it has delivered (for a crash takeover's charge). */
const PROGRESS_EVERY_MS = 2_000;

/** Usage and generated text read from what was delivered, for billing. */
class Tally {
  usage?: Usage;
  text = '';
  /** The answer's end arrived (its finish reason): a client leaving after it did not cut the answer short. */
  finished = false;
  add(parts: StreamPart[]): void {
    for (const part of parts) {
      if (part.type === 'usage') this.usage = part.usage;
      else if (part.type === 'finish') this.finished = true;
      else if (part.type === 'text' || part.type === 'reasoning') this.text += part.text;
      else if (part.type === 'tool_call') this.text += part.name;
      else if (part.type === 'tool_call_delta') this.text += part.arguments;
    }
  }
}

/**
 * A streamed answer relayed as it comes. Once the client's stream is open (at once, or at a codec's first bytes) it
 * answers `streaming` and the rest runs from the body's events: no async frame waits for the stream's end, only
 * `finished`, whose reactions hold what settlement needs.
 */
export function deliverStream(response: UpstreamResponse, decoder: FrameDecoder, plan: DeliveryPlan, reply: FastifyReply, abort: Cancel): Promise<DeliveryOutcome | UpstreamFailure | Streaming> {
  const res = reply.raw;
  const tally = new Tally();
  const reader = plan.upstream.createStreamReader();
  // Same dialect and the client expects these very bytes (SSE to SSE, JSON array to JSON array): relay them.
  // A provider that wraps its frames (Bedrock's binary event-stream) is re-framed instead.
  const unwrap = plan.codec?.stream?.();
  const raw = !plan.translate && !unwrap;
  const writer: StreamWriter | undefined = plan.translate ? plan.client.createStreamWriter(plan.context) : undefined;
  // A codec's stream re-framed in its dialect: the usage frames are held back and the usage billed closes the stream.
  const restamp = unwrap && !writer && plan.bill ? plan.upstream.billedUsage : undefined;
  let last: Frame | undefined;

  let opened = false;
  /** The client's socket holds the headers back until the first bytes join them (or a turn has passed). */
  let corked = false;
  const uncork = () => {
    if (!corked) return;
    corked = false;
    // An ended answer has already let go of it: node's `end` uncorks fully.
    if (!res.writableEnded) res.socket?.uncork();
  };
  const open = () => {
    if (opened) return;
    opened = true;
    reply.hijack();
    if (raw) writeHead(reply, response.status, Object.assign(relayHeaders(response, plan.requestId), { 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }));
    else writeHead(reply, 200, streamHeaders(plan));
    // The headers go out with the first bytes, in one write and one wake-up of the client, when those bytes came
    // with the upstream's headers (as they mostly do: they are relayed before this turn ends); else a turn later.
    // Corked around flushHeaders rather than left to the first write: node then writes its header string as it is,
    // which flattens it, where a first write would send a copy joined to the chunk and leave the header's pieces in
    // the heap for the life of the stream (1.2 KB per held stream, bench/README.md 2026-11-28 evening).
    corked = res.socket !== null;
    res.socket?.cork();
    res.flushHeaders();
    setImmediate(uncork);
  };
  // A vendor's own stream (a codec) opens the client's with its first bytes, so a vendor error in its first frame
  // (Spark's 11200, ERNIE's 110) is still a failure another channel may take; every other stream opens at once.
  if (!unwrap) open();

  let firstByteAt: number | undefined;
  /** Writes to the client; answers a promise only when the client's buffer is full (the upstream then waits for it). */
  const send = (data: string | Buffer): Promise<unknown> | undefined => {
    if (data.length === 0) return undefined;
    open();
    firstByteAt ??= Date.now();
    const flowing = res.write(data);
    uncork();
    return flowing ? undefined : drained(res, abort);
  };
  // Frames the client holds (counted once their bytes are sent), for an error event that must continue them.
  let decoded = 0;
  let relayed = 0;
  // What the frames read so far wrote: when a later frame of the same batch breaks the stream, the client still
  // gets what came before it (then the error event).
  let unsent = '';
  /** A re-framed stream carried its own end (OpenAI's [DONE]). */
  let closed = false;
  const handle = (frames: Frame[]): string => {
    unsent = '';
    for (const wrapped of frames) {
      decoded++;
      for (const frame of unwrap ? unwrap(wrapped) : [wrapped]) {
        const parts = reader.read(frame);
        tally.add(parts);
        if (writer) for (const part of parts) unsent += writer.write(part);
        else if (restamp) {
          // The end frame is written after the billed usage (below).
          if (frame.data === plan.upstream.endFrame) continue;
          last = frame;
          const kept = restamp.strip(frame);
          if (kept) unsent += plan.upstream.frame(kept);
        } else if (!raw) {
          unsent += plan.upstream.frame(frame);
          if (frame.data === plan.upstream.endFrame) closed = true;
        }
      }
    }
    const out = unsent;
    unsent = '';
    return out;
  };

  let reported = Date.now();
  const ended = async (): Promise<DeliveryOutcome | UpstreamFailure> => {
    try {
      return await end();
    } catch (error) {
      return failed(error);
    }
  };
  const end = async (): Promise<DeliveryOutcome> => {
    let tail = handle(decoder.end());
    open();
    // A codec's stream tells the client the usage it is billed (in the writer's last event, or a frame of its own).
    const billed = unwrap && plan.bill ? await plan.bill(tally.usage, tally.text) : undefined;
    if (billed && writer) tail += writer.write({ type: 'usage', usage: billed.usage });
    else if (billed && restamp) {
      const frame = restamp.frame(billed.usage, last, plan.context);
      if (frame) tail += plan.upstream.frame(frame);
    }
    // Re-framed frames (a codec's) end with their dialect's end frame (OpenAI's [DONE]) unless one of them was it; the
    // other dialects end with an event the frames carry.
    const endFrame = !raw && !writer && !closed && plan.upstream.endFrame ? plan.upstream.frame({ data: plan.upstream.endFrame }) : '';
    res.end(raw ? undefined : tail + (writer ? writer.end() : endFrame));
    return { kind: 'success', usage: tally.usage, text: tally.text, firstByteAt: firstByteAt ?? Date.now(), billed };
  };
  const failed = (error: unknown): DeliveryOutcome | UpstreamFailure => {
    // A client that closes as soon as it has the whole answer (Codex after response.completed) got all of it.
    if (abort.signal.aborted) return opened ? { kind: tally.finished ? 'success' : 'aborted', usage: tally.usage, text: tally.text, firstByteAt } : clientGone(reply);
    if (!opened) {
      // Nothing reached the client yet: the next channel may answer instead.
      return streamFailure(error);
    }
    const upstreamSaid = error instanceof UpstreamStreamError;
    const message = streamBreak(error);
    // Passed through, the upstream's own error event has already reached the client: it is not said twice.
    res.end(raw && upstreamSaid ? undefined : unsent + (writer ?? plan.client.createStreamWriter(plan.context, reader)).error(message, !writer && relayed > 0));
    return { kind: 'broken', usage: tally.usage, text: tally.text, message, firstByteAt };
  };
  // The body pumped from its events; `ended` (whose own errors are the stream's too) or `failed` answer the outcome.
  const finished = pumpBody(response.body, (buffer) => {
    let waiting: Promise<unknown> | undefined;
    if (raw) {
      // The bytes go out as they came (an error event of the upstream's own included); usage is read after.
      waiting = send(buffer);
      handle(decoder.push(buffer));
    } else waiting = send(handle(decoder.push(buffer)));
    relayed = decoded;
    if (plan.onProgress && Date.now() - reported >= PROGRESS_EVERY_MS) {
      reported = Date.now();
      plan.onProgress(tally.text.length);
    }
    return waiting;
  }).then(ended, failed);
  // Open from the start, a stream can no longer fail over to another channel: every outcome is delivered.
  if (opened) return Promise.resolve({ kind: 'streaming', finished: finished as Promise<DeliveryOutcome> });
  return finished;
}

/** Resolves once the client's buffer has drained; rejects when the request is cancelled (the client left) or its response fails. */
function drained(res: ServerResponse, cancel: Cancel): Promise<void> {
  return new Promise((resolve, reject) => {
    if (cancel.aborted) return reject(cancel.reason);
    const done = (error?: unknown) => {
      res.off('drain', onDrain);
      res.off('error', done);
      cancel.removeEventListener('abort', onCancel);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onDrain = () => done();
    const onCancel = () => done(cancel.reason);
    res.on('drain', onDrain);
    res.on('error', done);
    cancel.addEventListener('abort', onCancel);
  });
}
