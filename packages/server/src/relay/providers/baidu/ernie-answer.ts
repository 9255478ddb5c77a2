import { asArray, asNumber, asString, isRecord, nowSeconds, parseEvent, VendorAnswerError } from '../../dialects/shared.js';
import type { Frame } from '../../dialects/types.js';
import type { ErrorVerdict, VendorCodec } from '../types.js';
import { collectText, NO_MEDIA } from '../../dialects/media.js';

/**
 * ERNIE's answers read as OpenAI's. ERNIE answers every call with HTTP 200, a failure included: its body is then
 * `{error_code, error_msg}` (https://cloud.baidu.com/doc/WENXINWORKSHOP/s/tlmyncueh, 错误码), and the code says what
 * happened. Each code is given the HTTP status it means, so the pipeline treats it as it treats any upstream's:
 * an expired token (110/111) as 401, whose token is fetched again and the channel retried; QPS and daily limits as
 * 429; a quota used up (17/19) and an app without the permission as the channel's dead key.
 */
interface ErnieFault {
  status: number;
  retry: boolean;
  disable: boolean;
}

const FAULTS: Record<number, ErnieFault> = {
  1: { status: 500, retry: true, disable: false }, // Unknown error
  2: { status: 503, retry: true, disable: false }, // Service temporarily unavailable
  3: { status: 404, retry: true, disable: false }, // Unsupported openapi method
  4: { status: 429, retry: true, disable: false }, // Open api request limit reached (cluster)
  6: { status: 403, retry: true, disable: true }, // No permission to access data (the app lacks the service)
  13: { status: 401, retry: true, disable: false }, // Get service token failed
  14: { status: 403, retry: true, disable: true }, // IAM Certification failed
  15: { status: 403, retry: true, disable: true }, // app not exsits or create failed
  17: { status: 429, retry: true, disable: true }, // Open api daily request limit reached (quota used up)
  18: { status: 429, retry: true, disable: false }, // Open api qps request limit reached
  19: { status: 429, retry: true, disable: true }, // Open api total request limit reached (quota used up)
  100: { status: 401, retry: true, disable: false }, // Invalid parameter (access_token missing or malformed)
  110: { status: 401, retry: true, disable: false }, // Access token invalid or no longer valid
  111: { status: 401, retry: true, disable: false }, // Access token expired
  336000: { status: 500, retry: true, disable: false }, // Internal error
  336001: { status: 400, retry: false, disable: false }, // Invalid Argument
  336002: { status: 400, retry: false, disable: false }, // Invalid JSON
  336003: { status: 400, retry: false, disable: false }, // the parameter check failed (message says which)
  336004: { status: 403, retry: true, disable: true }, // Permission error (service not enabled / arrears)
  336005: { status: 404, retry: true, disable: false }, // API name not exist (this account has no such model endpoint)
  336006: { status: 400, retry: false, disable: false }, // messages / system too long
  336007: { status: 400, retry: false, disable: false }, // max_output_tokens out of range
  336100: { status: 503, retry: true, disable: false }, // try again later (server high load)
  336104: { status: 400, retry: false, disable: false },
  336105: { status: 400, retry: false, disable: false },
  336501: { status: 429, retry: true, disable: false }, // Rate limit reached for RPM
  336502: { status: 429, retry: true, disable: false }, // Rate limit reached for TPM
  336503: { status: 429, retry: true, disable: false },
};

const faultOf = (code: number): ErnieFault => FAULTS[code] ?? { status: 502, retry: true, disable: false };

/** What an ERNIE error reads as in messages: the vendor's words and its code (the verdict is read back from it). */
const describe = (code: number, message: string) => `${message || '文心千帆返回错误'}（错误码 ${code}）`;

/** Throws the answer's ERNIE error, if it is one. */
function throwIfError(json: Record<string, unknown>): void {
  const code = asNumber(json.error_code);
  if (code === undefined || code === 0) return;
  throw new VendorAnswerError(describe(code, asString(json.error_msg) ?? ''), faultOf(code).status);
}

const FINISH: Record<string, string> = { normal: 'stop', stop: 'stop', length: 'length', content_filter: 'content_filter', function_call: 'tool_calls' };

function usageOf(json: Record<string, unknown>): Record<string, number> | undefined {
  const usage = json.usage;
  if (!isRecord(usage)) return undefined;
  const prompt = asNumber(usage.prompt_tokens) ?? 0;
  const completion = asNumber(usage.completion_tokens) ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: asNumber(usage.total_tokens) ?? prompt + completion };
}

function toolCallOf(json: Record<string, unknown>, id: string): Record<string, unknown> | undefined {
  const call = json.function_call;
  if (!isRecord(call) || typeof call.name !== 'string') return undefined;
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
  return { id: `call_${id}`, type: 'function', function: { name: call.name, arguments: args } };
}

const finishOf = (json: Record<string, unknown>, call: unknown) => (call ? 'tool_calls' : (FINISH[asString(json.finish_reason) ?? ''] ?? (json.is_truncated === true ? 'length' : 'stop')));

/** ERNIE's chat answer `{id, result, is_truncated, finish_reason, usage, function_call?}` as an OpenAI chat.completion. */
export function ernieChatAnswer(json: Record<string, unknown>, model: string): Record<string, unknown> {
  throwIfError(json);
  const id = asString(json.id) ?? `as-${Date.now()}`;
  const call = toolCallOf(json, id);
  const message: Record<string, unknown> = { role: 'assistant', content: asString(json.result) ?? '' };
  if (call) message.tool_calls = [call];
  return {
    id,
    object: 'chat.completion',
    created: asNumber(json.created) ?? nowSeconds(),
    model,
    choices: [{ index: 0, message, finish_reason: finishOf(json, call) }],
    ...(usageOf(json) ? { usage: usageOf(json) } : {}),
  };
}

/**
 * ERNIE's stream: SSE `data:` events, each `{id, sentence_id, is_end, result, usage, ...}` with the next piece of the
 * answer; the last has `is_end: true` and the whole answer's usage. Each becomes an OpenAI chunk; the usage goes in
 * a last chunk with no choices. An error event (`error_code`) ends the stream as broken.
 */
export function ernieChatStream(model: string): (frame: Frame) => Frame[] {
  let started = false;
  return (frame) => {
    const json = parseEvent(frame.data);
    if (!json) return [];
    throwIfError(json);
    const id = asString(json.id) ?? 'ernie';
    const created = asNumber(json.created) ?? nowSeconds();
    const chunk = (delta: Record<string, unknown>, finish: string | null): Frame => ({
      data: JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] }),
    });
    const out: Frame[] = [];
    const delta: Record<string, unknown> = started ? {} : { role: 'assistant' };
    started = true;
    const text = asString(json.result) ?? '';
    if (text) delta.content = text;
    const call = toolCallOf(json, id);
    if (call) delta.tool_calls = [{ index: 0, ...call }];
    const end = json.is_end === true;
    if (Object.keys(delta).length > 0 || end) out.push(chunk(delta, end ? finishOf(json, call) : null));
    const usage = end ? usageOf(json) : undefined;
    if (usage) out.push({ data: JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage }) });
    return out;
  };
}

/** ERNIE's embeddings answer `{data: [{object, embedding, index}], usage}` as OpenAI's list. */
export function ernieEmbeddingsAnswer(json: Record<string, unknown>, model: string): Record<string, unknown> {
  throwIfError(json);
  const data = asArray(json.data).map((d, i) => (isRecord(d) ? { object: 'embedding', index: asNumber(d.index) ?? i, embedding: d.embedding } : d));
  const usage = usageOf(json);
  return { object: 'list', data, model, usage: { prompt_tokens: usage?.prompt_tokens ?? 0, total_tokens: usage?.total_tokens ?? usage?.prompt_tokens ?? 0 } };
}

/** ERNIE's reranker answer `{results: [{document, relevance_score, index}], usage}` in the Cohere/Jina shape. */
export function ernieRerankAnswer(json: Record<string, unknown>, model: string): Record<string, unknown> {
  throwIfError(json);
  const results = asArray(json.results).map((r, i) => (isRecord(r) ? { index: asNumber(r.index) ?? i, relevance_score: r.relevance_score, ...(r.document !== undefined ? { document: { text: r.document } } : {}) } : r));
  const usage = usageOf(json);
  return { id: json.id, model, results, usage: { prompt_tokens: usage?.prompt_tokens ?? 0, total_tokens: usage?.total_tokens ?? usage?.prompt_tokens ?? 0 } };
}

/** The codec of a model's ERNIE v1 API, by what the client called. */
/** The prompt ERNIE's chat was sent: its system prompt and messages (text only). */
const erniePrompt = (sent: Record<string, unknown>): string => collectText([sent.system, sent.messages], NO_MEDIA);

export function ernieCodec(model: string): VendorCodec {
  return {
    prompt: erniePrompt,
    answer: (json) => {
      if (Array.isArray(json.data) || json.object === 'embedding_list') return ernieEmbeddingsAnswer(json, model);
      if (Array.isArray(json.results) || json.object === 'reranker_list') return ernieRerankAnswer(json, model);
      return ernieChatAnswer(json, model);
    },
    stream: () => ernieChatStream(model),
  };
}

/**
 * The verdict on an ERNIE error: by its code, read from the vendor's body (`error_code`) or from the message the
 * codec wrote (`（错误码 N）`); undefined when there is neither (the adapter then goes by the HTTP status).
 */
export function classifyErnieError(body: string): ErrorVerdict | undefined {
  const json = parseEvent(body);
  let code = json ? asNumber(json.error_code) : undefined;
  let message = json ? asString(json.error_msg) : undefined;
  if (code === undefined) {
    const inner = json && isRecord(json.error) ? asString(json.error.message) : undefined;
    const match = inner ? /（错误码 (\d+)）$/.exec(inner) : null;
    if (!match) return undefined;
    code = Number(match[1]);
    message = inner;
  } else message = describe(code, message ?? '');
  const fault = faultOf(code);
  return { retry: fault.retry, disableChannel: fault.disable, message: message ?? describe(code, '') };
}
