import { emptyRequest, type ChatRequest, type Message } from '../../canonical.js';
import { parseChatRequest } from '../../dialects/openai-chat/parse-request.js';
import { asArray, asNumber, asString, badRequest, isRecord } from '../../dialects/shared.js';
import { maxOutputOf } from './endpoints.js';
import { flatMap } from '../../../lib/arrays.js';

/**
 * ERNIE's chat body (https://cloud.baidu.com/doc/WENXINWORKSHOP/s/jlil56u11, ERNIE-3.5-8K "请求参数"): `messages`
 * alternate user (or function) and assistant, start and end with a user turn, and carry text only; the system
 * prompt is the separate `system` field; tools are `functions` (name, description, parameters), an assistant's call
 * is `function_call: {name, arguments}` and its result a `function` message naming the function.
 */
export interface ErnieMessage {
  role: 'user' | 'assistant' | 'function';
  content: string;
  name?: string;
  function_call?: { name: string; arguments: string };
}

/** The ERNIE body for an OpenAI chat body (already model-mapped and output-capped by the pipeline). */
export function ernieChatBody(openAi: Record<string, unknown>, model: string, stream: boolean): Record<string, unknown> {
  // An empty conversation is left for ERNIE to refuse in its own words (336003).
  const request = Array.isArray(openAi.messages) && openAi.messages.length > 0 ? parseChatRequest({ ...openAi, model }) : emptyRequest(model);
  const body: Record<string, unknown> = { messages: ernieMessages(request.messages) };
  const system = request.system.map((p) => p.text).join('\n');
  if (system) body.system = system;
  if (stream) body.stream = true;
  // ERNIE's temperature is (0, 1.0] and top_p [0, 1.0]; OpenAI's temperature goes to 2.
  if (request.temperature !== undefined) body.temperature = Math.min(1, Math.max(0.01, request.temperature));
  if (request.topP !== undefined) body.top_p = Math.min(1, Math.max(0, request.topP));
  const penalty = penaltyScore(openAi, request);
  if (penalty !== undefined) body.penalty_score = penalty;
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = Math.min(maxOutputOf(model), Math.max(2, request.maxOutputTokens));
  // At most four stop strings, each at most 20 characters.
  if (request.stop?.length) body.stop = request.stop.slice(0, 4).map((s) => s.slice(0, 20));
  if (request.tools.length > 0 && request.toolChoice?.type !== 'none') {
    body.functions = request.tools.map((t) => ({ name: t.name, description: t.description ?? t.name, parameters: t.parameters }));
    if (request.toolChoice?.type === 'tool') body.tool_choice = { type: 'function', function: { name: request.toolChoice.name } };
  }
  if (request.responseFormat?.type === 'json_object' || request.responseFormat?.type === 'json_schema') body.response_format = 'json_object';
  if (request.user) body.user_id = request.user;
  for (const field of ['disable_search', 'enable_citation', 'enable_trace', 'min_output_tokens']) if (openAi[field] !== undefined) body[field] = openAi[field];
  return body;
}

/**
 * ERNIE's repetition penalty is [1.0, 2.0] (1 is none). A client's own `penalty_score` is kept; otherwise a positive
 * OpenAI frequency or presence penalty (0..2) is scaled into it.
 */
function penaltyScore(openAi: Record<string, unknown>, request: ChatRequest): number | undefined {
  const own = asNumber(openAi.penalty_score);
  const openAiPenalty = Math.max(request.frequencyPenalty ?? 0, request.presencePenalty ?? 0);
  const value = own ?? (openAiPenalty > 0 ? 1 + openAiPenalty / 2 : undefined);
  return value === undefined ? undefined : Math.min(2, Math.max(1, value));
}

/**
 * The canonical turns (already alternating: the OpenAI reader merges consecutive turns of one role) as ERNIE's.
 * A user turn that answers a call becomes a `function` message; ERNIE takes one call per assistant turn, so the
 * first call is the turn's `function_call` and the results of several are given together.
 */
export function ernieMessages(messages: Message[]): ErnieMessage[] {
  const out: ErnieMessage[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      const text = flatMap(message.content, (p) => (p.type === 'text' ? [p.text] : [])).join('');
      const call = message.content.find((p) => p.type === 'tool_call');
      out.push(call ? { role: 'assistant', content: text, function_call: { name: call.name, arguments: call.arguments || '{}' } } : { role: 'assistant', content: text });
      continue;
    }
    if (message.content.some((p) => p.type === 'image')) throw badRequest('文心千帆（ERNIE）对话接口只接受文本，不支持图片输入');
    const results = message.content.filter((p) => p.type === 'tool_result');
    const text = flatMap(message.content, (p) => (p.type === 'text' ? [p.text] : [])).join('\n');
    if (results.length === 0) {
      out.push({ role: 'user', content: text });
      continue;
    }
    const resultText = (r: (typeof results)[number]) => flatMap(r.content, (p) => (p.type === 'text' ? [p.text] : [])).join('');
    const content = results.length === 1 ? resultText(results[0]) : JSON.stringify(results.map((r) => ({ name: r.name, result: resultText(r) })));
    out.push({ role: 'function', name: results[0].name ?? results[0].callId, content: text ? `${content}\n${text}` : content });
  }
  return out;
}

/** Qianfan's v2 API (OpenAI-compatible) names models in lower case (`ernie-4.0-8k`, `embedding-v1`). */
export const v2Model = (model: string) => model.trim().toLowerCase();

/** ERNIE's embeddings body: `input` is a list of texts (https://cloud.baidu.com/doc/WENXINWORKSHOP/s/alj562vvu). */
export function ernieEmbeddingsBody(openAi: Record<string, unknown>): Record<string, unknown> {
  const input = typeof openAi.input === 'string' ? [openAi.input] : asArray(openAi.input);
  if (input.length === 0 || !input.every((i) => typeof i === 'string')) throw badRequest('文心千帆的向量接口只接受文本（input 为字符串或字符串数组）');
  const body: Record<string, unknown> = { input };
  const user = asString(openAi.user);
  if (user) body.user_id = user;
  return body;
}

/** ERNIE's reranker body {query, documents, top_n} (bce-reranker-base's API page): the Cohere/Jina shape, minus `model`. */
export function ernieRerankBody(openAi: Record<string, unknown>): Record<string, unknown> {
  const documents = asArray(openAi.documents).map((d) => (isRecord(d) && typeof d.text === 'string' ? d.text : d));
  const body: Record<string, unknown> = { query: openAi.query, documents };
  if (asNumber(openAi.top_n) !== undefined) body.top_n = openAi.top_n;
  return body;
}
