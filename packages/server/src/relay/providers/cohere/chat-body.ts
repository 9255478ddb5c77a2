import { asArray, asNumber, asString, badRequest, isRecord } from '../../dialects/shared.js';
import { flatMap } from '../../../lib/arrays.js';

/**
 * An OpenAI chat body as Cohere's Chat API v2 body (https://docs.cohere.com/reference/chat, the request schema of
 * cohere-ai/cohere-typescript `V2ChatRequest`). Cohere refuses what it does not know, so only its own fields are
 * written: OpenAI-only ones (user, metadata, stream_options, parallel_tool_calls, n, logit_bias...) are left out.
 */
export function cohereChatBody(body: Record<string, unknown>, stream: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { model: body.model, messages: asArray(body.messages).map(cohereMessage) };
  let tools = openAiTools(body);
  const choice = body.tool_choice ?? body.function_call;
  if (tools.length > 0) {
    if (choice === 'none') out.tool_choice = 'NONE';
    else if (choice === 'required') out.tool_choice = 'REQUIRED';
    else if (isRecord(choice)) {
      // Cohere cannot name the tool to call: the named one is the only one offered, and a call is required.
      const name = isRecord(choice.function) ? asString(choice.function.name) : asString(choice.name);
      const named = tools.filter((t) => isRecord(t.function) && t.function.name === name);
      if (named.length > 0) tools = named;
      out.tool_choice = 'REQUIRED';
    }
    out.tools = tools;
  }
  if (stream) out.stream = true;
  const limits = [body.max_completion_tokens, body.max_tokens].map(asNumber).filter((n): n is number => n !== undefined && n > 0);
  if (limits.length > 0) out.max_tokens = Math.floor(Math.min(...limits));
  const stop = typeof body.stop === 'string' ? [body.stop] : asArray(body.stop).filter((s): s is string => typeof s === 'string');
  // "A list of up to 5 strings".
  if (stop.length > 0) out.stop_sequences = stop.slice(0, 5);
  const temperature = asNumber(body.temperature);
  if (temperature !== undefined) out.temperature = Math.max(0, temperature);
  // p: "min value of 0.01, max value of 0.99"; k: 0..500; the penalties 0..1 (OpenAI's go from -2 to 2).
  const p = asNumber(body.top_p);
  if (p !== undefined) out.p = clamp(p, 0.01, 0.99);
  const k = asNumber(body.top_k);
  if (k !== undefined) out.k = Math.round(clamp(k, 0, 500));
  for (const field of ['frequency_penalty', 'presence_penalty']) {
    const value = asNumber(body[field]);
    if (value !== undefined) out[field] = clamp(value, 0, 1);
  }
  const seed = asNumber(body.seed);
  if (seed !== undefined) out.seed = Math.floor(seed);
  const format = responseFormat(body.response_format);
  if (format) out.response_format = format;
  return out;
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** OpenAI's tools (and the older `functions`) as Cohere's, whose `parameters` is required. */
function openAiTools(body: Record<string, unknown>): Array<Record<string, unknown>> {
  const functions = [
    ...flatMap(asArray(body.tools), (t) => (isRecord(t) && t.type === 'function' && isRecord(t.function) ? [t.function] : [])),
    ...asArray(body.functions).filter(isRecord),
  ];
  return functions.map((f) => {
    const fn: Record<string, unknown> = { name: f.name };
    if (typeof f.description === 'string' && f.description) fn.description = f.description;
    fn.parameters = isRecord(f.parameters) ? f.parameters : { type: 'object', properties: {} };
    return { type: 'function', function: fn };
  });
}

/** `json_object` as is; a JSON schema becomes Cohere's `json_object` with `json_schema` (the schema itself). */
function responseFormat(format: unknown): Record<string, unknown> | undefined {
  if (!isRecord(format)) return undefined;
  if (format.type === 'text') return { type: 'text' };
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema' && isRecord(format.json_schema)) {
    const schema = format.json_schema.schema;
    return isRecord(schema) ? { type: 'json_object', json_schema: schema } : { type: 'json_object' };
  }
  return undefined;
}

function cohereMessage(message: unknown, index: number): Record<string, unknown> {
  if (!isRecord(message)) throw badRequest(`messages[${index}] 不是对象`);
  switch (message.role) {
    case 'system':
    case 'developer':
      return { role: 'system', content: textContent(message.content, index) };
    case 'user':
      return { role: 'user', content: userContent(message.content, index) };
    case 'assistant':
      return assistantMessage(message, index);
    case 'tool':
      return { role: 'tool', tool_call_id: asString(message.tool_call_id) ?? '', content: textContent(message.content, index) };
    case 'function':
      // The older function-calling result, answered by name: Cohere wants the id of the call it answers.
      return { role: 'tool', tool_call_id: asString(message.name) ?? '', content: textContent(message.content, index) };
    default:
      throw badRequest(`Cohere 不支持消息角色 ${String(message.role)}`);
  }
}

/** Text only (system, tool results): a string, or the text parts joined. */
function textContent(content: unknown, index: number): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  return asArray(content)
    .map((part) => {
      if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') return part.text;
      throw badRequest(`Cohere 的此类消息只接受文本（messages[${index}]）`);
    })
    .join('\n');
}

/** A user's words and images (`image_url` with `url` and `detail`, as OpenAI writes them). */
function userContent(content: unknown, index: number): string | Array<Record<string, unknown>> {
  if (typeof content === 'string') return content;
  return asArray(content).map((part) => {
    if (isRecord(part) && part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
    if (isRecord(part) && part.type === 'image_url') {
      const image = isRecord(part.image_url) ? part.image_url : { url: part.image_url };
      const out: Record<string, unknown> = { url: asString(image.url) ?? '' };
      if (image.detail === 'auto' || image.detail === 'low' || image.detail === 'high') out.detail = image.detail;
      return { type: 'image_url', image_url: out };
    }
    throw badRequest(`Cohere 不支持此类消息内容：${isRecord(part) ? String(part.type) : typeof part}（messages[${index}]）`);
  });
}

/**
 * An assistant turn: its tool calls as Cohere's (the same shape), with the text said alongside them as the
 * `tool_plan` Cohere writes there; otherwise its text as content.
 */
function assistantMessage(message: Record<string, unknown>, index: number): Record<string, unknown> {
  const out: Record<string, unknown> = { role: 'assistant' };
  const text = textContent(Array.isArray(message.content) ? message.content.filter((p) => !(isRecord(p) && p.type === 'refusal')) : message.content, index);
  const legacy = isRecord(message.function_call) ? [{ id: asString(message.function_call.name) ?? '', type: 'function', function: message.function_call }] : [];
  const calls = [...asArray(message.tool_calls), ...legacy].filter(isRecord).map((call) => {
    const fn = isRecord(call.function) ? call.function : {};
    const args = fn.arguments;
    return { id: asString(call.id) ?? '', type: 'function', function: { name: asString(fn.name) ?? '', arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) } };
  });
  if (calls.length > 0) {
    out.tool_calls = calls;
    // The plan Cohere wrote before its calls comes back to the client as reasoning_content (codec.ts).
    const plan = text || asString(message.reasoning_content);
    if (plan) out.tool_plan = plan;
  } else out.content = text;
  return out;
}
