import type { AssistantPart, ChatRequest, ImagePart, Message, ReasoningConfig, ResponseFormat, TextPart, ToolChoice, UserPart } from '../../canonical.js';
import { emptyRequest } from '../../canonical.js';
import { asArray, asNumber, asString, badRequest, imageFromUrl, isRecord } from '../shared.js';
import { uncarry } from './carrier.js';
import { callOfItem, readClientTools, resultOfItem } from './client-tools.js';
import { flatMap } from '../../../lib/arrays.js';

/**
 * An OpenAI Responses body (https://platform.openai.com/docs/api-reference/responses/create) as a canonical
 * request, for a channel that does not speak Responses. Runs only when translating: a body passed through to
 * OpenAI keeps everything, built-in tools and stored state included.
 *
 * What only OpenAI can do is refused with a clear 400 rather than silently dropped: built-in tools (web search,
 * file search, computer use...), items they produced, files by id, and conversation state kept at OpenAI
 * (`previous_response_id`, `conversation`, `item_reference`, stored prompts): the gateway keeps no state.
 */
export function parseResponsesRequest(body: Record<string, unknown>): ChatRequest {
  const model = asString(body.model);
  if (!model) throw badRequest('请求缺少 model 字段');
  refuseStoredState(body);
  const request = emptyRequest(model);
  request.stream = body.stream === true;

  if (typeof body.instructions === 'string') {
    if (body.instructions) request.system.push({ type: 'text', text: body.instructions });
  } else if (body.instructions !== undefined && body.instructions !== null) throw badRequest('instructions 必须是字符串');

  if (typeof body.input === 'string') {
    if (body.input) request.messages.push({ role: 'user', content: [{ type: 'text', text: body.input }] });
  } else if (Array.isArray(body.input)) readItems(body.input, request);
  else if (body.input !== undefined && body.input !== null) throw badRequest('input 必须是字符串或数组');
  if (request.messages.length === 0) throw badRequest('input 不能为空');

  readTools(body.tools, request);
  request.toolChoice = readToolChoice(body.tool_choice, request);
  const max = asNumber(body.max_output_tokens);
  if (max !== undefined && max > 0) request.maxOutputTokens = Math.floor(max);
  request.temperature = asNumber(body.temperature);
  request.topP = asNumber(body.top_p);
  request.reasoning = readReasoning(body.reasoning);
  request.responseFormat = readFormat(body.text);
  if (typeof body.parallel_tool_calls === 'boolean') request.parallelToolCalls = body.parallel_tool_calls;
  request.user = asString(body.safety_identifier) ?? asString(body.user);
  return request;
}

const STATELESS = '网关不保存会话状态';
const ONLY_OPENAI = '（仅 OpenAI 渠道直通时可用）';
/** A tool only OpenAI's own service can run. */
const builtInTool = (type: unknown) => `此渠道无法使用 OpenAI 内置工具 ${String(type).slice(0, 60)}${ONLY_OPENAI}`;

function refuseStoredState(body: Record<string, unknown>): void {
  if (typeof body.previous_response_id === 'string' && body.previous_response_id) {
    throw badRequest(`${STATELESS}，此渠道不支持 previous_response_id：请在 input 中发送完整的对话历史（可设 store: false）`);
  }
  if (body.conversation !== undefined && body.conversation !== null) throw badRequest(`${STATELESS}，此渠道不支持 conversation：请在 input 中发送完整的对话历史`);
  if (body.prompt !== undefined && body.prompt !== null) throw badRequest(`此渠道不支持 OpenAI 托管的 prompt 模板${ONLY_OPENAI}`);
}

function readItems(items: unknown[], request: ChatRequest): void {
  const names = new Map<string, string>();
  // A tool call's signature travels in the reasoning item just before it (see carrier.ts).
  let toolSignature: string | undefined;
  items.forEach((raw, index) => {
    if (!isRecord(raw)) throw badRequest(`input[${index}] 必须是对象`);
    const type = raw.type ?? (raw.role !== undefined ? 'message' : undefined);
    if (type === 'message') return readMessage(raw, index, request);
    // Calls of every client-run tool kind (function, custom, in a namespace, local_shell, shell, apply_patch) and their results.
    const call = callOfItem(raw);
    if (call) {
      if (!call.callId || !call.name) throw badRequest(`input[${index}]：${String(type)} 缺少 call_id 或 name`);
      names.set(call.callId, call.name);
      append(request.messages, 'assistant', [{ type: 'tool_call', id: call.callId, name: call.name, arguments: call.arguments, ...(toolSignature ? { signature: toolSignature } : {}) }]);
      toolSignature = undefined;
      return;
    }
    const result = resultOfItem(raw);
    if (result) {
      if (!result.callId) throw badRequest(`input[${index}]：${String(type)} 缺少 call_id`);
      append(request.messages, 'user', [{ type: 'tool_result', callId: result.callId, name: names.get(result.callId), content: toolOutput(result.output, index) }]);
      return;
    }
    // A tool search's request and answer: every deferred tool is offered to this channel directly.
    if (type === 'tool_search_call' || type === 'tool_search_output') return;
    if (type === 'reasoning') {
      const carried = uncarry(raw.encrypted_content);
      if (carried?.toolSignature) toolSignature = carried.toolSignature;
      if (carried?.redacted !== undefined) append(request.messages, 'assistant', [{ type: 'reasoning', text: '', redacted: carried.redacted }]);
      else if (carried?.signature !== undefined) append(request.messages, 'assistant', [{ type: 'reasoning', text: reasoningText(raw), signature: carried.signature }]);
      // Reasoning without the gateway's carrier (OpenAI's own encrypted reasoning, a bare summary) is unusable elsewhere.
      return;
    }
    // An image the model drew (written by the gateway from another provider's image): the model does not read it back.
    if (type === 'image_generation_call') return;
    if (type === 'item_reference') throw badRequest(`${STATELESS}，此渠道不支持 item_reference：请在 input 中发送条目本身`);
    throw badRequest(`input[${index}]：此渠道无法处理 Responses 的 ${String(type).slice(0, 60)} 条目${ONLY_OPENAI}`);
  });
}

function readMessage(raw: Record<string, unknown>, index: number, request: ChatRequest): void {
  const role = raw.role;
  if (role === 'system' || role === 'developer') request.system.push(...contentParts(raw.content, index, 'system').filter((p): p is TextPart => p.type === 'text'));
  else if (role === 'user') append(request.messages, 'user', contentParts(raw.content, index, 'user'));
  else if (role === 'assistant') append(request.messages, 'assistant', contentParts(raw.content, index, 'assistant') as TextPart[]);
  else throw badRequest(`input[${index}] 的 role 无效：${String(role).slice(0, 40)}`);
}

/** Content of a message: a string, or input_text / input_image parts (output_text and refusal for the assistant). */
function contentParts(content: unknown, index: number, role: 'system' | 'user' | 'assistant'): Array<TextPart | ImagePart> {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) throw badRequest(`input[${index}] 的 content 必须是字符串或数组`);
  const parts: Array<TextPart | ImagePart> = [];
  for (const item of content) {
    if (!isRecord(item)) throw badRequest(`input[${index}] 的 content 每一项必须是对象`);
    const text = item.type === 'refusal' ? asString(item.refusal) : asString(item.text);
    if (item.type === 'input_text' || item.type === 'output_text' || item.type === 'refusal' || item.type === 'text') {
      if (text) parts.push({ type: 'text', text });
    } else if (item.type === 'input_image' && role === 'user') parts.push(inputImage(item, index));
    else if (item.type === 'input_file' || item.type === 'input_audio' || item.type === 'input_image') {
      throw badRequest(`input[${index}]：此渠道不支持 ${item.type} 类型的内容`);
    } else throw badRequest(`input[${index}]：不支持的内容类型 ${String(item.type).slice(0, 40)}`);
  }
  return parts;
}

function inputImage(item: Record<string, unknown>, index: number): ImagePart {
  const url = asString(item.image_url);
  if (url) return { type: 'image', source: imageFromUrl(url) };
  if (item.file_id) throw badRequest(`input[${index}]：此渠道不支持以 file_id 引用的图片，请改用 image_url（URL 或 data URL）`);
  throw badRequest(`input[${index}]：input_image 缺少 image_url`);
}

/** A function_call_output's output: text, or a list of input_text / input_image parts. */
function toolOutput(output: unknown, index: number): Array<TextPart | ImagePart> {
  if (typeof output === 'string') return output ? [{ type: 'text', text: output }] : [];
  if (Array.isArray(output)) return contentParts(output, index, 'user');
  throw badRequest(`input[${index}]：function_call_output 的 output 必须是字符串或数组`);
}

/** The reasoning's words: its raw content when given, else its summary. */
export function reasoningText(item: Record<string, unknown>): string {
  const read = (list: unknown, type: string) =>
    flatMap(asArray(list), (p) => (isRecord(p) && p.type === type && typeof p.text === 'string' ? [p.text] : []))
      .join('\n\n');
  return read(item.content, 'reasoning_text') || read(item.summary, 'summary_text');
}

/** Consecutive items of one role make one turn: function calls join the assistant's text, their outputs the user's. */
function append(messages: Message[], role: 'user', parts: UserPart[]): void;
function append(messages: Message[], role: 'assistant', parts: AssistantPart[]): void;
function append(messages: Message[], role: 'user' | 'assistant', parts: Array<UserPart | AssistantPart>): void {
  if (parts.length === 0) return;
  const last = messages.at(-1);
  if (last && last.role === role) (last.content as Array<UserPart | AssistantPart>).push(...parts);
  else messages.push({ role, content: parts } as Message);
}

/**
 * Tools: every kind the client runs becomes a function (client-tools.ts). Of the tools OpenAI runs, web search goes
 * to the provider's own web search where it has one (the upstream dialect refuses it otherwise); the rest exist
 * only at OpenAI and are refused naming the tool.
 */
function readTools(tools: unknown, request: ChatRequest): void {
  if (tools === undefined || tools === null) return;
  if (!Array.isArray(tools)) throw badRequest('tools 必须是数组');
  const { defined, hosted } = readClientTools(tools);
  request.tools.push(...defined.map((d) => d.definition));
  for (const tool of hosted) {
    if (typeof tool.type === 'string' && /^web_search/.test(tool.type)) {
      const filters = isRecord(tool.filters) ? asArray(tool.filters.allowed_domains).filter((d): d is string => typeof d === 'string') : [];
      request.webSearch = { ...(filters.length > 0 ? { allowedDomains: filters } : {}) };
      continue;
    }
    throw badRequest(builtInTool(tool.type));
  }
}

function readToolChoice(choice: unknown, request: ChatRequest): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { type: choice };
  if (!isRecord(choice)) throw badRequest('tool_choice 无效');
  if ((choice.type === 'function' || choice.type === 'custom') && asString(choice.name)) return { type: 'tool', name: choice.name as string };
  if (choice.type === 'allowed_tools') {
    // Only the allowed functions are offered: the restriction survives as a shorter tool list.
    const allowed = new Set(flatMap(asArray(choice.tools), (t) => (isRecord(t) && (t.type === 'function' || t.type === 'custom') && typeof t.name === 'string' ? [t.name] : [])));
    request.tools = request.tools.filter((t) => allowed.has(t.name));
    return { type: choice.mode === 'required' ? 'required' : 'auto' };
  }
  throw badRequest(builtInTool(choice.type));
}

function readReasoning(value: unknown): ReasoningConfig | undefined {
  if (!isRecord(value)) return undefined;
  const effort = value.effort;
  if (effort === 'none') return { enabled: false };
  if (effort === 'minimal' || effort === 'low' || effort === 'medium' || effort === 'high') return { effort };
  if (effort === 'xhigh' || effort === 'max') return { effort: 'high' };
  return undefined;
}

function readFormat(text: unknown): ResponseFormat | undefined {
  if (!isRecord(text) || !isRecord(text.format)) return undefined;
  const format = text.format;
  if (format.type === 'json_schema') return { type: 'json_schema', name: asString(format.name) ?? 'response', schema: isRecord(format.schema) ? format.schema : {}, strict: format.strict === true };
  if (format.type === 'json_object') return { type: 'json_object' };
  return format.type === 'text' ? { type: 'text' } : undefined;
}
