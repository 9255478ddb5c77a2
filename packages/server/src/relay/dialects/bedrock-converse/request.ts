import type { AssistantPart, ChatRequest, ImagePart, ImageSource, Message, TextPart, ToolChoice, UserPart } from '../../canonical.js';
import { emptyRequest } from '../../canonical.js';
import { argumentsObject, asArray, asNumber, asString, badRequest, isRecord } from '../shared.js';
import { bedrockModelFamily } from './model-family.js';

/**
 * Bedrock Converse (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html) <->
 * canonical request. The model and streaming are in the URL, not the body. A `cachePoint` block caches everything
 * before it, which is the canonical `cache` mark on the text part it follows. Model-specific settings travel in
 * `additionalModelRequestFields`: Claude's `thinking` and `top_k`, Nova's `inferenceConfig.topK`.
 */
export function parseConverseRequest(body: Record<string, unknown>): ChatRequest {
  if (!Array.isArray(body.messages)) throw badRequest('messages 必须是数组');
  const request = emptyRequest(asString(body.modelId) ?? '');
  request.system = readBlocks(asArray(body.system), (block, parts) => {
    if (typeof block.text === 'string' && block.text) parts.push({ type: 'text', text: block.text });
    else if (isRecord(block.guardContent) && isRecord(block.guardContent.text) && typeof block.guardContent.text.text === 'string') parts.push({ type: 'text', text: block.guardContent.text.text });
  });

  for (const raw of body.messages) {
    if (!isRecord(raw) || (raw.role !== 'user' && raw.role !== 'assistant')) throw badRequest('messages 的 role 只能是 user 或 assistant');
    const content = asArray(raw.content);
    if (raw.role === 'user') append(request.messages, { role: 'user', content: readBlocks<UserPart>(content, readUserBlock) });
    else append(request.messages, { role: 'assistant', content: readBlocks<AssistantPart>(content, readAssistantBlock) });
  }

  const toolConfig = isRecord(body.toolConfig) ? body.toolConfig : {};
  for (const tool of asArray(toolConfig.tools)) {
    if (!isRecord(tool) || !isRecord(tool.toolSpec)) continue;
    const spec = tool.toolSpec;
    const name = asString(spec.name);
    if (!name) throw badRequest('toolConfig.tools 中的工具缺少 name');
    const schema = isRecord(spec.inputSchema) && isRecord(spec.inputSchema.json) ? spec.inputSchema.json : { type: 'object', properties: {} };
    request.tools.push({ name, description: asString(spec.description), parameters: schema });
  }
  if (isRecord(toolConfig.toolChoice)) {
    const choice = toolConfig.toolChoice;
    if (isRecord(choice.tool) && asString(choice.tool.name)) request.toolChoice = { type: 'tool', name: choice.tool.name as string };
    else if (choice.any !== undefined) request.toolChoice = { type: 'required' };
    else if (choice.auto !== undefined) request.toolChoice = { type: 'auto' };
  }

  const inference = isRecord(body.inferenceConfig) ? body.inferenceConfig : {};
  const max = asNumber(inference.maxTokens);
  if (max !== undefined && max > 0) request.maxOutputTokens = Math.floor(max);
  request.temperature = asNumber(inference.temperature);
  request.topP = asNumber(inference.topP);
  const stop = asArray(inference.stopSequences).filter((s): s is string => typeof s === 'string');
  if (stop.length) request.stop = stop;

  const extra = isRecord(body.additionalModelRequestFields) ? body.additionalModelRequestFields : {};
  request.topK = asNumber(extra.top_k) ?? (isRecord(extra.inferenceConfig) ? asNumber(extra.inferenceConfig.topK) : undefined);
  if (isRecord(extra.thinking)) {
    if (extra.thinking.type === 'enabled') request.reasoning = { enabled: true, budgetTokens: asNumber(extra.thinking.budget_tokens) };
    else if (extra.thinking.type === 'adaptive') request.reasoning = { enabled: true, effort: 'medium' };
    else if (extra.thinking.type === 'disabled') request.reasoning = { enabled: false };
  }
  return request;
}

/** Reads content blocks; a `cachePoint` marks the text part just read (the canonical model caches at text parts). */
function readBlocks<T extends UserPart | AssistantPart | TextPart>(blocks: unknown[], read: (block: Record<string, unknown>, parts: T[]) => void): T[] {
  const parts: T[] = [];
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    if (isRecord(block.cachePoint)) {
      const last = parts.at(-1);
      if (last?.type === 'text') (last as TextPart).cache = block.cachePoint.ttl === '1h' ? 'ephemeral-1h' : 'ephemeral';
      continue;
    }
    read(block, parts);
  }
  return parts;
}

function append(messages: Message[], message: Message): void {
  if (message.content.length === 0) return;
  const last = messages.at(-1);
  if (last && last.role === message.role) (last.content as unknown[]).push(...message.content);
  else messages.push(message);
}

const IMAGE_FORMATS: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

function readImage(image: Record<string, unknown>): ImageSource {
  const source = isRecord(image.source) ? image.source : {};
  if (typeof source.bytes !== 'string') throw badRequest('图片只支持 base64 内容（source.bytes），不支持 S3 地址');
  return { kind: 'base64', mediaType: IMAGE_FORMATS[String(image.format)] ?? 'image/png', data: source.bytes };
}

function refuseMedia(block: Record<string, unknown>): void {
  for (const kind of ['document', 'video']) if (block[kind] !== undefined) throw badRequest(`该模型的渠道不支持 ${kind} 类型的内容`);
}

function readUserBlock(block: Record<string, unknown>, parts: UserPart[]): void {
  refuseMedia(block);
  if (typeof block.text === 'string') {
    if (block.text) parts.push({ type: 'text', text: block.text });
  } else if (isRecord(block.image)) parts.push({ type: 'image', source: readImage(block.image) });
  else if (isRecord(block.guardContent) && isRecord(block.guardContent.text) && typeof block.guardContent.text.text === 'string') {
    parts.push({ type: 'text', text: block.guardContent.text.text });
  } else if (isRecord(block.toolResult)) {
    const result = block.toolResult;
    const content = asArray(result.content).flatMap((inner): Array<TextPart | ImagePart> => {
      if (!isRecord(inner)) return [];
      refuseMedia(inner);
      if (typeof inner.text === 'string') return [{ type: 'text', text: inner.text }];
      if (inner.json !== undefined) return [{ type: 'text', text: JSON.stringify(inner.json) }];
      if (isRecord(inner.image)) return [{ type: 'image', source: readImage(inner.image) }];
      return [];
    });
    parts.push({ type: 'tool_result', callId: asString(result.toolUseId) ?? '', content, isError: result.status === 'error' });
  }
}

function readAssistantBlock(block: Record<string, unknown>, parts: AssistantPart[]): void {
  if (typeof block.text === 'string') {
    if (block.text) parts.push({ type: 'text', text: block.text });
  } else if (isRecord(block.toolUse)) {
    const use = block.toolUse;
    parts.push({ type: 'tool_call', id: asString(use.toolUseId) ?? '', name: asString(use.name) ?? '', arguments: JSON.stringify(use.input ?? {}) });
  } else if (isRecord(block.reasoningContent)) {
    const reasoning = block.reasoningContent;
    if (typeof reasoning.redactedContent === 'string') parts.push({ type: 'reasoning', text: '', redacted: reasoning.redactedContent });
    else if (isRecord(reasoning.reasoningText)) parts.push({ type: 'reasoning', text: asString(reasoning.reasoningText.text) ?? '', signature: asString(reasoning.reasoningText.signature) });
  }
}

/** Thinking budgets for an OpenAI-style effort (Claude's minimum budget is 1,024). */
const BUDGET = { minimal: 1024, low: 2048, medium: 8192, high: 24576 } as const;
const MEDIA_FORMAT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };
const blank = (text: string) => text.trim() === '';

export function buildConverseRequest(request: ChatRequest): Record<string, unknown> {
  const family = bedrockModelFamily(request.model);
  const body: Record<string, unknown> = {};
  const system = request.system.filter((p) => !blank(p.text)).flatMap(writeText);
  if (system.length) body.system = system;

  const messages: Array<{ role: string; content: Array<Record<string, unknown>> }> = [];
  for (const message of request.messages) {
    const content = message.role === 'user' ? userBlocks(message.content) : message.content.flatMap(writeAssistant);
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
  const results = parts.flatMap((part) => {
    if (part.type !== 'tool_result') return [];
    const content = part.content.flatMap((p) => (p.type === 'text' ? (blank(p.text) ? [] : [{ text: p.text }]) : [writeImage(p)]));
    return [{ toolResult: { toolUseId: part.callId, content, ...(part.isError ? { status: 'error' } : {}) } }];
  });
  const rest = parts.flatMap((part) => (part.type === 'text' ? (blank(part.text) ? [] : writeText(part)) : part.type === 'image' ? [writeImage(part)] : []));
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
