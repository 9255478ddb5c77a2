import type { RelayReply } from './types.js';
import type { CheckedUsage } from '../../billing/check-usage.js';
import type { Usage } from '../../billing/usage.js';
import { collectStream, type ChatResponse, type StreamPart } from '../canonical.js';
import { parseEvent } from '../dialects/shared.js';
import { readImagesUsage } from '../dialects/openai-chat/response.js';
import type { FrameDecoder } from '../transport/frame-decoders.js';
import type { UpstreamResponse } from '../transport/send-upstream.js';
import { badGateway, clientGone, streamFailure, vendorFailure } from './delivery-failures.js';
import { relayHeaders, streamHeaders, writeHead } from './delivery-headers.js';
import type { DeliveryOutcome, DeliveryPlan, UpstreamFailure } from './delivery-types.js';
import { pumpBody } from './pump-body.js';
import { readStreamParts } from './read-answer.js';
import type { Cancel } from '../transport/cancel.js';

/**
 * Answers read whole before anything is written to the client: an upstream that answered whole (relayed as is, or
 * written in the client's dialect, as one go of a stream when it asked for one), and a stream read to its end for
 * a client that asked for the whole answer.
 */

/** Largest non-stream answer relayed (images as base64 can be large; anything bigger is an upstream fault). */
const MAX_BODY_BYTES = 256 * 1024 * 1024;

/** The whole body, from its events (pumpBody) rather than an async iterator's generator and promises per answer. */
async function readAll(response: UpstreamResponse): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  await pumpBody(response.body, (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error('上游响应过大');
    chunks.push(chunk);
    return undefined;
  });
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

/** An upstream's whole answer (not a stream), relayed as is or written in the client's dialect. */
export async function deliverWhole(response: UpstreamResponse, plan: DeliveryPlan, reply: RelayReply, abort: Cancel): Promise<DeliveryOutcome | UpstreamFailure> {
  let buffer: Buffer;
  try {
    buffer = await readAll(response);
  } catch (error) {
    if (abort.signal.aborted) return clientGone(reply);
    return badGateway(`上游响应中断：${(error as Error).message}`);
  }
  let json = response.contentType.includes('json') ? parseEvent(buffer.toString('utf8')) : undefined;
  let billed: CheckedUsage | undefined;
  if (plan.codec?.answer) {
    if (!json) return badGateway('上游返回了无法解析的响应');
    try {
      json = plan.codec.answer(json);
    } catch (error) {
      return vendorFailure(error);
    }
    if (plan.meter && plan.upstream.billedUsage) {
      // The client is told the usage it is billed: the vendor's report as checked, or the gateway's count.
      const seen = wholeUsage(plan, json);
      billed = await plan.meter.bill(seen.usage, seen.text);
      json = plan.upstream.billedUsage.answer(json, billed.usage, plan.endpoint);
    }
    // Written again in the dialect: the vendor's own bytes are not what the client speaks.
    buffer = Buffer.from(JSON.stringify(json));
  }
  const res = reply.raw;
  // A vendor that answers whole (DeepL) to a client that asked for a stream: written as one go of a stream below.
  if (!plan.translate && !(plan.stream && plan.codec?.answer)) {
    const usage = json ? wholeUsage(plan, json) : undefined;
    if (plan.answerAs) {
      // Asked in another API's shape (Gemini's embeddings): written in it, once its usage has been read.
      if (!json) return badGateway('上游返回了无法解析的响应');
      buffer = Buffer.from(JSON.stringify(plan.answerAs(json)));
    }
    reply.hijack();
    const headers: Record<string, string | string[]> = plan.codec?.answer || plan.answerAs ? { 'content-type': 'application/json', 'x-request-id': plan.requestId } : relayHeaders(response, plan.requestId);
    headers['content-length'] = String(buffer.length);
    writeHead(reply, response.status, headers);
    res.end(buffer);
    return { kind: 'success', usage: usage?.usage, text: usage?.text ?? '', firstByteAt: Date.now(), billed };
  }
  if (!json) return badGateway('上游返回了无法解析的响应');
  const answer = plan.upstream.parseResponse(json);
  if (plan.codec && plan.meter && !billed) billed = await plan.meter.bill(answer.usage, answerText(answer));
  return writeWhole(billed ? { ...answer, usage: billed.usage } : answer, plan, reply, billed);
}

/** The text of an answer as billing counts it (tool calls by their arguments). */
const answerText = (answer: ChatResponse) => answer.content.map((p) => (p.type === 'tool_call' ? p.arguments : p.text)).join('');

/** An answer read whole, written in the client's dialect (as one go of a stream when it asked for one). */
function writeWhole(answer: ChatResponse, plan: DeliveryPlan, reply: RelayReply, billed?: CheckedUsage): DeliveryOutcome {
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
    writeHead(reply, 200, streamHeaders(plan));
    res.end(parts.map((p) => writer.write(p)).join('') + writer.end());
  } else {
    const out = JSON.stringify(plan.client.writeResponse(answer, plan.context));
    writeHead(reply, 200, { 'content-type': 'application/json', 'x-request-id': plan.requestId, 'content-length': String(Buffer.byteLength(out)) });
    res.end(out);
  }
  return { kind: 'success', usage: answer.usage, text, firstByteAt: Date.now(), billed };
}

/** A streamed answer read to its end and written whole, for a client that did not ask for a stream. */
export async function deliverCollected(response: UpstreamResponse, decoder: FrameDecoder, plan: DeliveryPlan, reply: RelayReply, abort: Cancel): Promise<DeliveryOutcome | UpstreamFailure> {
  const unwrap = plan.codec?.stream?.();
  let parts: StreamPart[];
  try {
    parts = await readStreamParts(response.body, decoder, plan.upstream.createStreamReader(), unwrap);
  } catch (error) {
    if (abort.signal.aborted) return clientGone(reply);
    return streamFailure(error);
  }
  const answer = collectStream(parts);
  // A vendor's own stream (a codec's) read whole: the answer carries the usage it is billed.
  const billed = unwrap && plan.meter ? await plan.meter.bill(answer.usage, answerText(answer)) : undefined;
  return writeWhole(billed ? { ...answer, usage: billed.usage } : answer, plan, reply, billed);
}

/** Usage of a whole answer relayed as is: by its dialect for chat, by what OpenAI's other endpoints report. */
function wholeUsage(plan: DeliveryPlan, json: Record<string, unknown>): { usage?: Usage; text: string } {
  if (plan.endpoint === 'images') {
    const images = Array.isArray(json.data) ? json.data.length : 0;
    // GPT Image reports its tokens (billed by them); another image model is billed per image.
    const reported = readImagesUsage(json.usage) ?? plan.upstream.parseResponse(json).usage;
    return { usage: reported ?? (images ? { prompt_tokens: 0, completion_tokens: 0, images } : undefined), text: '' };
  }
  if (plan.endpoint === 'audio_transcription' || plan.endpoint === 'audio_translation') {
    return { usage: plan.upstream.parseResponse(json).usage, text: typeof json.text === 'string' ? json.text : '' };
  }
  const answer = plan.upstream.parseResponse(json);
  return { usage: answer.usage, text: answerText(answer) };
}
