import type { AssistantPart, ChatRequest, ImagePart, TextPart, ToolChoice, UserPart } from '../../canonical.js';
import { argumentsObject, badRequest, isRecord } from '../shared.js';
import { bedrockModelFamily } from './model-family.js';
import { flatMap } from '../../../lib/arrays.js';

/** Thinking budgets for an OpenAI-style effort (Claude's minimum budget is 1,024). */
const BUDGET = { minimal: 1024, low: 2048, medium: 8192, high: 24576 } as const;
const MEDIA_FORMAT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };
const blank = (text: string) => text.trim() === '';

/**
 * A canonical request as a Bedrock Converse body (parse-request.ts reads the other way). Model-specific settings
 * travel in `additionalModelRequestFields`: Claude's `thinking` and `top_k`, Nova's `inferenceConfig.topK`.
 */
export function buildConverseRequest(request: ChatRequest): Record<string, unknown> {
  const family = bedrockModelFamily(request.model);
  const body: Record<string, unknown> = {};
  const system = flatMap(request.system.filter((p) => !blank(p.text)), writeText);
  if (system.length) body.system = system;

  const messages: Array<{ role: string; content: Array<Record<string, unknown>> }> = [];
  for (const message of request.messages) {
    const content = message.role === 'user' ? userBlocks(message.content) : flatMap(message.content, writeAssistant);
    if (content.length === 0) continue;
    const last = messages.at(-1);
    if (last?.role === message.role) last.content.push(...content);
    else messages.push({ role: message.role, content });
  }
  // Converse wants the conversation to open with a user turn.
  if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: [{ text: '(continue)' }] });
  body.messages = messages;

  if (request.webSearch) throw badRequest('Bedrock Converse 没有内置网页搜索（web_search）：请关闭网页搜索（Codex CLI：config.toml 中 web_search = "disabled"）或换用 Claude / Gemini 渠道');
  const toolConfig = buildToolConfig(request, messages);
  if (toolConfig) body.toolConfig = toolConfig;

  const inference: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  const maxTokens = request.maxOutputTokens ?? 4096;
  if (request.maxOutputTokens !== undefined) inference.maxTokens = request.maxOutputTokens;
  const reasoning = request.reasoning;
  if (family === 'anthropic' && reasoning && reasoning.enabled !== false && (reasoning.budgetTokens || reasoning.effort)) {
    // Claude's rules: budget_tokens at least 1,024 and below max_tokens.
    const budget = Math.max(1024, Math.min(reasoning.budgetTokens ?? BUDGET[reasoning.effort ?? 'medium'], maxTokens - 1));
    if (budget < maxTokens) {
      extra.thinking = { type: 'enabled', budget_tokens: budget };
      inference.maxTokens = maxTokens;
    }
  }
  const thinking = extra.thinking !== undefined;
  // With thinking on, Claude refuses a changed temperature, top_k and a top_p below 0.95.
  if (request.temperature !== undefined && !thinking) inference.temperature = Math.min(1, Math.max(0, request.temperature));
  if (request.topP !== undefined && (!thinking || request.topP >= 0.95)) inference.topP = Math.min(1, Math.max(0, request.topP));
  if (request.stop?.length) inference.stopSequences = request.stop;
  if (Object.keys(inference).length) body.inferenceConfig = inference;
  if (request.topK !== undefined && !thinking) {
    if (family === 'anthropic') extra.top_k = request.topK;
    else if (family === 'amazon') extra.inferenceConfig = { topK: request.topK };
  }
  if (Object.keys(extra).length) body.additionalModelRequestFields = extra;
  return body;
}

function writeText(part: TextPart): Array<Record<string, unknown>> {
  if (!part.cache) return [{ text: part.text }];
  return [{ text: part.text }, { cachePoint: part.cache === 'ephemeral-1h' ? { type: 'default', ttl: '1h' } : { type: 'default' } }];
}

function writeImage(part: ImagePart): Record<string, unknown> {
  if (part.source.kind === 'url') throw badRequest('Bedrock 渠道不支持图片链接，请以 base64（data: URL）发送图片');
  const format = MEDIA_FORMAT[part.source.mediaType.toLowerCase()];
  if (!format) throw badRequest(`Bedrock 渠道不支持该图片格式：${part.source.mediaType.slice(0, 40)}（支持 png、jpeg、gif、webp）`);
  return { image: { format, source: { bytes: part.source.data } } };
}

/** Tool results first: Claude wants them at the start of the user turn that answers the calls. */
function userBlocks(parts: UserPart[]): Array<Record<string, unknown>> {
  const results = flatMap(parts, (part) => {
    if (part.type !== 'tool_result') return [];
    const content = flatMap(part.content, (p) => (p.type === 'text' ? (blank(p.text) ? [] : [{ text: p.text }]) : [writeImage(p)]));
    return [{ toolResult: { toolUseId: part.callId, content, ...(part.isError ? { status: 'error' } : {}) } }];
  });
  const rest = flatMap(parts, (part) => (part.type === 'text' ? (blank(part.text) ? [] : writeText(part)) : part.type === 'image' ? [writeImage(part)] : []));
  return [...results, ...rest];
}

function writeAssistant(part: AssistantPart): Array<Record<string, unknown>> {
  if (part.type === 'text') return blank(part.text) ? [] : [{ text: part.text }];
  if (part.type === 'tool_call') return [{ toolUse: { toolUseId: part.id, name: part.name, input: argumentsObject(part.arguments) } }];
  if (part.redacted) return [{ reasoningContent: { redactedContent: part.redacted } }];
  // Reasoning goes back only with the signature its model gave it; reasoning from other providers has none.
  return part.signature ? [{ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } }] : [];
}

/**
 * Converse refuses toolUse / toolResult blocks without a toolConfig, so a conversation that used tools keeps one
 * (tools it no longer declares are declared again by name). `none` has no Converse counterpart: without tool
 * blocks in the conversation the tools are left out, else they stay with the model choosing.
 */
function buildToolConfig(request: ChatRequest, messages: Array<{ content: Array<Record<string, unknown>> }>): Record<string, unknown> | undefined {
  const used = new Set<string>();
  let toolBlocks = false;
  for (const message of messages) {
    for (const block of message.content) {
      if (isRecord(block.toolUse)) used.add(String(block.toolUse.name));
      if (block.toolUse || block.toolResult) toolBlocks = true;
    }
  }
  if (request.toolChoice?.type === 'none' && !toolBlocks) return undefined;
  const tools = request.tools.map((t) => ({ toolSpec: { name: t.name, ...(t.description ? { description: t.description } : {}), inputSchema: { json: t.parameters } } }));
  for (const name of used) if (name && !request.tools.some((t) => t.name === name)) tools.push({ toolSpec: { name, inputSchema: { json: { type: 'object', properties: {} } } } });
  if (tools.length === 0) return undefined;
  const choice: ToolChoice | undefined = request.toolChoice;
  const toolChoice = choice?.type === 'required' ? { any: {} } : choice?.type === 'tool' ? { tool: { name: choice.name } } : choice?.type === 'auto' ? { auto: {} } : undefined;
  return { tools, ...(toolChoice ? { toolChoice } : {}) };
}
