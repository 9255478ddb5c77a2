import type { AssistantPart, ChatResponse, FinishReason, Usage } from '../../canonical.js';
import { reportedCount, tokenCount, usageOf } from '../../../billing/usage.js';
import type { WriteContext } from '../types.js';
import { argumentsObject, asArray, asString, isRecord } from '../shared.js';
import { flatMap } from '../../../lib/arrays.js';

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};
export const finishFromConverse = (reason: unknown): FinishReason | undefined => (typeof reason === 'string' ? (FINISH[reason] ?? 'stop') : undefined);
export const finishToConverse = (reason: FinishReason): string =>
  ({ stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'content_filtered', error: 'end_turn' })[reason];

/**
 * Converse's TokenUsage -> canonical. `inputTokens` leaves out cache reads and writes (like Anthropic's), so they are
 * added back into the prompt; `cacheDetails` splits the writes by TTL, and writes it does not attribute to the
 * 1-hour cache are 5-minute writes. Converse reports no reasoning count: thinking is inside `outputTokens`.
 */
export function readConverseUsage(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined;
  const input = reportedCount(value.inputTokens);
  const read = tokenCount(value.cacheReadInputTokens);
  const written = tokenCount(value.cacheWriteInputTokens);
  let write1h = 0;
  for (const detail of asArray(value.cacheDetails)) if (isRecord(detail) && detail.ttl === '1h') write1h += tokenCount(detail.inputTokens);
  write1h = Math.min(write1h, written);
  const write5m = written - write1h;
  const usage = usageOf(input === undefined ? value.inputTokens : input + read + written, value.outputTokens);
  if (read) usage.cached_tokens = read;
  if (write5m) usage.cache_write_tokens = write5m;
  if (write1h) usage.cache_write_1h_tokens = write1h;
  return usage;
}

export function writeConverseUsage(usage: Usage | undefined): Record<string, unknown> {
  if (!usage) return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  const read = usage.cached_tokens ?? 0;
  const write5m = usage.cache_write_tokens ?? 0;
  const write1h = usage.cache_write_1h_tokens ?? 0;
  const details = [...(write1h ? [{ ttl: '1h', inputTokens: write1h }] : []), ...(write5m && write1h ? [{ ttl: '5m', inputTokens: write5m }] : [])];
  return {
    inputTokens: Math.max(0, usage.prompt_tokens - read - write5m - write1h),
    outputTokens: usage.completion_tokens,
    totalTokens: usage.prompt_tokens + usage.completion_tokens,
    ...(read ? { cacheReadInputTokens: read } : {}),
    ...(write5m + write1h ? { cacheWriteInputTokens: write5m + write1h } : {}),
    ...(details.length ? { cacheDetails: details } : {}),
  };
}

export function parseConverseResponse(body: unknown): ChatResponse {
  const json = isRecord(body) ? body : {};
  const message = isRecord(json.output) && isRecord(json.output.message) ? json.output.message : {};
  const content: AssistantPart[] = [];
  for (const block of asArray(message.content)) {
    if (!isRecord(block)) continue;
    if (typeof block.text === 'string') content.push({ type: 'text', text: block.text });
    else if (isRecord(block.toolUse)) {
      const use = block.toolUse;
      content.push({ type: 'tool_call', id: asString(use.toolUseId) ?? '', name: asString(use.name) ?? '', arguments: JSON.stringify(use.input ?? {}) });
    } else if (isRecord(block.reasoningContent)) {
      const reasoning = block.reasoningContent;
      if (typeof reasoning.redactedContent === 'string') content.push({ type: 'reasoning', text: '', redacted: reasoning.redactedContent });
      else if (isRecord(reasoning.reasoningText)) content.push({ type: 'reasoning', text: asString(reasoning.reasoningText.text) ?? '', signature: asString(reasoning.reasoningText.signature) });
    }
  }
  // Converse answers carry no id or model (the model is the one in the URL).
  return { id: '', model: '', content, finishReason: finishFromConverse(json.stopReason) ?? 'stop', usage: readConverseUsage(json.usage) };
}

export function writeConverseResponse(response: ChatResponse, _context: WriteContext): Record<string, unknown> {
  const content = flatMap(response.content, (part): Array<Record<string, unknown>> => {
    if (part.type === 'text') return [{ text: part.text }];
    if (part.type === 'tool_call') return [{ toolUse: { toolUseId: part.id, name: part.name, input: argumentsObject(part.arguments) } }];
    if (part.redacted) return [{ reasoningContent: { redactedContent: part.redacted } }];
    return [{ reasoningContent: { reasoningText: { text: part.text, ...(part.signature ? { signature: part.signature } : {}) } } }];
  });
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: finishToConverse(response.finishReason),
    usage: writeConverseUsage(response.usage),
    metrics: { latencyMs: 0 },
  };
}

/** Bedrock's error body: `{"message": …}` (the exception's name travels in the x-amzn-errortype header). */
export function converseErrorBody(_status: number, message: string): Record<string, unknown> {
  return { message };
}
