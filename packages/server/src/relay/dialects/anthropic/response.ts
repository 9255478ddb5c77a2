import type { AssistantPart, ChatResponse, FinishReason, Usage } from '../../canonical.js';
import { reportedCount, tokenCount, usageOf } from '../../../billing/usage.js';
import type { WriteContext } from '../types.js';
import { argumentsObject, asArray, asString, isRecord } from '../shared.js';
import { flatMap } from '../../../lib/arrays.js';

const FINISH: Record<string, FinishReason> = { end_turn: 'stop', stop_sequence: 'stop', pause_turn: 'stop', max_tokens: 'length', tool_use: 'tool_calls', refusal: 'content_filter' };
export const finishFromAnthropic = (reason: unknown): FinishReason | undefined => (typeof reason === 'string' ? (FINISH[reason] ?? 'stop') : undefined);
export const finishToAnthropic = (reason: FinishReason): string =>
  ({ stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'refusal', error: 'end_turn' })[reason];

/**
 * Anthropic usage -> canonical. Anthropic's input_tokens leaves out cache reads and cache writes; the canonical
 * prompt counts every input token, so they are added back and recorded as the parts priced apart. Writes are
 * split by TTL when `cache_creation` says how (5-minute and 1-hour caches cost differently).
 */
export function readAnthropicUsage(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined;
  const input = reportedCount(value.input_tokens);
  const read = tokenCount(value.cache_read_input_tokens);
  const created = tokenCount(value.cache_creation_input_tokens);
  const split = isRecord(value.cache_creation) ? value.cache_creation : undefined;
  const write1h = split ? tokenCount(split.ephemeral_1h_input_tokens) : 0;
  const write5m = split ? Math.max(tokenCount(split.ephemeral_5m_input_tokens), created - write1h) : created;
  // input_tokens is the total's own part: when it is not a count, the whole prompt is counted by the gateway.
  const usage = usageOf(input === undefined ? value.input_tokens : input + read + write5m + write1h, value.output_tokens);
  if (read) usage.cached_tokens = read;
  if (write5m) usage.cache_write_tokens = write5m;
  if (write1h) usage.cache_write_1h_tokens = write1h;
  // The web search tool's searches, billed apart (US$10 per 1,000): usage.server_tool_use.web_search_requests.
  const searches = isRecord(value.server_tool_use) ? tokenCount(value.server_tool_use.web_search_requests) : 0;
  if (searches) usage.web_searches = searches;
  // Fast mode (`speed: "fast"`): every token at a premium (FastModeRatio).
  if (value.speed === 'fast') usage.fast_mode = true;
  // US-only inference (`inference_geo: "us"`, Opus 4.6 and later): 1.1 times every token price.
  if (value.inference_geo === 'us') usage.regional_inference = true;
  // The advisor tool's sub-inferences (usage.iterations of type advisor_message): not in the totals above, billed at
  // the advisor model's prices.
  for (const iteration of asArray(value.iterations)) {
    if (!isRecord(iteration) || iteration.type !== 'advisor_message' || typeof iteration.model !== 'string') continue;
    const advice = readAnthropicUsage({ ...iteration, iterations: undefined });
    if (advice) (usage.sub_usages ??= []).push({ model: iteration.model, usage: advice });
  }
  return usage;
}

export function writeAnthropicUsage(usage: Usage | undefined): Record<string, unknown> {
  if (!usage) return { input_tokens: 0, output_tokens: 0 };
  const read = usage.cached_tokens ?? 0;
  const write5m = usage.cache_write_tokens ?? 0;
  const write1h = usage.cache_write_1h_tokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.prompt_tokens - read - write5m - write1h),
    cache_creation_input_tokens: write5m + write1h,
    cache_read_input_tokens: read,
    ...(write1h ? { cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h } } : {}),
    output_tokens: usage.completion_tokens,
    ...(usage.web_searches ? { server_tool_use: { web_search_requests: usage.web_searches } } : {}),
    ...(usage.fast_mode ? { speed: 'fast' } : {}),
    ...(usage.regional_inference ? { inference_geo: 'us' } : {}),
  };
}

export function parseMessagesResponse(body: unknown): ChatResponse {
  const json = isRecord(body) ? body : {};
  const content: AssistantPart[] = [];
  for (const block of asArray(json.content)) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') content.push({ type: 'text', text: block.text });
    else if (block.type === 'thinking') content.push({ type: 'reasoning', text: asString(block.thinking) ?? '', signature: asString(block.signature) });
    else if (block.type === 'redacted_thinking') content.push({ type: 'reasoning', text: '', redacted: asString(block.data) ?? '' });
    else if (block.type === 'tool_use') content.push({ type: 'tool_call', id: asString(block.id) ?? '', name: asString(block.name) ?? '', arguments: JSON.stringify(block.input ?? {}) });
  }
  return { id: asString(json.id) ?? '', model: asString(json.model) ?? '', content, finishReason: finishFromAnthropic(json.stop_reason) ?? 'stop', usage: readAnthropicUsage(json.usage) };
}

export function writeMessagesResponse(response: ChatResponse, context: WriteContext): Record<string, unknown> {
  const content = flatMap(response.content, (part): Array<Record<string, unknown>> => {
    if (part.type === 'text') return [{ type: 'text', text: part.text }];
    if (part.type === 'tool_call') return [{ type: 'tool_use', id: part.id, name: part.name, input: argumentsObject(part.arguments) }];
    if (part.redacted) return [{ type: 'redacted_thinking', data: part.redacted }];
    return [{ type: 'thinking', thinking: part.text, signature: part.signature ?? '' }];
  });
  return {
    id: context.id,
    type: 'message',
    role: 'assistant',
    model: context.model,
    content,
    stop_reason: finishToAnthropic(response.finishReason),
    stop_sequence: null,
    usage: writeAnthropicUsage(response.usage),
  };
}

const ERROR_TYPES: Record<number, string> = { 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 413: 'request_too_large', 429: 'rate_limit_error', 529: 'overloaded_error' };

/** Anthropic's error body: {type:"error", error:{type, message}} with the type its status implies. */
export function anthropicErrorBody(status: number, message: string): Record<string, unknown> {
  return { type: 'error', error: { type: ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message } };
}
