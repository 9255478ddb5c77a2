import type { AssistantPart, ChatRequest, ImagePart, ImageSource, TextPart, UserPart } from '../../canonical.js';
import { emptyRequest } from '../../canonical.js';
import { appendTurn, asArray, asNumber, asString, badRequest, isRecord } from '../shared.js';
import { flatMap } from '../../../lib/arrays.js';

/**
 * A Bedrock Converse body (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html) as a
 * canonical request (build-request.ts writes the other way). The model and streaming are in the URL, not the body. A `cachePoint` block caches everything
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
    if (raw.role === 'user') appendTurn(request.messages, { role: 'user', content: readBlocks<UserPart>(content, readUserBlock) });
    else appendTurn(request.messages, { role: 'assistant', content: readBlocks<AssistantPart>(content, readAssistantBlock) });
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
    const content = flatMap(asArray(result.content), (inner): Array<TextPart | ImagePart> => {
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
