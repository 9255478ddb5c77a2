import type { AssistantPart, ChatRequest, ImagePart, ImageSource, TextPart, ToolChoice, UserPart } from '../../canonical.js';
import { emptyRequest } from '../../canonical.js';
import { appendTurn, asArray, asNumber, asString, badRequest, isRecord } from '../shared.js';
import { flatMap } from '../../../lib/arrays.js';

/**
 * A client's Anthropic Messages body (https://docs.anthropic.com/en/api/messages) as a canonical request
 * (build-request.ts writes the other way).
 * Blocks the other dialects have no counterpart for (documents, citations) cannot be translated: documents are
 * refused with a clear error. Of the tools Anthropic runs itself, web search becomes the other provider's own web
 * search (or a clear refusal where it has none); tool search is left out, every deferred tool (`defer_loading`)
 * being offered directly; the rest (web fetch, code execution, Anthropic-defined tools without a schema) are
 * refused naming the tool.
 */
export function parseMessagesRequest(body: Record<string, unknown>): ChatRequest {
  const model = asString(body.model);
  if (!model) throw badRequest('请求缺少 model 字段');
  if (!Array.isArray(body.messages)) throw badRequest('messages 必须是数组');
  const request = emptyRequest(model);
  request.stream = body.stream === true;
  request.system = typeof body.system === 'string' ? (body.system ? [{ type: 'text', text: body.system }] : []) : flatMap(asArray(body.system), textBlock);

  for (const raw of body.messages) {
    if (!isRecord(raw) || (raw.role !== 'user' && raw.role !== 'assistant' && raw.role !== 'system')) throw badRequest('messages 的 role 只能是 user、assistant 或 system');
    const blocks = typeof raw.content === 'string' ? [{ type: 'text', text: raw.content }] : asArray(raw.content);
    // Claude Code sends instructions as system turns inside the conversation for models that are not Claude's:
    // they join the system prompt, which every provider has.
    if (raw.role === 'system') {
      request.system.push(...flatMap(blocks, (block) => (isRecord(block) ? textBlock(block) : [])));
      continue;
    }
    if (raw.role === 'user') {
      const parts: UserPart[] = [];
      for (const block of blocks) if (isRecord(block)) parts.push(...userBlock(block));
      appendTurn(request.messages, { role: 'user', content: parts });
    } else {
      const parts: AssistantPart[] = [];
      for (const block of blocks) if (isRecord(block)) parts.push(...assistantBlock(block));
      appendTurn(request.messages, { role: 'assistant', content: parts });
    }
  }

  for (const tool of asArray(body.tools)) {
    if (!isRecord(tool)) continue;
    const type = asString(tool.type);
    if (type !== undefined && type !== 'custom') {
      if (type.startsWith('web_search')) {
        const domains = asArray(tool.allowed_domains).filter((d): d is string => typeof d === 'string');
        request.webSearch = { ...(asNumber(tool.max_uses) ? { maxUses: asNumber(tool.max_uses) } : {}), ...(domains.length > 0 ? { allowedDomains: domains } : {}) };
        continue;
      }
      if (type.startsWith('tool_search')) continue;
      if (!isRecord(tool.input_schema)) throw badRequest(`此渠道无法使用 Anthropic 的工具 ${type.slice(0, 60)}（仅 Claude 渠道直通时可用）`);
    }
    const name = asString(tool.name);
    if (!name) throw badRequest('tools 中的工具缺少 name');
    request.tools.push({ name, description: asString(tool.description), parameters: isRecord(tool.input_schema) ? tool.input_schema : { type: 'object', properties: {} } });
  }
  if (isRecord(body.tool_choice)) {
    const choice = body.tool_choice;
    const map: Record<string, ToolChoice | undefined> = { auto: { type: 'auto' }, any: { type: 'required' }, none: { type: 'none' } };
    request.toolChoice = choice.type === 'tool' && asString(choice.name) ? { type: 'tool', name: choice.name as string } : map[String(choice.type)];
    if (choice.disable_parallel_tool_use === true) request.parallelToolCalls = false;
  }
  const max = asNumber(body.max_tokens);
  if (max !== undefined && max > 0) request.maxOutputTokens = Math.floor(max);
  request.temperature = asNumber(body.temperature);
  request.topP = asNumber(body.top_p);
  request.topK = asNumber(body.top_k);
  const stop = asArray(body.stop_sequences).filter((s): s is string => typeof s === 'string');
  if (stop.length) request.stop = stop;
  if (isRecord(body.metadata)) request.user = asString(body.metadata.user_id);
  if (isRecord(body.thinking)) {
    if (body.thinking.type === 'enabled') request.reasoning = { enabled: true, budgetTokens: asNumber(body.thinking.budget_tokens) };
    else if (body.thinking.type === 'disabled') request.reasoning = { enabled: false };
  }
  return request;
}

function textBlock(block: unknown): TextPart[] {
  if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') return [];
  const part: TextPart = { type: 'text', text: block.text };
  if (isRecord(block.cache_control)) part.cache = block.cache_control.ttl === '1h' ? 'ephemeral-1h' : 'ephemeral';
  return [part];
}

function imageSource(source: unknown): ImageSource | undefined {
  if (!isRecord(source)) return undefined;
  if (source.type === 'base64' && typeof source.data === 'string') return { kind: 'base64', mediaType: asString(source.media_type) ?? 'image/png', data: source.data };
  if (source.type === 'url' && typeof source.url === 'string') return { kind: 'url', url: source.url };
  return undefined;
}

function userBlock(block: Record<string, unknown>): UserPart[] {
  if (block.type === 'text') return textBlock(block);
  if (block.type === 'image') {
    const source = imageSource(block.source);
    return source ? [{ type: 'image', source }] : [];
  }
  if (block.type === 'tool_result') {
    const content: Array<TextPart | ImagePart> =
      typeof block.content === 'string'
        ? [{ type: 'text', text: block.content }]
        : flatMap(asArray(block.content), (inner): Array<TextPart | ImagePart> => {
            if (!isRecord(inner)) return [];
            if (inner.type === 'image') {
              const source = imageSource(inner.source);
              return source ? [{ type: 'image', source }] : [];
            }
            return textBlock(inner);
          });
    return [{ type: 'tool_result', callId: asString(block.tool_use_id) ?? '', content, isError: block.is_error === true }];
  }
  if (block.type === 'document') throw badRequest('该模型的渠道不支持 document 类型的内容');
  return [];
}

function assistantBlock(block: Record<string, unknown>): AssistantPart[] {
  if (block.type === 'text' && typeof block.text === 'string') return block.text ? [{ type: 'text', text: block.text }] : [];
  if (block.type === 'thinking') return [{ type: 'reasoning', text: asString(block.thinking) ?? '', signature: asString(block.signature) }];
  if (block.type === 'redacted_thinking') return [{ type: 'reasoning', text: '', redacted: asString(block.data) ?? '' }];
  if (block.type === 'tool_use') return [{ type: 'tool_call', id: asString(block.id) ?? '', name: asString(block.name) ?? '', arguments: JSON.stringify(block.input ?? {}) }];
  return [];
}
