import type { AssistantPart, ChatRequest, ImagePart, ReasoningConfig, ResponseFormat, TextPart, ToolCallPart, ToolChoice, UserPart } from '../../canonical.js';
import { emptyRequest } from '../../canonical.js';
import { appendTurn, asArray, asNumber, asString, badRequest, isRecord } from '../shared.js';
import { camelProto } from './proto-json.js';
import { schemaFromGemini } from './schema.js';

/**
 * A Gemini generateContent body (https://ai.google.dev/api/generate-content) as a canonical request. The model is
 * in the URL: the body's optional `model` field ("models/<id>") is read when present, else the model is empty
 * and the pipeline supplies it. Whether to stream is also the URL's (`:streamGenerateContent`).
 *
 * Gemini has no tool-call ids: each functionCall gets a stable id from its position (`call_<turn>_<part>`, or its
 * own `id` when the client sent one), and each functionResponse answers the call of the turn before it with the
 * same id, else the same name, else the next one in order.
 */
export function parseGenerateContentRequest(raw: Record<string, unknown>): ChatRequest {
  const body = camelProto(raw) as Record<string, unknown>;
  const request = emptyRequest((asString(body.model) ?? '').replace(/^models\//, ''));
  if (!Array.isArray(body.contents)) throw badRequest('contents 必须是数组');

  const system = isRecord(body.systemInstruction) ? body.systemInstruction : undefined;
  if (system) for (const part of asArray(system.parts)) if (isRecord(part) && typeof part.text === 'string' && part.text) request.system.push({ type: 'text', text: part.text });

  let open: ToolCallPart[] = [];
  body.contents.forEach((content, turn) => {
    if (!isRecord(content)) throw badRequest('contents 的每一项必须是对象');
    const role = content.role ?? 'user';
    const parts = asArray(content.parts).filter(isRecord);
    if (role === 'model') {
      const assistant = modelParts(parts, turn);
      open = assistant.filter((p): p is ToolCallPart => p.type === 'tool_call');
      appendTurn(request.messages, { role: 'assistant', content: assistant });
    } else if (role === 'user' || role === 'function') {
      appendTurn(request.messages, { role: 'user', content: userParts(parts, open, turn) });
    } else {
      throw badRequest('contents 的 role 只能是 user 或 model');
    }
  });

  for (const tool of asArray(body.tools)) {
    // Google Search, code execution and the other built-in tools run at Google and exist nowhere else.
    if (!isRecord(tool)) continue;
    for (const fn of asArray(tool.functionDeclarations)) {
      if (!isRecord(fn)) continue;
      const name = asString(fn.name);
      if (!name) throw badRequest('functionDeclarations 中的函数缺少 name');
      const parameters = isRecord(fn.parametersJsonSchema) ? fn.parametersJsonSchema : isRecord(fn.parameters) ? schemaFromGemini(fn.parameters) : { type: 'object', properties: {} };
      request.tools.push({ name, description: asString(fn.description), parameters });
    }
  }
  for (const message of request.messages) if (message.role === 'assistant') message.content = joinReasoning(message.content);
  request.toolChoice = toolChoiceOf(body.toolConfig);

  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  const max = asNumber(config.maxOutputTokens);
  if (max !== undefined && max > 0) request.maxOutputTokens = Math.floor(max);
  request.temperature = asNumber(config.temperature);
  request.topP = asNumber(config.topP);
  request.topK = asNumber(config.topK);
  request.seed = asNumber(config.seed);
  request.presencePenalty = asNumber(config.presencePenalty);
  request.frequencyPenalty = asNumber(config.frequencyPenalty);
  const stop = asArray(config.stopSequences).filter((s): s is string => typeof s === 'string');
  if (stop.length > 0) request.stop = stop;
  request.responseFormat = responseFormatOf(config);
  request.reasoning = reasoningOf(config.thinkingConfig);
  return request;
}


function imageOf(part: Record<string, unknown>): ImagePart | undefined {
  const inline = isRecord(part.inlineData) ? part.inlineData : undefined;
  if (inline) {
    const mediaType = asString(inline.mimeType) ?? '';
    if (!mediaType.startsWith('image/')) throw badRequest(`该模型的渠道不支持 ${mediaType.slice(0, 60) || '未知'} 类型的内容`);
    return { type: 'image', source: { kind: 'base64', mediaType, data: asString(inline.data) ?? '' } };
  }
  const file = isRecord(part.fileData) ? part.fileData : undefined;
  if (file) {
    const mediaType = asString(file.mimeType) ?? '';
    const url = asString(file.fileUri) ?? '';
    if (mediaType && !mediaType.startsWith('image/')) throw badRequest(`该模型的渠道不支持 ${mediaType.slice(0, 60)} 类型的内容`);
    if (!/^https?:\/\//.test(url)) throw badRequest('该模型的渠道不支持 Gemini 文件 API 的文件（fileData），请改用 inlineData');
    return { type: 'image', source: { kind: 'url', url } };
  }
  return undefined;
}

function modelParts(parts: Array<Record<string, unknown>>, turn: number): AssistantPart[] {
  const out: AssistantPart[] = [];
  parts.forEach((part, index) => {
    const signature = asString(part.thoughtSignature);
    if (isRecord(part.functionCall)) {
      const call = part.functionCall;
      out.push({ type: 'tool_call', id: asString(call.id) || `call_${turn}_${index}`, name: asString(call.name) ?? '', arguments: JSON.stringify(isRecord(call.args) ? call.args : {}), ...(signature ? { signature } : {}) });
    } else if (part.thought === true) {
      out.push({ type: 'reasoning', text: asString(part.text) ?? '', ...(signature ? { signature } : {}) });
    } else if (typeof part.text === 'string') {
      // A signature on an answer part (Gemini signs the part that follows its thinking) belongs to the reasoning
      // before it; written back, it goes onto the part after the reasoning again.
      if (signature) out.push({ type: 'reasoning', text: '', signature });
      if (part.text) out.push({ type: 'text', text: part.text });
    }
  });
  return out;
}

/**
 * One block of reasoning per thought: thought parts in a row (as a stream delivers them, even in separate model
 * turns) are joined, and a signature that follows them is theirs. Anthropic checks a thinking block's signature
 * against its whole text.
 */
function joinReasoning(content: AssistantPart[]): AssistantPart[] {
  const out: AssistantPart[] = [];
  for (const part of content) {
    const last = out.at(-1);
    if (part.type === 'reasoning' && part.redacted === undefined && last?.type === 'reasoning' && last.redacted === undefined && !last.signature) {
      last.text += part.text;
      if (part.signature) last.signature = part.signature;
    } else out.push(part);
  }
  return out;
}

function userParts(parts: Array<Record<string, unknown>>, open: ToolCallPart[], turn: number): UserPart[] {
  const out: UserPart[] = [];
  const answered = new Set<ToolCallPart>();
  parts.forEach((part, index) => {
    if (isRecord(part.functionResponse)) {
      const response = part.functionResponse;
      const name = asString(response.name) ?? '';
      const id = asString(response.id);
      const pending = open.filter((call) => !answered.has(call));
      const call = (id ? pending.find((c) => c.id === id) : undefined) ?? pending.find((c) => c.name === name) ?? pending[0];
      if (call) answered.add(call);
      out.push({ type: 'tool_result', callId: call?.id ?? id ?? `call_${turn}_${index}`, name, ...resultOf(response) });
      return;
    }
    if (typeof part.text === 'string') {
      if (part.text) out.push({ type: 'text', text: part.text });
      return;
    }
    const image = imageOf(part);
    if (image) out.push(image);
  });
  return out;
}

/**
 * A function's response: `{output: "..."}` or `{error: "..."}` alone are the text they hold (Gemini's own
 * convention), anything else is the JSON of the object; images of a multimodal response come along.
 */
function resultOf(response: Record<string, unknown>): { content: Array<TextPart | ImagePart>; isError?: boolean } {
  const value = isRecord(response.response) ? response.response : {};
  const keys = Object.keys(value);
  const content: Array<TextPart | ImagePart> = [];
  let isError = false;
  if (keys.length === 1 && keys[0] === 'output' && typeof value.output === 'string') content.push({ type: 'text', text: value.output });
  else if (keys.length === 1 && keys[0] === 'error' && typeof value.error === 'string') {
    content.push({ type: 'text', text: value.error });
    isError = true;
  } else content.push({ type: 'text', text: JSON.stringify(value) });
  for (const part of asArray(response.parts)) {
    const image = isRecord(part) ? imageOf(part) : undefined;
    if (image) content.push(image);
  }
  return isError ? { content, isError } : { content };
}

function toolChoiceOf(config: unknown): ToolChoice | undefined {
  const calling = isRecord(config) && isRecord(config.functionCallingConfig) ? config.functionCallingConfig : undefined;
  if (!calling) return undefined;
  const mode = String(calling.mode ?? '').toUpperCase();
  const allowed = asArray(calling.allowedFunctionNames).filter((n): n is string => typeof n === 'string');
  if (mode === 'NONE') return { type: 'none' };
  if (mode === 'ANY') return allowed.length === 1 ? { type: 'tool', name: allowed[0] } : { type: 'required' };
  if (mode === 'AUTO' || mode === 'VALIDATED') return { type: 'auto' };
  return undefined;
}

function responseFormatOf(config: Record<string, unknown>): ResponseFormat | undefined {
  if (config.responseMimeType !== 'application/json') return undefined;
  if (isRecord(config.responseJsonSchema)) return { type: 'json_schema', name: 'response', schema: config.responseJsonSchema };
  if (isRecord(config.responseSchema)) return { type: 'json_schema', name: 'response', schema: schemaFromGemini(config.responseSchema) };
  return { type: 'json_object' };
}

/**
 * thinkingConfig: a budget of 0 turns thinking off, -1 (dynamic) or thoughts asked for without a budget turn it
 * on, another budget is the budget; Gemini 3's thinkingLevel is an effort.
 */
function reasoningOf(config: unknown): ReasoningConfig | undefined {
  if (!isRecord(config)) return undefined;
  const budget = asNumber(config.thinkingBudget);
  const level = asString(config.thinkingLevel)?.toLowerCase();
  if (level === 'minimal' || level === 'low' || level === 'medium' || level === 'high') return { effort: level };
  if (budget === 0) return { enabled: false };
  if (budget !== undefined && budget > 0) return { budgetTokens: Math.floor(budget) };
  if (budget === -1 || config.includeThoughts === true) return { enabled: true };
  return undefined;
}
