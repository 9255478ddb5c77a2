import { fixtures, parseSse } from './fixtures.js';
import type { MockMode } from './mock-server.js';
import { measuredPromptTokens, scriptedCall } from './tool-script.js';

/**
 * Claude's answers, read from providers/anthropic/__fixtures__ and adjusted to the request (model, tool name, id
 * prefix). Shared by the Anthropic, Vertex (Claude) and Bedrock (InvokeModel) mocks.
 */
export const CLAUDE_SCENARIOS = ['text', 'tools', 'tool-result', 'image', 'reasoning', 'cache', 'web-search'] as const;
export type ClaudeScenario = (typeof CLAUDE_SCENARIOS)[number];

export interface ClaudeReply {
  scenario: ClaudeScenario;
  message: any;
  events: any[];
}

const fx = fixtures('anthropic');
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every thinking signature the fixtures hand out: the only ones a request may send back. */
/** What the mock's advisor sub-inference uses (usage.iterations, type advisor_message). */
export const MOCK_ADVICE_USAGE = { input_tokens: 823, output_tokens: 531, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

export function claudeSignatures(): Set<string> {
  const out = new Set<string>();
  for (const name of CLAUDE_SCENARIOS) for (const block of fx.json(`${name}.response.json`).content) if (block.type === 'thinking') out.add(block.signature);
  return out;
}

function customTools(body: Record<string, any>): any[] {
  return Array.isArray(body.tools) ? body.tools.filter((t: any) => isObject(t) && (t.type === undefined || t.type === 'custom')) : [];
}

function hasBlock(body: Record<string, any>, test: (block: any) => boolean): boolean {
  const scan = (value: unknown): boolean =>
    Array.isArray(value) ? value.some(scan) : isObject(value) ? test(value) || scan(value.content) : false;
  return scan(body.messages) || scan(body.system) || scan(body.tools);
}

export function thinkingOn(body: Record<string, any>): boolean {
  return isObject(body.thinking) && (body.thinking.type === 'enabled' || body.thinking.type === 'adaptive');
}

/** Which recorded answer fits the request; a forcing mode wins. */
export function pickClaudeScenario(body: Record<string, any>, mode: MockMode | undefined): ClaudeScenario {
  const tools = customTools(body).length > 0 && body.tool_choice?.type !== 'none';
  if (mode === 'tool' && tools) return 'tools';
  if (mode === 'thinking') return 'reasoning';
  if (mode === 'cache') return 'cache';
  const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
  const last = messages.filter((m) => m?.role !== 'system').at(-1);
  if (last?.role === 'user' && Array.isArray(last.content) && last.content.some((b: any) => b?.type === 'tool_result')) return 'tool-result';
  if (tools) return 'tools';
  // The web search tool (a server tool Anthropic runs): one search, its results, a cited answer.
  if (Array.isArray(body.tools) && body.tools.some((t: any) => isObject(t) && /^web_search_/.test(String(t.type ?? '')))) return 'web-search';
  if (thinkingOn(body)) return 'reasoning';
  if (body.cache_control || hasBlock(body, (b) => b.cache_control != null)) return 'cache';
  if (hasBlock(body, (b) => b.type === 'image')) return 'image';
  return 'text';
}

/** The input tokens the mock bills for a request: what count_tokens answers, so the two never disagree. */
export function claudeInputTokens(body: Record<string, any>): number {
  const u = fx.json(`${pickClaudeScenario(body, undefined)}.response.json`).usage;
  return u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
}

export function claudeReply(body: Record<string, any>, mode: MockMode | undefined, opts: { model: string; idPrefix?: string }): ClaudeReply {
  const scenario = pickClaudeScenario(body, mode);
  const message = fx.json(`${scenario}.response.json`);
  let events = parseSse(fx.text(`${scenario}.stream.txt`)).map((e) => e.data);

  // Thinking on and a tool call: Claude thinks first, so the tool-call answer starts with the recorded thinking block.
  if (scenario === 'tools' && thinkingOn(body)) {
    const reasoning = fx.json('reasoning.response.json');
    message.content.unshift(reasoning.content[0]);
    const thinkingEvents = parseSse(fx.text('reasoning.stream.txt'))
      .map((e) => e.data)
      .filter((e) => e.index === 0 && e.type.startsWith('content_block'));
    const rest = events.filter((e) => e.type !== 'ping').map((e) => (typeof e.index === 'number' ? { ...e, index: e.index + 1 } : e));
    events = [rest[0], thinkingEvents[0], { type: 'ping' }, ...thinkingEvents.slice(1), ...rest.slice(1)];
  }

  const scripted = scriptedCall(customTools(body).map((t: any) => t.name));
  const toolName = scripted?.name ?? (body.tool_choice?.type === 'tool' ? body.tool_choice.name : customTools(body)[0]?.name);
  const retool = (block: any) => (block?.type === 'tool_use' && toolName ? { ...block, name: toolName, ...(scripted && 'input' in block ? { input: scripted.args } : {}) } : block);
  const reid = (id: string) => (opts.idPrefix ? id.replace(/^msg_/, opts.idPrefix) : id);
  message.model = opts.model;
  message.id = reid(message.id);
  message.content = message.content.map(retool);
  const toolIndexes = new Set(events.filter((e) => e.type === 'content_block_start' && e.content_block?.type === 'tool_use').map((e) => e.index));
  let argumentsSent = new Set<number>();
  events = events.flatMap((e) => {
    if (e.type === 'message_start') return [{ ...e, message: { ...e.message, model: opts.model, id: reid(e.message.id) } }];
    if (e.type === 'content_block_start') return [{ ...e, content_block: retool(e.content_block) }];
    // A scripted call's arguments go out in one delta.
    if (scripted && e.type === 'content_block_delta' && e.delta?.type === 'input_json_delta' && toolIndexes.has(e.index)) {
      if (argumentsSent.has(e.index)) return [];
      argumentsSent = new Set([...argumentsSent, e.index]);
      return [{ ...e, delta: { type: 'input_json_delta', partial_json: JSON.stringify(scripted.args) } }];
    }
    return [e];
  });
  // Fast mode (`speed: "fast"`) and US-only inference (`inference_geo: "us"`): the usage says how the request ran, in
  // the message and in the stream.
  const ran = { ...(body.speed === 'fast' ? { speed: 'fast' } : {}), ...(body.inference_geo === 'us' ? { inference_geo: 'us' } : {}) };
  if (Object.keys(ran).length > 0) {
    message.usage = { ...message.usage, ...ran };
    events = events.map((e) => (e.type === 'message_start' ? { ...e, message: { ...e.message, usage: { ...e.message.usage, ...ran } } } : e.type === 'message_delta' ? { ...e, usage: { ...e.usage, ...ran } } : e));
  }
  // The advisor tool (`advisor_20260301`): its sub-inference on the advisor model is reported in usage.iterations, apart
  // from the totals (which stay the executor's), in the message and in the stream's last usage.
  const advisor = Array.isArray(body.tools) ? body.tools.find((tool: any) => String(tool?.type ?? '').startsWith('advisor_')) : undefined;
  if (advisor) {
    const iterations = [
      { type: 'message', input_tokens: message.usage.input_tokens, output_tokens: message.usage.output_tokens },
      { type: 'advisor_message', model: advisor.model, ...MOCK_ADVICE_USAGE },
    ];
    message.usage = { ...message.usage, iterations };
    events = events.map((e) => (e.type === 'message_delta' ? { ...e, usage: { ...e.usage, iterations } } : e));
  }
  const input = measuredPromptTokens(body);
  if (input !== undefined) {
    message.usage = { ...message.usage, input_tokens: input };
    events = events.map((e) => (e.type === 'message_start' ? { ...e, message: { ...e.message, usage: { ...e.message.usage, input_tokens: input } } } : e.type === 'message_delta' && e.usage?.input_tokens !== undefined ? { ...e, usage: { ...e.usage, input_tokens: input } } : e));
  }
  return { scenario, message, events };
}

export const sseEvent = (e: { type: string; [field: string]: unknown }) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
