import type { RelayReply } from './types.js';
import type { ServerResponse } from 'node:http';
import type { Usage } from '../../billing/usage.js';
import type { StreamPart } from '../canonical.js';
import { UpstreamStreamError } from '../dialects/shared.js';
import type { Dialect, Frame, StreamWriter } from '../dialects/types.js';
import type { FrameDecoder } from '../transport/frame-decoders.js';
import type { UpstreamResponse } from '../transport/send-upstream.js';
import { clientGone, streamBreak, streamFailure } from './delivery-failures.js';
import { relayHeaders, streamHeaders, writeHead } from './delivery-headers.js';
import type { DeliveryOutcome, DeliveryPlan, Streaming, UpstreamFailure } from './delivery-types.js';
import type { Cancel } from '../transport/cancel.js';
import { drained, drainTimedOut, onBodyClose, onBodyData, onBodyEnd, onBodyError, RELAY, type PumpedBody, type RelayedResponse } from './stream-events.js';

/**
 * A streamed answer relayed to the client as it comes (deliver.ts): the one object a stream holds, its state, and what
 * it does with each chunk of the upstream's body, its end and its failure. The events that drive it: stream-events.ts.
 */

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
export function deliverStream(response: UpstreamResponse, decoder: FrameDecoder, plan: DeliveryPlan, reply: RelayReply, abort: Cancel): Promise<DeliveryOutcome | UpstreamFailure | Streaming> {
  const relay = new StreamRelay(response, decoder, plan, reply, abort);
  // A vendor's own stream (a codec) opens the client's with its first bytes, so a vendor error in its first frame
  // (Spark's 11200, ERNIE's 110) is still a failure another channel may take; every other stream opens at once.
  if (!relay.unwrap) relay.open();
  const finished = relay.pump();
  // Open, a stream can no longer fail over to another channel: every outcome is delivered.
  if (relay.opened) return Promise.resolve({ kind: 'streaming', finished: finished as Promise<DeliveryOutcome> });
  // A codec's stream is `streaming` from its first bytes on (so that nothing of the attempt, the parsed client body
  // included, waits with it for its end); an outcome before them (a failure, or an end with nothing) is answered as it is.
  return new Promise((resolve, reject) => {
    relay.onOpen = () => resolve({ kind: 'streaming', finished: finished as Promise<DeliveryOutcome> });
    finished.then(resolve, reject);
  });
}

/**
 * One stream's state, as an object rather than closures: a stream open for minutes holds this, its tally and its
 * reader, and no function of its own (bench/README.md, what a stream holds). The body's events reach it through
 * module-level listeners (stream-events.ts) that find it on the body (`RELAY`).
 */
export class StreamRelay {
  readonly res: ServerResponse;
  readonly tally = new Tally();
  readonly reader: ReturnType<Dialect['createStreamReader']>;
  /** A provider that wraps its frames (Bedrock's binary event-stream) is re-framed. */
  readonly unwrap: ReturnType<NonNullable<NonNullable<DeliveryPlan['codec']>['stream']>> | undefined;
  /** Same dialect and the client expects these very bytes (SSE to SSE, JSON array to JSON array): relayed as they are. */
  readonly raw: boolean;
  readonly writer: StreamWriter | undefined;
  /** A codec's stream re-framed in its dialect: the usage frames are held back and the usage billed closes the stream. */
  readonly restamp: Dialect['billedUsage'] | undefined;
  /** The upstream's status and headers, until the client's head is written. */
  private head: Pick<UpstreamResponse, 'status' | 'headers'> | undefined;
  private readonly body: PumpedBody;
  last: Frame | undefined = undefined;
  opened = false;
  /** The client's socket holds the headers back until the first bytes join them (or a turn has passed). */
  corked = false;
  /**
   * Relayed as they are, the bytes of the head's tick: written with the head in one write at the tick's end (an
   * upstream read holding several events gives one data event each) and read for the usage only once they have gone.
   */
  unread: Buffer[] | undefined = undefined;
  firstByteAt: number | undefined = undefined;
  /** Frames the client holds (counted once their bytes are sent), for an error event that must continue them. */
  decoded = 0;
  relayed = 0;
  /** What the frames read so far wrote: when a later frame of the same batch breaks the stream, the client still gets what came before it (then the error event). */
  unsent = '';
  /** A re-framed stream carried its own end (OpenAI's [DONE]). */
  closed = false;
  reported = Date.now();
  /** The body's events are no longer listened to: its end, its error, or a failure of the relay's own. */
  stopped = false;
  /** The client left and the upstream is read on for its usage (`drainAfterClientLeft`): nothing more is written. */
  draining = false;
  /** The client left after the answer's end had arrived: it got the whole answer. */
  leftAfterEnd = false;
  drainTimer: NodeJS.Timeout | undefined = undefined;
  /** Told when the client's stream opens late (a codec's, at its first bytes): the delivery is then under way. */
  onOpen: (() => void) | undefined = undefined;
  private resolve: (outcome: DeliveryOutcome | UpstreamFailure) => void = noop;
  private reject: (fault: unknown) => void = noop;

  constructor(
    response: UpstreamResponse,
    readonly decoder: FrameDecoder,
    readonly plan: DeliveryPlan,
    readonly reply: RelayReply,
    readonly abort: Cancel,
  ) {
    this.res = reply.raw;
    this.body = response.body;
    this.head = { status: response.status, headers: response.headers };
    this.reader = plan.upstream.createStreamReader();
    this.unwrap = plan.codec?.stream?.();
    this.raw = !plan.translate && !this.unwrap;
    this.writer = plan.translate ? plan.client.createStreamWriter(plan.context) : undefined;
    this.restamp = this.unwrap && !this.writer && plan.meter ? plan.upstream.billedUsage : undefined;
  }

  /** See `drainAfterClientLeft` (stream-events.ts). */
  clientLeft(): boolean {
    if (this.stopped || this.draining || !this.opened || !(this.plan.drainMs > 0)) return false;
    this.draining = true;
    this.leftAfterEnd = this.tally.finished;
    this.drainTimer = setTimeout(drainTimedOut, this.plan.drainMs, this);
    // A body held back for the client's full buffer goes on: nobody reads that buffer any more.
    if (this.body.isPaused()) this.body.resume();
    return true;
  }

  /** What a stream the client left is settled as: the whole answer if its end had reached the client, else cut short. */
  leftOutcome(): DeliveryOutcome {
    const { tally } = this;
    const whole = this.draining ? this.leftAfterEnd : tally.finished;
    return { kind: whole ? 'success' : 'aborted', usage: tally.usage, text: tally.text, firstByteAt: this.firstByteAt };
  }

  uncork(): void {
    if (!this.corked) return;
    this.corked = false;
    // An ended answer has already let go of it: node's `end` uncorks fully.
    if (!this.res.writableEnded) this.res.socket?.uncork();
  }

  open(): void {
    if (this.opened) return;
    this.opened = true;
    const { reply, res, plan, head } = this;
    this.head = undefined;
    (res as RelayedResponse)[RELAY] = this;
    reply.hijack();
    if (this.raw) writeHead(reply, head!.status, Object.assign(relayHeaders(head!, plan.requestId), { 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }));
    else writeHead(reply, 200, streamHeaders(plan));
    // The headers go out with the first bytes, in one write and one wake-up of the client, when those bytes came
    // with the upstream's headers (as they mostly do: they are relayed before this turn ends); else a turn later.
    // Corked around flushHeaders rather than left to the first write: node then writes its header string as it is,
    // which flattens it, where a first write would send a copy joined to the chunk and leave the header's pieces in
    // the heap for the life of the stream (1.2 KB per held stream, bench/README.md 2026-11-28 evening).
    this.corked = res.socket !== null;
    res.socket?.cork();
    res.flushHeaders();
    setImmediate(uncorkLater, this);
    const onOpen = this.onOpen;
    this.onOpen = undefined;
    onOpen?.();
  }

  /** Writes to the client; answers a promise only when the client's buffer is full (the upstream then waits for it). */
  send(data: string | Buffer): Promise<unknown> | undefined {
    if (data.length === 0) return undefined;
    this.open();
    this.firstByteAt ??= Date.now();
    const flowing = this.res.write(data);
    // Re-written (translated) the head goes with the first event at once: each event costs its translation. Relayed
    // as they are, the bytes of the head's tick go with it at the tick's end (`chunk`).
    if (!this.raw) this.uncork();
    return flowing ? undefined : drained(this.res, this.abort);
  }

  handle(frames: Frame[]): string {
    const { plan, unwrap, reader, tally, writer, restamp } = this;
    this.unsent = '';
    for (const wrapped of frames) {
      this.decoded++;
      for (const frame of unwrap ? unwrap(wrapped) : [wrapped]) {
        const parts = reader.read(frame);
        tally.add(parts);
        if (writer) for (const part of parts) this.unsent += writer.write(part);
        else if (restamp) {
          // The end frame is written after the billed usage (below).
          if (frame.data === plan.upstream.endFrame) continue;
          this.last = frame;
          const kept = restamp.strip(frame);
          if (kept) this.unsent += plan.upstream.frame(kept);
        } else if (!this.raw) {
          this.unsent += plan.upstream.frame(frame);
          if (frame.data === plan.upstream.endFrame) this.closed = true;
        }
      }
    }
    const out = this.unsent;
    this.unsent = '';
    return out;
  }

  /** One chunk of the body: relayed (or read and re-written), and the client's full buffer waited for. */
  chunk(buffer: Buffer): Promise<unknown> | undefined {
    let waiting: Promise<unknown> | undefined;
    if (this.draining) {
      this.readUnread();
      this.handle(this.decoder.push(buffer));
    } else if (this.raw) {
      // The bytes go out as they came (an error event of the upstream's own included); usage is read after.
      waiting = this.send(buffer);
      if (this.corked) {
        // The head's tick: its bytes go out together when it ends, as the bare node:http pass-through writes them
        // (one write, one wake-up of the client), and are read once they have gone, not before the first byte.
        if (!this.unread) process.nextTick(flushHead, this);
        (this.unread ??= []).push(buffer);
        return waiting;
      }
      this.handle(this.decoder.push(buffer));
    } else waiting = this.send(this.handle(this.decoder.push(buffer)));
    this.relayed = this.decoded;
    const { plan } = this;
    if (plan.meter && Date.now() - this.reported >= PROGRESS_EVERY_MS) {
      this.reported = Date.now();
      plan.meter.progress(this.tally.text.length);
    }
    return waiting;
  }

  /** Reads (for the usage) the bytes the head's tick relayed, once; before the stream's end or failure is told. */
  readUnread(): void {
    const unread = this.unread;
    if (!unread) return;
    this.unread = undefined;
    for (const buffer of unread) this.handle(this.decoder.push(buffer));
    this.relayed = this.decoded;
  }

  async end(): Promise<DeliveryOutcome> {
    this.readUnread();
    const { plan, tally, writer, restamp, raw } = this;
    let tail = this.handle(this.decoder.end());
    if (this.draining) {
      const billed = this.unwrap && plan.meter ? await plan.meter.bill(tally.usage, tally.text) : undefined;
      return { ...this.leftOutcome(), billed };
    }
    this.open();
    // A codec's stream tells the client the usage it is billed (in the writer's last event, or a frame of its own).
    const billed = this.unwrap && plan.meter ? await plan.meter.bill(tally.usage, tally.text) : undefined;
    if (billed && writer) tail += writer.write({ type: 'usage', usage: billed.usage });
    else if (billed && restamp) {
      const frame = restamp.frame(billed.usage, this.last, plan.context);
      if (frame) tail += plan.upstream.frame(frame);
    }
    // Re-framed frames (a codec's) end with their dialect's end frame (OpenAI's [DONE]) unless one of them was it; the
    // other dialects end with an event the frames carry.
    const endFrame = !raw && !writer && !this.closed && plan.upstream.endFrame ? plan.upstream.frame({ data: plan.upstream.endFrame }) : '';
    this.res.end(raw ? undefined : tail + (writer ? writer.end() : endFrame));
    return { kind: 'success', usage: tally.usage, text: tally.text, firstByteAt: this.firstByteAt ?? Date.now(), billed };
  }

  failed(error: unknown): DeliveryOutcome | UpstreamFailure {
    try {
      this.readUnread();
    } catch {
      // A frame the client already has could not be read: the failure at hand is told, with what was read.
    }
    const { tally, plan, writer } = this;
    // A client that closes as soon as it has the whole answer (Codex after response.completed) got all of it. A
    // stream read on after its client left (cut when its time ran out, or broken) has no client to tell.
    if (this.draining || this.abort.signal.aborted) return this.opened ? this.leftOutcome() : clientGone(this.reply);
    if (!this.opened) {
      // Nothing reached the client yet: the next channel may answer instead.
      return streamFailure(error);
    }
    const upstreamSaid = error instanceof UpstreamStreamError;
    const message = streamBreak(error);
    // Passed through, the upstream's own error event has already reached the client: it is not said twice.
    this.res.end(this.raw && upstreamSaid ? undefined : this.unsent + (writer ?? plan.client.createStreamWriter(plan.context, this.reader)).error(message, !writer && this.relayed > 0));
    return { kind: 'broken', usage: tally.usage, text: tally.text, message, firstByteAt: this.firstByteAt };
  }

  /**
   * Pumps the body from its events (as pump-body.ts does, with listeners shared by every stream): each chunk relayed,
   * the body paused while the client's buffer is full; answers the outcome, `end`'s or `failed`'s (`end`'s own errors
   * are the stream's too).
   */
  pump(): Promise<DeliveryOutcome | UpstreamFailure> {
    const { body } = this;
    const finished = new Promise<DeliveryOutcome | UpstreamFailure>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // A body that failed (or was destroyed) before anything listened has no events left to give: the upstream broke
    // while the relay waited to read it (the reservation's commit). Waiting for its events would hold the client's
    // stream and the reservation open for ever.
    if (body.destroyed) {
      this.stop(body.errored ?? new Error('upstream body closed before it was read'));
      return finished;
    }
    body[RELAY] = this;
    // `on`, not `once` (its wrapper costs an object and a bound function per open stream): `stop` removes the data,
    // end and close listeners; the error listener stays, for an error after the end.
    body.on('data', onBodyData);
    body.on('end', onBodyEnd);
    body.on('close', onBodyClose);
    body.on('error', onBodyError);
    return finished;
  }

  /**
   * The body's end, or its failure (then the body is destroyed): the listeners go, and the outcome is answered once.
   * `finished` rejects only on a fault of the gateway's own (the end of the stream could not be written).
   */
  stop(error?: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    const { body } = this;
    body.off('data', onBodyData);
    body.off('end', onBodyEnd);
    body.off('close', onBodyClose);
    if (error === undefined) {
      this.end().then(this.resolve, (failure: unknown) => this.answerFailure(failure));
      return;
    }
    body.destroy();
    this.answerFailure(error);
  }

  private answerFailure(error: unknown): void {
    try {
      this.resolve(this.failed(error));
    } catch (fault) {
      this.reject(fault);
    }
  }
}

const noop = () => undefined;

function uncorkLater(relay: StreamRelay): void {
  relay.uncork();
}

/** The end of the head's tick on a stream relayed as it is: the head and the tick's bytes go out, then are read. */
function flushHead(relay: StreamRelay): void {
  relay.uncork();
  if (relay.stopped) return;
  try {
    relay.readUnread();
  } catch (error) {
    relay.stop(error);
  }
}
