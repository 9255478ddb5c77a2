import { once } from 'node:events';
import type { FastifyReply } from 'fastify';
import type { ChatResponse, StreamPart } from '../canonical.js';
import type { CheckedUsage } from '../../billing/check-usage.js';
import type { Usage } from '../../billing/usage.js';
import { UpstreamStreamError, VendorAnswerError, parseEvent } from '../dialects/shared.js';
import type { Dialect, Frame, StreamWriter, WriteContext } from '../dialects/types.js';
import { collectStream } from '../canonical.js';
import type { Endpoint, VendorCodec } from '../providers/types.js';
import { frameDecoderFor, type FrameDecoder } from '../transport/frame-decoders.js';
import type { UpstreamResponse } from '../transport/send-upstream.js';

/** What happened once an upstream answered without an error status. */
export type DeliveryOutcome = (
  | { kind: 'success'; usage?: Usage; text: string }
  | { kind: 'broken'; usage?: Usage; text: string; message: string }
  | { kind: 'aborted'; usage?: Usage; text: string }
) & {
  /** When the client got the answer's first byte (epoch ms), if it did. */
  firstByteAt?: number;
  /** The usage billed, already checked and written into the client's answer (a codec's answer): settled as it is. */
  billed?: CheckedUsage;
};

/**
 * A stream that reached the client and goes on from its body's events: it can no longer fail over, and `finished`
 * answers how it ended: an upstream's error ends the client's stream and answers `broken`; it rejects only on a
 * fault of the gateway's own (the end of the stream could not be written).
 */
export interface Streaming {
  kind: 'streaming';
  finished: Promise<DeliveryOutcome>;
}

/** A failure the client has not seen yet: the next channel may be tried. */
export interface UpstreamFailure {
  kind: 'failure';
  status: number;
  body: string;
}

export interface DeliveryPlan {
  endpoint: Endpoint;
  /** The client's dialect (answers and errors are written in it). */
  client: Dialect;
  /** The dialect of the upstream's answer. */
  upstream: Dialect;
  /** The vendor's own wire around the upstream dialect, when it has one (providers/types.ts VendorCodec). */
  codec?: VendorCodec;
  /** Client and upstream speak differently: answers go through the canonical model. */
  translate: boolean;
  /** The client asked for a stream. */
  stream: boolean;
  context: WriteContext;
  /** The gateway's id of the request (the X-Request-Id header). */
  requestId: string;
  /** Told how many characters a stream has delivered, every few seconds (for a crash takeover's charge). */
  onProgress?: (deliveredChars: number) => void;
  /**
   * The usage the request will be billed for what the upstream reported (or nothing) and the text delivered
   * (billing/meter.ts `bill`). An answer a codec wrote carries it to the client: the usage it is charged.
   */
  bill?: (reported: Usage | undefined, text: string) => Promise<CheckedUsage>;
}

const PROGRESS_EVERY_MS = 2_000;

const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'set-cookie', 'server', 'date']);
/** Largest non-stream answer relayed (images as base64 can be large; anything bigger is an upstream fault). */
const MAX_BODY_BYTES = 256 * 1024 * 1024;

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
 * Delivery (docs/architecture.md, the request path): relays an upstream answer to the client and reads its usage
 * on the side.
 *  - same dialect: the bytes pass through as they arrive (a stream whose framing differs, such as Bedrock's
 *    binary event-stream carrying Anthropic events, is re-framed event by event, never re-built);
 *  - different dialects: each frame is read into canonical parts and written in the client's dialect.
 * An upstream that breaks mid-stream ends the client's stream with its dialect's own error event; a client
 * that leaves cancels the upstream call (through `abort`).
 */
export async function deliver(response: UpstreamResponse, plan: DeliveryPlan, reply: FastifyReply, abort: AbortController): Promise<DeliveryOutcome | UpstreamFailure | Streaming> {
  // Gemini streams a JSON array when not asked for SSE.
  const decoder = frameDecoderFor(response.contentType, plan.stream && plan.upstream.jsonArrayStreams === true);
  if (!decoder) return deliverWhole(response, plan, reply, abort);
  // A vendor that only streams (Coze) answering a client that asked for the whole answer: read it all, answer once.
  if (!plan.stream) return deliverCollected(response, decoder, plan, reply, abort);
  return deliverStream(response, decoder, plan, reply, abort);
}


function relayHeaders(response: UpstreamResponse, requestId: string): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { 'x-request-id': requestId };
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined && !HOP_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  return headers;
}

/** The client left before an answer was sent: nothing more to write, and fastify must not try to. */
function clientGone(reply: FastifyReply): DeliveryOutcome {
  reply.hijack();
  reply.raw.destroy();
  return { kind: 'aborted', text: '' };
}

async function readAll(response: UpstreamResponse): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('上游响应过大');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function deliverWhole(response: UpstreamResponse, plan: DeliveryPlan, reply: FastifyReply, abort: AbortController): Promise<DeliveryOutcome | UpstreamFailure> {
  let buffer: Buffer;
  try {
    buffer = await readAll(response);
  } catch (error) {
    if (abort.signal.aborted) return clientGone(reply);
    return { kind: 'failure', status: 502, body: JSON.stringify({ error: { message: `上游响应中断：${(error as Error).message}` } }) };
  }
  let json = response.contentType.includes('json') ? parseEvent(buffer.toString('utf8')) : undefined;
  let billed: CheckedUsage | undefined;
  if (plan.codec?.answer) {
    if (!json) return { kind: 'failure', status: 502, body: JSON.stringify({ error: { message: '上游返回了无法解析的响应' } }) };
    try {
      json = plan.codec.answer(json);
    } catch (error) {
      return vendorFailure(error);
    }
    if (plan.bill && plan.upstream.billedUsage) {
      // The client is told the usage it is billed: the vendor's report as checked, or the gateway's count.
      const seen = wholeUsage(plan, json);
      billed = await plan.bill(seen.usage, seen.text);
      json = plan.upstream.billedUsage.answer(json, billed.usage, plan.endpoint);
    }
    // Written again in the dialect: the vendor's own bytes are not what the client speaks.
    buffer = Buffer.from(JSON.stringify(json));
  }
  const res = reply.raw;
  // A vendor that answers whole (DeepL) to a client that asked for a stream: written as one go of a stream below.
  if (!plan.translate && !(plan.stream && plan.codec?.answer)) {
    const usage = json ? wholeUsage(plan, json) : undefined;
    reply.hijack();
    const headers = plan.codec?.answer ? { 'content-type': 'application/json', 'x-request-id': plan.requestId } : relayHeaders(response, plan.requestId);
    res.writeHead(response.status, { ...headers, 'content-length': String(buffer.length) });
    res.end(buffer);
    return { kind: 'success', usage: usage?.usage, text: usage?.text ?? '', firstByteAt: Date.now(), billed };
  }
  if (!json) return { kind: 'failure', status: 502, body: JSON.stringify({ error: { message: '上游返回了无法解析的响应' } }) };
  const answer = plan.upstream.parseResponse(json);
  if (plan.codec && plan.bill && !billed) billed = await plan.bill(answer.usage, answerText(answer));
  return writeWhole(billed ? { ...answer, usage: billed.usage } : answer, plan, reply, billed);
}

/** The text of an answer as billing counts it (tool calls by their arguments). */
const answerText = (answer: ChatResponse) => answer.content.map((p) => (p.type === 'tool_call' ? p.arguments : p.text)).join('');

/** A vendor's error answered with a success status: a failure the next channel may take over. */
function vendorFailure(error: unknown): UpstreamFailure {
  if (!(error instanceof VendorAnswerError)) throw error;
  return { kind: 'failure', status: error.status, body: JSON.stringify({ error: { message: error.message } }) };
}

/** An answer read whole, written in the client's dialect (as one go of a stream when it asked for one). */
function writeWhole(answer: ChatResponse, plan: DeliveryPlan, reply: FastifyReply, billed?: CheckedUsage): DeliveryOutcome {
  const res = reply.raw;
  const text = answerText(answer);
  reply.hijack();
  if (plan.stream) {
    // Asked for a stream, answered whole: the answer is streamed in one go in the client's dialect.
    const writer = plan.client.createStreamWriter(plan.context);
    const parts: StreamPart[] = [{ type: 'start', id: answer.id, model: answer.model }];
    answer.content.forEach((part, index) => {
      if (part.type === 'tool_call') parts.push({ type: 'tool_call', index, id: part.id, name: part.name, signature: part.signature }, { type: 'tool_call_delta', index, arguments: part.arguments });
      else parts.push(part.type === 'text' ? { type: 'text', text: part.text } : { type: 'reasoning', text: part.text, signature: part.signature, redacted: part.redacted });
    });
    parts.push({ type: 'finish', reason: answer.finishReason });
    if (answer.usage) parts.push({ type: 'usage', usage: answer.usage });
    res.writeHead(200, streamHeaders(plan));
    res.end(parts.map((p) => writer.write(p)).join('') + writer.end());
  } else {
    const out = JSON.stringify(plan.client.writeResponse(answer, plan.context));
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': plan.requestId, 'content-length': String(Buffer.byteLength(out)) });
    res.end(out);
  }
  return { kind: 'success', usage: answer.usage, text, firstByteAt: Date.now(), billed };
}

/** A streamed answer read to its end and written whole, for a client that did not ask for a stream. */
async function deliverCollected(response: UpstreamResponse, decoder: FrameDecoder, plan: DeliveryPlan, reply: FastifyReply, abort: AbortController): Promise<DeliveryOutcome | UpstreamFailure> {
  const reader = plan.upstream.createStreamReader();
  const unwrap = plan.codec?.stream?.();
  const parts: StreamPart[] = [];
  const read = (frames: Frame[]) => {
    for (const frame of frames) for (const f of unwrap ? unwrap(frame) : [frame]) parts.push(...reader.read(f));
  };
  try {
    await eachChunk(response.body, (chunk) => {
      read(decoder.push(chunk));
      return undefined;
    });
    read(decoder.end());
  } catch (error) {
    if (abort.signal.aborted) return clientGone(reply);
    if (error instanceof VendorAnswerError) return vendorFailure(error);
    const message = error instanceof UpstreamStreamError ? `上游返回错误：${error.message}` : '上游流式响应中断';
    return { kind: 'failure', status: 502, body: JSON.stringify({ error: { message } }) };
  }
  const answer = collectStream(parts);
  // A vendor's own stream (a codec's) read whole: the answer carries the usage it is billed.
  const billed = unwrap && plan.bill ? await plan.bill(answer.usage, answerText(answer)) : undefined;
  return writeWhole(billed ? { ...answer, usage: billed.usage } : answer, plan, reply, billed);
}

/** Usage of a whole answer relayed as is: by its dialect for chat, by what OpenAI's other endpoints report. */
function wholeUsage(plan: DeliveryPlan, json: Record<string, unknown>): { usage?: Usage; text: string } {
  if (plan.endpoint === 'images') {
    const images = Array.isArray(json.data) ? json.data.length : 0;
    const reported = plan.upstream.parseResponse(json).usage;
    return { usage: reported ?? (images ? { prompt_tokens: 0, completion_tokens: 0, images } : undefined), text: '' };
  }
  if (plan.endpoint === 'audio_transcription' || plan.endpoint === 'audio_translation') {
    return { usage: plan.upstream.parseResponse(json).usage, text: typeof json.text === 'string' ? json.text : '' };
  }
  const answer = plan.upstream.parseResponse(json);
  return { usage: answer.usage, text: answerText(answer) };
}

function streamHeaders(plan: DeliveryPlan): Record<string, string> {
  // Gemini's JSON-array stream is one JSON document sent piece by piece.
  const type = plan.context.jsonArray ? 'application/json; charset=UTF-8' : plan.client.streamContentType;
  return { 'content-type': type, 'cache-control': 'no-cache', 'x-accel-buffering': 'no', 'x-request-id': plan.requestId };
}

/**
 * A streamed answer relayed as it comes. Once the client's stream is open (at once, or at a codec's first bytes) it
 * answers `streaming` and the rest runs from the body's events: no async frame waits for the stream's end, only
 * `finished`, whose reactions hold what settlement needs.
 */
function deliverStream(response: UpstreamResponse, decoder: FrameDecoder, plan: DeliveryPlan, reply: FastifyReply, abort: AbortController): Promise<DeliveryOutcome | UpstreamFailure | Streaming> {
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
  const open = () => {
    if (opened) return;
    opened = true;
    reply.hijack();
    if (raw) res.writeHead(response.status, { ...relayHeaders(response, plan.requestId), 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    else res.writeHead(200, streamHeaders(plan));
    res.flushHeaders();
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
    return res.write(data) ? undefined : once(res, 'drain', { signal: abort.signal });
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
      if (error instanceof VendorAnswerError) return vendorFailure(error);
      const message = error instanceof UpstreamStreamError ? `上游返回错误：${error.message}` : '上游流式响应中断';
      return { kind: 'failure', status: 502, body: JSON.stringify({ error: { message } }) };
    }
    const upstreamSaid = error instanceof UpstreamStreamError;
    const message = upstreamSaid ? `上游返回错误：${error.message}` : '上游流式响应中断';
    // Passed through, the upstream's own error event has already reached the client: it is not said twice.
    res.end(raw && upstreamSaid ? undefined : unsent + (writer ?? plan.client.createStreamWriter(plan.context, reader)).error(message, !writer && relayed > 0));
    return { kind: 'broken', usage: tally.usage, text: tally.text, message, firstByteAt };
  };
  // The body pumped from its events; `ended` (whose own errors are the stream's too) or `failed` answer the outcome.
  const finished = eachChunk(response.body, (buffer) => {
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

/**
 * Calls `onChunk` for each chunk of a body as it arrives, pausing the body while a returned promise (the client's
 * buffer is full) is pending; resolves at its end, rejects on its error or `onChunk`'s. Event-driven rather than
 * `for await`: an async iterator keeps a generator, its promises and closures alive for every open stream.
 */
function eachChunk(body: UpstreamResponse['body'], onChunk: (chunk: Buffer) => Promise<unknown> | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      body.off('end', finish);
      body.off('error', finish);
      if (error === undefined) resolve();
      else {
        body.destroy();
        reject(error);
      }
    };
    function onData(chunk: Buffer) {
      let waiting: Promise<unknown> | undefined;
      try {
        waiting = onChunk(chunk);
      } catch (error) {
        return finish(error);
      }
      if (!waiting) return;
      body.pause();
      waiting.then(() => !settled && body.resume(), finish);
    }
    // `on`, not `once` (its wrapper costs an object and a bound function per open stream): `finish` removes the data
    // and end listeners; the error listener stays, for an error after the end.
    body.on('data', onData);
    body.on('end', finish);
    body.on('error', (error: unknown) => finish(error ?? new Error('upstream body failed')));
  });
}
