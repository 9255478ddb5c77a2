import type { AssistantPart, ChatRequest, ImagePart, TextPart, UserPart } from '../../canonical.js';
import { argumentsObject } from '../shared.js';
import { flatMap } from '../../../lib/arrays.js';

/** Thinking budgets for an OpenAI-style effort (Anthropic's minimum budget is 1,024). */
const BUDGET = { minimal: 1024, low: 2048, medium: 8192, high: 24576 } as const;

/** A canonical request as an Anthropic Messages body, for Anthropic upstreams (parse-request.ts reads the other way). */
export function buildMessagesRequest(request: ChatRequest): Record<string, unknown> {
  const maxTokens = request.maxOutputTokens ?? 4096;
  const body: Record<string, unknown> = { model: request.model, max_tokens: maxTokens };
  if (request.system.length > 0) body.system = request.system.filter((p) => p.text).map(writeText);
  const messages = request.messages.map((message) =>
    message.role === 'user'
      ? { role: 'user', content: userBlocks(message.content) }
      : { role: 'assistant', content: flatMap(message.content, writeAssistant) },
  );
  // The API wants the first turn from the user and no empty turns.
  const nonEmpty = messages.filter((m) => m.content.length > 0);
  if (nonEmpty[0]?.role === 'assistant') nonEmpty.unshift({ role: 'user', content: [{ type: 'text', text: '(continue)' }] });
  body.messages = nonEmpty;

  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), input_schema: t.parameters }));
  }
  // Web search asked of another provider runs as Claude's own server tool.
  if (request.webSearch) {
    const search = request.webSearch;
    body.tools = [...((body.tools as unknown[]) ?? []), { type: 'web_search_20250305', name: 'web_search', ...(search.maxUses ? { max_uses: search.maxUses } : {}), ...(search.allowedDomains ? { allowed_domains: search.allowedDomains } : {}) }];
  }
  const choice = request.toolChoice;
  if (choice || request.parallelToolCalls === false) {
    const type = choice?.type === 'required' ? 'any' : (choice?.type ?? 'auto');
    body.tool_choice = { type, ...(choice?.type === 'tool' ? { name: choice.name } : {}), ...(request.parallelToolCalls === false && type !== 'none' ? { disable_parallel_tool_use: true } : {}) };
  }
  const reasoning = request.reasoning;
  const thinking = reasoning && reasoning.enabled !== false && (reasoning.budgetTokens || reasoning.effort);
  if (thinking) {
    // budget_tokens must be at least 1,024 and below max_tokens.
    const budget = Math.max(1024, Math.min(reasoning.budgetTokens ?? BUDGET[reasoning.effort ?? 'medium'], maxTokens - 1));
    if (budget < maxTokens) body.thinking = { type: 'enabled', budget_tokens: budget };
  }
  // With thinking on, Anthropic refuses changed temperature and top_k.
  if (request.temperature !== undefined && !body.thinking) body.temperature = Math.min(1, request.temperature);
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined && !body.thinking) body.top_k = request.topK;
  if (request.stop?.length) body.stop_sequences = request.stop;
  if (request.user) body.metadata = { user_id: request.user };
  if (request.stream) body.stream = true;
  return body;
}

function writeText(part: TextPart): Record<string, unknown> {
  return { type: 'text', text: part.text, ...(part.cache ? { cache_control: part.cache === 'ephemeral-1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' } } : {}) };
}

function writeImage(part: ImagePart): Record<string, unknown> {
  const source = part.source;
  return { type: 'image', source: source.kind === 'base64' ? { type: 'base64', media_type: source.mediaType, data: source.data } : { type: 'url', url: source.url } };
}

/** Tool results first: the API wants them at the start of the user turn that answers the calls. */
function userBlocks(parts: UserPart[]): Array<Record<string, unknown>> {
  const results = flatMap(parts, (part) =>
    part.type === 'tool_result'
      ? [{ type: 'tool_result', tool_use_id: part.callId, content: part.content.filter((p) => p.type !== 'text' || p.text).map((p) => (p.type === 'text' ? writeText(p) : writeImage(p))), ...(part.isError ? { is_error: true } : {}) }]
      : [],
  );
  const rest = flatMap(parts, (part) => (part.type === 'text' ? (part.text ? [writeText(part)] : []) : part.type === 'image' ? [writeImage(part)] : []));
  return [...results, ...rest];
}

function writeAssistant(part: AssistantPart): Array<Record<string, unknown>> {
  if (part.type === 'text') return part.text ? [{ type: 'text', text: part.text }] : [];
  if (part.type === 'tool_call') return [{ type: 'tool_use', id: part.id, name: part.name, input: argumentsObject(part.arguments) }];
  if (part.redacted) return [{ type: 'redacted_thinking', data: part.redacted }];
  // A thinking block is only accepted back with the signature Anthropic gave it; reasoning from other providers has none.
  return part.signature ? [{ type: 'thinking', thinking: part.text, signature: part.signature }] : [];
}
