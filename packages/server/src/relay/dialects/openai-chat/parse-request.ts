import type { AssistantPart, ChatRequest, ImagePart, Message, ReasoningConfig, ResponseFormat, TextPart, ToolChoice, ToolDefinition, UserPart } from '../../canonical.js';
import { emptyRequest } from '../../canonical.js';
import { asArray, asNumber, asString, badRequest, imageFromUrl, isRecord } from '../shared.js';

/**
 * An OpenAI Chat Completions body as a canonical request
 * (https://platform.openai.com/docs/api-reference/chat/create). System and developer messages become the
 * system prompt; `tool` (and legacy `function`) messages become tool results in a user turn.
 */
export function parseChatRequest(body: Record<string, unknown>): ChatRequest {
  const model = asString(body.model);
  if (!model) throw badRequest('请求缺少 model 字段');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw badRequest('messages 必须是非空数组');
  const request = emptyRequest(model);
  request.stream = body.stream === true;

  const names = new Map<string, string>();
  for (const raw of body.messages) {
    if (!isRecord(raw)) throw badRequest('messages 的每一项必须是对象');
    const role = raw.role;
    if (role === 'system' || role === 'developer') {
      request.system.push(...textParts(raw.content));
    } else if (role === 'user') {
      push(request.messages, 'user', userParts(raw.content));
    } else if (role === 'assistant') {
      const parts: AssistantPart[] = [];
      const reasoning = asString(raw.reasoning_content) ?? asString(raw.reasoning);
      if (reasoning) parts.push({ type: 'reasoning', text: reasoning });
      parts.push(...textParts(raw.content));
      for (const call of asArray(raw.tool_calls)) {
        if (!isRecord(call) || !isRecord(call.function)) continue;
        const id = asString(call.id) ?? `call_${names.size}`;
        const name = asString(call.function.name) ?? '';
        names.set(id, name);
        parts.push({ type: 'tool_call', id, name, arguments: stringArguments(call.function.arguments) });
      }
      if (isRecord(raw.function_call)) {
        const name = asString(raw.function_call.name) ?? '';
        names.set(name, name);
        parts.push({ type: 'tool_call', id: name, name, arguments: stringArguments(raw.function_call.arguments) });
      }
      push(request.messages, 'assistant', parts);
    } else if (role === 'tool' || role === 'function') {
      const callId = asString(raw.tool_call_id) ?? asString(raw.name) ?? '';
      const content = userParts(raw.content).filter((p): p is TextPart | ImagePart => p.type !== 'tool_result');
      push(request.messages, 'user', [{ type: 'tool_result', callId, name: asString(raw.name) ?? names.get(callId), content }]);
    } else {
      throw badRequest(`不支持的消息角色：${String(role).slice(0, 40)}`);
    }
  }

  request.tools = parseTools(body);
  request.toolChoice = parseToolChoice(body.tool_choice ?? body.function_call);
  const max = asNumber(body.max_completion_tokens) ?? asNumber(body.max_tokens);
  if (max !== undefined && max > 0) request.maxOutputTokens = Math.floor(max);
  request.temperature = asNumber(body.temperature);
  request.topP = asNumber(body.top_p);
  request.seed = asNumber(body.seed);
  request.frequencyPenalty = asNumber(body.frequency_penalty);
  request.presencePenalty = asNumber(body.presence_penalty);
  const stop = typeof body.stop === 'string' ? [body.stop] : asArray(body.stop).filter((s): s is string => typeof s === 'string');
  if (stop.length > 0) request.stop = stop;
  request.responseFormat = parseResponseFormat(body.response_format);
  request.reasoning = parseReasoning(body);
  if (typeof body.parallel_tool_calls === 'boolean') request.parallelToolCalls = body.parallel_tool_calls;
  request.user = asString(body.user);
  return request;
}

/** Consecutive turns of one role are merged: the providers that need alternation get it. */
function push(messages: Message[], role: 'user', parts: UserPart[]): void;
function push(messages: Message[], role: 'assistant', parts: AssistantPart[]): void;
function push(messages: Message[], role: 'user' | 'assistant', parts: Array<UserPart | AssistantPart>): void {
  if (parts.length === 0) return;
  const last = messages.at(-1);
  if (last && last.role === role) (last.content as Array<UserPart | AssistantPart>).push(...parts);
  else messages.push({ role, content: parts } as Message);
}

function textParts(content: unknown): TextPart[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  const parts: TextPart[] = [];
  for (const item of asArray(content)) {
    if (isRecord(item) && (item.type === 'text' || item.type === 'input_text') && typeof item.text === 'string') parts.push({ type: 'text', text: item.text });
  }
  return parts;
}

function userParts(content: unknown): UserPart[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  const parts: UserPart[] = [];
  for (const item of asArray(content)) {
    if (!isRecord(item)) continue;
    if (item.type === 'text' && typeof item.text === 'string') parts.push({ type: 'text', text: item.text });
    else if (item.type === 'image_url') {
      const url = isRecord(item.image_url) ? asString(item.image_url.url) : asString(item.image_url);
      if (url) parts.push({ type: 'image', source: imageFromUrl(url) });
    } else if (item.type === 'input_audio' || item.type === 'file') {
      throw badRequest(`该模型的渠道不支持 ${item.type} 类型的内容`);
    }
  }
  return parts;
}

function stringArguments(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined ? '' : JSON.stringify(value);
}

function parseTools(body: Record<string, unknown>): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  for (const tool of asArray(body.tools)) {
    if (!isRecord(tool) || tool.type !== 'function' || !isRecord(tool.function)) continue;
    const fn = tool.function;
    const name = asString(fn.name);
    if (!name) throw badRequest('tools 中的函数缺少 name');
    tools.push({ name, description: asString(fn.description), parameters: isRecord(fn.parameters) ? fn.parameters : { type: 'object', properties: {} } });
  }
  for (const fn of asArray(body.functions)) {
    if (!isRecord(fn) || !asString(fn.name)) continue;
    tools.push({ name: fn.name as string, description: asString(fn.description), parameters: isRecord(fn.parameters) ? fn.parameters : { type: 'object', properties: {} } });
  }
  return tools;
}

function parseToolChoice(choice: unknown): ToolChoice | undefined {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'required' };
  if (isRecord(choice)) {
    const name = isRecord(choice.function) ? asString(choice.function.name) : asString(choice.name);
    if (name) return { type: 'tool', name };
  }
  return undefined;
}

function parseResponseFormat(format: unknown): ResponseFormat | undefined {
  if (!isRecord(format)) return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema' && isRecord(format.json_schema)) {
    const spec = format.json_schema;
    return { type: 'json_schema', name: asString(spec.name) ?? 'response', schema: isRecord(spec.schema) ? spec.schema : {}, strict: spec.strict === true };
  }
  return format.type === 'text' ? { type: 'text' } : undefined;
}

function parseReasoning(body: Record<string, unknown>): ReasoningConfig | undefined {
  const effort = asString(body.reasoning_effort) ?? (isRecord(body.reasoning) ? asString(body.reasoning.effort) : undefined);
  if (effort === 'minimal' || effort === 'low' || effort === 'medium' || effort === 'high') return { effort };
  return undefined;
}
