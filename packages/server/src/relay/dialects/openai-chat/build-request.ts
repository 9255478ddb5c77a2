import type { ChatRequest, ImagePart, TextPart } from '../../canonical.js';
import { badRequest, imageToUrl } from '../shared.js';
import { flatMap } from '../../../lib/arrays.js';

/** OpenAI's reasoning models: the o-series and GPT-5 and every generation after it (GPT-6 refuses `max_tokens` too). */
const REASONING_GPT = /^(o\d|gpt-(?:[5-9]|[1-9]\d))/;

/** Models that take `max_completion_tokens` and refuse `max_tokens` (OpenAI's reasoning models). */
export const usesCompletionTokensField = (model: string): boolean => REASONING_GPT.test(model.slice(model.lastIndexOf('/') + 1));

const EFFORT_BY_BUDGET = (budget: number): 'low' | 'medium' | 'high' => (budget <= 2048 ? 'low' : budget <= 8192 ? 'medium' : 'high');

/**
 * A canonical request as an OpenAI Chat Completions body, for OpenAI-compatible upstreams when the client
 * spoke another dialect. Tool results become `tool` messages right after the assistant turn that called them;
 * reasoning from earlier turns is not sent back (the API does not take it).
 */
export function buildChatRequest(request: ChatRequest): Record<string, unknown> {
  const messages: Array<Record<string, unknown>> = [];
  if (request.system.length > 0) messages.push({ role: 'system', content: request.system.map((p) => p.text).join('\n\n') });
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      const text = flatMap(message.content, (p) => (p.type === 'text' ? [p.text] : [])).join('');
      const calls = flatMap(message.content, (p) =>
        p.type === 'tool_call' ? [{ id: p.id, type: 'function', function: { name: p.name, arguments: p.arguments || '{}' } }] : [],
      );
      messages.push({ role: 'assistant', content: text || (calls.length ? null : ''), ...(calls.length ? { tool_calls: calls } : {}) });
      continue;
    }
    const content: Array<TextPart | ImagePart> = [];
    for (const part of message.content) {
      if (part.type === 'tool_result') {
        const images = part.content.filter((p): p is ImagePart => p.type === 'image');
        const text = flatMap(part.content, (p) => (p.type === 'text' ? [p.text] : [])).join('\n');
        messages.push({ role: 'tool', tool_call_id: part.callId, content: part.isError && !text ? 'error' : text });
        // The tool message takes text only; images a tool returned go to the model in a user turn.
        content.push(...images);
      } else content.push(part);
    }
    if (content.length > 0) messages.push({ role: 'user', content: userContent(content) });
  }

  const body: Record<string, unknown> = { model: request.model, messages };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({ type: 'function', function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters } }));
  }
  if (request.toolChoice) {
    const choice = request.toolChoice;
    body.tool_choice = choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type;
  }
  if (request.parallelToolCalls !== undefined && request.tools.length > 0) body.parallel_tool_calls = request.parallelToolCalls;
  // Chat Completions searches only with OpenAI's search models (web_search_options); other models cannot.
  if (request.webSearch) {
    if (!/search/i.test(request.model)) throw badRequest(`此渠道的模型 ${request.model} 不支持内置网页搜索（web_search）；可关闭网页搜索（Codex CLI：config.toml 中 web_search = "disabled"）`);
    body.web_search_options = {};
  }
  if (request.maxOutputTokens !== undefined) body[usesCompletionTokensField(request.model) ? 'max_completion_tokens' : 'max_tokens'] = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop?.length) body.stop = request.stop;
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty;
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty;
  if (request.user) body.user = request.user;
  const format = request.responseFormat;
  if (format?.type === 'json_object') body.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema') body.response_format = { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, ...(format.strict ? { strict: true } : {}) } };
  const reasoning = request.reasoning;
  if (reasoning && reasoning.enabled !== false && usesCompletionTokensField(request.model)) {
    body.reasoning_effort = reasoning.effort ?? (reasoning.budgetTokens ? EFFORT_BY_BUDGET(reasoning.budgetTokens) : 'medium');
  }
  if (request.stream) body.stream = true;
  return body;
}

function userContent(parts: Array<TextPart | ImagePart>): unknown {
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => (p as TextPart).text).join('\n');
  return parts.map((p) => (p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image_url', image_url: { url: imageToUrl(p.source) } }));
}
