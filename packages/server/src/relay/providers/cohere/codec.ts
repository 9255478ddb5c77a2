import { asArray, asNumber, asString, isRecord, nowSeconds, parseEvent, VendorAnswerError } from '../../dialects/shared.js';
import type { Frame } from '../../dialects/types.js';
import type { VendorCodec } from '../types.js';
import { collectText } from '../../dialects/media.js';
import { chatMedia } from '../../dialects/openai-chat/index.js';
import { flatMap } from '../../../lib/arrays.js';
import { float32Base64 } from '../embeddings.js';

/**
 * Cohere's answers read as OpenAI's (https://docs.cohere.com/reference/chat, /reference/embed, /reference/rerank):
 * a chat answer (or its SSE stream of typed events) as a chat.completion (chunks), an Embed answer as OpenAI's
 * embeddings list, a Rerank answer in the Cohere/Jina shape with its search units as usage. One codec reads all
 * three: the answer's own fields say which it is.
 */
/** The prompt Cohere's v2 chat was sent: its messages, images (OpenAI's `image_url` parts) left out. */
const coherePrompt = (sent: Record<string, unknown>): string => collectText([sent.messages], chatMedia);

export function cohereCodec(model: string): VendorCodec {
  return {
    prompt: coherePrompt,
    answer: (json) => (Array.isArray(json.results) ? rerankAnswer(json) : isRecord(json.embeddings) ? embedAnswer(json, model) : chatAnswer(json, model)),
    stream: () => streamReader(model),
  };
}

/**
 * Rerank is billed by search units (a query with up to 100 documents; a document over the model's context is split
 * into chunks that count as documents). The gateway prices a search unit as SEARCH_UNIT_TOKENS prompt tokens: a
 * rerank model's ModelRatio is its list price per 1K searches / 0.2 (rerank-v3.5 at US$2 per 1K searches is ratio 10:
 * 100 tokens x 10 x US$0.002 / 1K = US$0.002 a search). 100 keeps the reported tokens between what a search's text
 * could hold and the request's own token bound, so the usage check bills them as reported.
 */
export const SEARCH_UNIT_TOKENS = 100;

function rerankAnswer(json: Record<string, unknown>): Record<string, unknown> {
  const billed = billedUnits(json.meta);
  const units = asNumber(billed.search_units) ?? 0;
  const results = asArray(json.results)
    .filter(isRecord)
    .map((r) => ({ index: r.index, relevance_score: r.relevance_score }));
  const out: Record<string, unknown> = { id: json.id, results };
  if (units > 0) out.usage = { prompt_tokens: units * SEARCH_UNIT_TOKENS, total_tokens: units * SEARCH_UNIT_TOKENS };
  return out;
}

/**
 * Embeddings come back as the type asked for (adapter.ts): floats, or, for a client that asked OpenAI for base64, the
 * floats written as OpenAI writes them (float32 little-endian, base64); the base64 Cohere returns alongside only
 * marks that request (its byte layout is not documented).
 */
function embedAnswer(json: Record<string, unknown>, model: string): Record<string, unknown> {
  const embeddings = json.embeddings as Record<string, unknown>;
  const floats = asArray(embeddings.float);
  const base64 = Array.isArray(embeddings.base64);
  const vectors: unknown[] = floats.length > 0 ? floats.map((v) => (base64 ? float32Base64(asArray(v)) : v)) : asArray(embeddings.base64);
  const billed = billedUnits(json.meta);
  const tokens = asNumber(billed.input_tokens) ?? asNumber(isRecord(json.meta) && isRecord(json.meta.tokens) ? json.meta.tokens.input_tokens : undefined) ?? 0;
  return {
    object: 'list',
    data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

function billedUnits(meta: unknown): Record<string, unknown> {
  return isRecord(meta) && isRecord(meta.billed_units) ? meta.billed_units : {};
}

const FINISH: Record<string, string> = { COMPLETE: 'stop', STOP_SEQUENCE: 'stop', MAX_TOKENS: 'length', TOOL_CALL: 'tool_calls', TIMEOUT: 'length' };

/** A finish reason as OpenAI's; ERROR ("the generation failed due to an internal error") is a failure to retry. */
function finishReason(reason: unknown, error?: unknown): string {
  if (reason === 'ERROR' || (typeof error === 'string' && error)) throw new VendorAnswerError(`Cohere 生成失败：${typeof error === 'string' && error ? error : 'finish_reason ERROR'}`, 502);
  return (typeof reason === 'string' && FINISH[reason]) || 'stop';
}

/**
 * Cohere reports the tokens it bills (`billed_units`) and all tokens the model saw (`tokens`, including the preamble
 * Cohere adds on its own); the gateway bills what Cohere bills, and falls back to `tokens` when a report has no
 * billed units.
 */
function openAiUsage(usage: unknown): Record<string, number> | undefined {
  if (!isRecord(usage)) return undefined;
  const billed = isRecord(usage.billed_units) ? usage.billed_units : {};
  const tokens = isRecord(usage.tokens) ? usage.tokens : {};
  const prompt = asNumber(billed.input_tokens) ?? asNumber(tokens.input_tokens);
  const completion = asNumber(billed.output_tokens) ?? asNumber(tokens.output_tokens);
  if (prompt === undefined && completion === undefined) return undefined;
  return { prompt_tokens: prompt ?? 0, completion_tokens: completion ?? 0, total_tokens: (prompt ?? 0) + (completion ?? 0) };
}

/** The tool plan and any thinking read as reasoning; the text blocks as the answer. */
function chatAnswer(json: Record<string, unknown>, model: string): Record<string, unknown> {
  const message = isRecord(json.message) ? json.message : {};
  const blocks = asArray(message.content).filter(isRecord);
  const text = flatMap(blocks, (b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : [])).join('');
  const reasoning = [asString(message.tool_plan) ?? '', ...flatMap(blocks, (b) => (b.type === 'thinking' && typeof b.thinking === 'string' ? [b.thinking] : []))].filter(Boolean).join('\n');
  const calls = asArray(message.tool_calls)
    .filter(isRecord)
    .map((call) => {
      const fn = isRecord(call.function) ? call.function : {};
      return { id: asString(call.id) ?? '', type: 'function', function: { name: asString(fn.name) ?? '', arguments: asString(fn.arguments) ?? '{}' } };
    });
  const out: Record<string, unknown> = { role: 'assistant', content: text || (calls.length > 0 ? null : '') };
  if (reasoning) out.reasoning_content = reasoning;
  if (calls.length > 0) out.tool_calls = calls;
  const usage = openAiUsage(json.usage);
  return {
    id: asString(json.id) ?? '',
    object: 'chat.completion',
    created: nowSeconds(),
    model,
    choices: [{ index: 0, message: out, finish_reason: finishReason(json.finish_reason), logprobs: null }],
    ...(usage ? { usage } : {}),
  };
}

/**
 * One answer's stream: message-start, then content-start/-delta/-end per text or thinking block, tool-plan-delta
 * pieces, tool-call-start/-delta/-end per call (`index` counts the calls), message-end with the finish reason and
 * usage. Each becomes chat.completion.chunk frames; the calls are numbered in the order they start.
 */
function streamReader(model: string): (frame: Frame) => Frame[] {
  let id = '';
  const created = nowSeconds();
  const calls = new Map<number, number>();
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): Frame => ({ data: JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra }) });
  const delta = (fields: Record<string, unknown>): Frame => chunk([{ index: 0, delta: fields, finish_reason: null }]);
  return (frame) => {
    const event = parseEvent(frame.data);
    if (!event) return [];
    const message = isRecord(event.delta) && isRecord(event.delta.message) ? event.delta.message : {};
    const index = asNumber(event.index) ?? 0;
    switch (event.type ?? frame.event) {
      case 'message-start':
        id = asString(event.id) ?? id;
        return [delta({ role: 'assistant', content: '' })];
      case 'content-start':
      case 'content-delta': {
        const content = isRecord(message.content) ? message.content : {};
        const out: Frame[] = [];
        if (typeof content.thinking === 'string' && content.thinking) out.push(delta({ reasoning_content: content.thinking }));
        if (typeof content.text === 'string' && content.text) out.push(delta({ content: content.text }));
        return out;
      }
      case 'tool-plan-delta':
        return typeof message.tool_plan === 'string' && message.tool_plan ? [delta({ reasoning_content: message.tool_plan })] : [];
      case 'tool-call-start': {
        const call = isRecord(message.tool_calls) ? message.tool_calls : {};
        const fn = isRecord(call.function) ? call.function : {};
        const ours = calls.size;
        calls.set(index, ours);
        return [delta({ tool_calls: [{ index: ours, id: asString(call.id) ?? '', type: 'function', function: { name: asString(fn.name) ?? '', arguments: asString(fn.arguments) ?? '' } }] })];
      }
      case 'tool-call-delta': {
        const call = isRecord(message.tool_calls) ? message.tool_calls : {};
        const args = isRecord(call.function) ? asString(call.function.arguments) : undefined;
        const ours = calls.get(index);
        return args && ours !== undefined ? [delta({ tool_calls: [{ index: ours, function: { arguments: args } }] })] : [];
      }
      case 'message-end': {
        const end = isRecord(event.delta) ? event.delta : {};
        const frames = [chunk([{ index: 0, delta: {}, finish_reason: finishReason(end.finish_reason, end.error) }])];
        const usage = openAiUsage(end.usage);
        if (usage) frames.push(chunk([], { usage }));
        return frames;
      }
      default:
        // content-end, tool-call-end, citation-start/-end, debug: nothing for an OpenAI client.
        return [];
    }
  };
}
