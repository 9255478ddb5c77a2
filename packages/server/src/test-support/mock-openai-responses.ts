import type { ServerResponse } from 'node:http';
import { fixtures, parseSse } from './upstreams/fixtures.js';
import { measuredPromptTokens, scriptedCall } from './upstreams/tool-script.js';

/**
 * OpenAI's Responses API (https://platform.openai.com/docs/api-reference/responses) for the local OpenAI mock:
 * POST /v1/responses, JSON or SSE, answering with the payloads recorded in
 * relay/providers/openai-compatible/__fixtures__/responses-<scenario>.* (adjusted to the request: model, tool
 * name, reasoning summary and encrypted content only when asked for), and refusing what OpenAI refuses.
 *
 * The scenario follows the request (a function_call_output last -> the answer to it; function tools -> a call;
 * `reasoning.effort` -> reasoning; `prompt_cache_key` -> cached input; an image -> its description; else text),
 * or a mode forces it: tool, reasoning, cache. Fault modes: break (the stream dies half-way), stream-error (half,
 * then response.failed), slow-stream (50 ms between events), incomplete (ends as response.incomplete).
 */
export const RESPONSES_SCENARIOS = ['text', 'tools', 'tool-result', 'image', 'reasoning', 'cache'] as const;
export type ResponsesScenario = (typeof RESPONSES_SCENARIOS)[number];

/** What one mock remembers, as OpenAI does: responses it stored, encrypted reasoning it handed out. */
export interface ResponsesMemory {
  stored: Set<string>;
  encrypted: Set<string>;
}

export function responsesMemory(): ResponsesMemory {
  return { stored: new Set(), encrypted: new Set() };
}

export interface ResponsesProblem {
  status: number;
  message: string;
  param: string | null;
  code: string | null;
}

const fx = fixtures('openai-compatible');
type Json = Record<string, any>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Request parameters the API knows (ResponseCreateParams); anything else is refused as OpenAI refuses it. */
const PARAMETERS = new Set([
  'background', 'client_metadata', 'context_management', 'conversation', 'include', 'input', 'instructions', 'max_output_tokens', 'max_tool_calls', 'metadata',
  'model', 'moderation', 'parallel_tool_calls', 'previous_response_id', 'prompt', 'prompt_cache_key', 'prompt_cache_options',
  'prompt_cache_retention', 'reasoning', 'safety_identifier', 'service_tier', 'store', 'stream', 'stream_options', 'temperature', 'text',
  'tool_choice', 'tools', 'top_logprobs', 'top_p', 'truncation', 'user',
]);
/** Tools OpenAI runs itself; the mock accepts them (an OpenAI channel takes them) but never calls them. */
const BUILT_IN_TOOLS = new Set(['web_search', 'web_search_preview', 'web_search_preview_2025_03_11', 'web_search_2025_08_26', 'file_search', 'computer_use_preview', 'computer', 'code_interpreter', 'image_generation', 'mcp', 'local_shell', 'shell', 'apply_patch', 'custom', 'tool_search', 'namespace']);
/** Items of built-in tools that may appear in a conversation's history. */
const BUILT_IN_ITEMS = new Set(['web_search_call', 'file_search_call', 'computer_call', 'computer_call_output', 'code_interpreter_call', 'image_generation_call', 'local_shell_call', 'local_shell_call_output', 'shell_call', 'shell_call_output', 'apply_patch_call', 'apply_patch_call_output', 'mcp_list_tools', 'mcp_approval_request', 'mcp_approval_response', 'mcp_call', 'custom_tool_call', 'custom_tool_call_output', 'compaction']);
const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];
const isReasoningModel = (model: string) => /^(o\d|gpt-(?:[5-9]|[1-9]\d)|codex)/.test(model.slice(model.lastIndexOf('/') + 1));

const problem = (message: string, param: string | null = null, status = 400, code: string | null = null): ResponsesProblem => ({ status, message, param, code });
const invalid = (param: string, value: unknown, supported: string[]) =>
  problem(`Invalid value: '${String(value)}'. Supported values are: ${supported.map((s) => `'${s}'`).join(', ')}.`, param, 400, 'invalid_value');
const missing = (param: string) => problem(`Missing required parameter: '${param}'.`, param, 400, 'missing_required_parameter');

/** What OpenAI refuses in a Responses body (the rules a gateway's translation or pass-through could break). */
export function responsesProblem(raw: unknown, memory?: ResponsesMemory): ResponsesProblem | undefined {
  if (!isObject(raw)) return problem('The request body must be a JSON object.');
  const body = raw;
  for (const key of Object.keys(body)) if (!PARAMETERS.has(key)) return problem(`Unknown parameter: '${key}'.`, key, 400, 'unknown_parameter');
  if (typeof body.model !== 'string' || !body.model) return missing('model');
  if (typeof body.previous_response_id === 'string' && !memory?.stored.has(body.previous_response_id)) {
    return problem(`Previous response with id '${body.previous_response_id}' not found.`, 'previous_response_id', 400, 'previous_response_not_found');
  }
  if (body.input === undefined && body.prompt === undefined && body.conversation === undefined) return missing('input');
  if (body.input !== undefined && typeof body.input !== 'string') {
    if (!Array.isArray(body.input)) return problem("Invalid type for 'input': expected one of a string or an array of input items.", 'input', 400, 'invalid_type');
    const itemProblem = inputProblem(body.input, memory);
    if (itemProblem) return itemProblem;
  }
  const toolProblem = toolsProblem(body);
  if (toolProblem) return toolProblem;
  if (body.max_output_tokens !== undefined && body.max_output_tokens !== null) {
    if (!Number.isInteger(body.max_output_tokens) || body.max_output_tokens < 16) {
      return problem(`Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${String(body.max_output_tokens)} instead.`, 'max_output_tokens', 400, 'integer_below_min_value');
    }
  }
  if (body.temperature !== undefined && body.temperature !== null && !(typeof body.temperature === 'number' && body.temperature >= 0 && body.temperature <= 2)) {
    return problem(`Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got ${String(body.temperature)} instead.`, 'temperature');
  }
  if (body.top_p !== undefined && body.top_p !== null && !(typeof body.top_p === 'number' && body.top_p >= 0 && body.top_p <= 1)) {
    return problem(`Invalid 'top_p': decimal above maximum value. Expected a value <= 1, but got ${String(body.top_p)} instead.`, 'top_p');
  }
  if (isObject(body.reasoning) && body.reasoning.effort !== undefined && body.reasoning.effort !== null) {
    if (!EFFORTS.includes(body.reasoning.effort)) return invalid('reasoning.effort', body.reasoning.effort, EFFORTS);
    if (!isReasoningModel(body.model)) return problem("Unsupported parameter: 'reasoning.effort' is not supported with this model.", 'reasoning.effort', 400, 'unsupported_parameter');
  }
  if (isObject(body.text) && isObject(body.text.format) && body.text.format.type === 'json_schema') {
    if (typeof body.text.format.name !== 'string') return missing('text.format.name');
    if (!isObject(body.text.format.schema)) return missing('text.format.schema');
  }
  return undefined;
}

const notPersisted = (id: string) =>
  problem(`Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`, 'input', 404, null);

function inputProblem(items: unknown[], memory?: ResponsesMemory): ResponsesProblem | undefined {
  const calls: string[] = [];
  const answered = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const at = `input[${i}]`;
    if (!isObject(item)) return problem(`Invalid type for '${at}': expected an object.`, at, 400, 'invalid_type');
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (type === 'message') {
      const roles = ['assistant', 'system', 'developer', 'user'];
      if (!roles.includes(item.role)) return invalid(`${at}.role`, item.role, roles);
      if (typeof item.content === 'string') continue;
      if (!Array.isArray(item.content)) return missing(`${at}.content`);
      for (let j = 0; j < item.content.length; j++) {
        const contentProblem = partProblem(item.content[j], `${at}.content[${j}]`, item.role === 'assistant');
        if (contentProblem) return contentProblem;
      }
    } else if (type === 'function_call') {
      for (const field of ['call_id', 'name', 'arguments']) if (typeof item[field] !== 'string') return missing(`${at}.${field}`);
      calls.push(item.call_id);
    } else if (type === 'function_call_output') {
      if (typeof item.call_id !== 'string') return missing(`${at}.call_id`);
      if (typeof item.output !== 'string' && !Array.isArray(item.output)) return missing(`${at}.output`);
      if (!calls.includes(item.call_id)) return problem(`No tool call found for function call output with call_id ${item.call_id}.`, 'input', 400, null);
      answered.add(item.call_id);
    } else if (type === 'reasoning') {
      if (!Array.isArray(item.summary)) return missing(`${at}.summary`);
      if (item.encrypted_content !== undefined && item.encrypted_content !== null) {
        // OpenAI decrypts the content it issued; anything else (another provider's data) fails.
        if (!memory?.encrypted.has(item.encrypted_content)) return problem(`The encrypted content for item ${String(item.id ?? at)} could not be verified.`, `${at}.encrypted_content`, 400, 'invalid_encrypted_content');
      } else if (typeof item.id !== 'string') return missing(`${at}.id`);
      else if (!memory?.stored.has(item.id)) return notPersisted(item.id);
    } else if (type === 'item_reference') {
      if (!memory?.stored.has(item.id)) return notPersisted(String(item.id));
    } else if (!BUILT_IN_ITEMS.has(type)) {
      return problem(`Invalid value: '${String(type)}'.`, `${at}.type`, 400, 'invalid_value');
    }
  }
  const unanswered = calls.find((id) => !answered.has(id));
  if (unanswered) return problem(`No tool output found for function call ${unanswered}.`, 'input', 400, null);
  return undefined;
}

function partProblem(part: unknown, at: string, assistant: boolean): ResponsesProblem | undefined {
  if (!isObject(part)) return problem(`Invalid type for '${at}': expected an object.`, at, 400, 'invalid_type');
  const allowed = assistant ? ['output_text', 'refusal'] : ['input_text', 'input_image', 'input_file'];
  if (!allowed.includes(part.type)) return invalid(`${at}.type`, part.type, allowed);
  if ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text !== 'string') return missing(`${at}.text`);
  if (part.type === 'input_image') {
    if (part.image_url === undefined && part.file_id === undefined) return problem(`Invalid '${at}': one of image_url or file_id must be provided.`, at);
    if (part.image_url !== undefined && !(typeof part.image_url === 'string' && /^(https?:\/\/|data:image\/[a-z+.-]+;base64,)/i.test(part.image_url))) {
      return problem(`Invalid '${at}.image_url'. Expected a valid URL, but got a value with an invalid format.`, `${at}.image_url`, 400, 'invalid_value');
    }
    const details = ['low', 'high', 'auto', 'original'];
    if (part.detail !== undefined && !details.includes(part.detail)) return invalid(`${at}.detail`, part.detail, details);
  }
  return undefined;
}

function toolsProblem(body: Json): ResponsesProblem | undefined {
  if (body.tools === undefined) return body.tool_choice !== undefined && isObject(body.tool_choice) ? problem("Tool choice 'function' not found in 'tools' parameter.", 'tool_choice') : undefined;
  if (!Array.isArray(body.tools)) return problem("Invalid type for 'tools': expected an array.", 'tools', 400, 'invalid_type');
  const names = new Set<string>();
  for (let i = 0; i < body.tools.length; i++) {
    const tool = body.tools[i];
    const at = `tools[${i}]`;
    if (!isObject(tool)) return problem(`Invalid type for '${at}': expected an object.`, at, 400, 'invalid_type');
    if (tool.type !== 'function') {
      if (!BUILT_IN_TOOLS.has(tool.type)) return problem(`Invalid value: '${String(tool.type)}'.`, `${at}.type`, 400, 'invalid_value');
      continue;
    }
    if (typeof tool.name !== 'string') return missing(`${at}.name`);
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) return problem(`Invalid '${at}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, `${at}.name`);
    // Function tools are strict unless `strict: false`: the schema must close every object and require every property.
    const schema = isObject(tool.parameters) ? tool.parameters : {};
    if (tool.strict !== false) {
      if (schema.additionalProperties !== false) return problem(`Invalid schema for function '${tool.name}': In context=(), 'additionalProperties' is required to be supplied and to be false.`, `${at}.parameters`, 400, 'invalid_function_parameters');
      const properties = Object.keys(isObject(schema.properties) ? schema.properties : {});
      const required: unknown[] = Array.isArray(schema.required) ? schema.required : [];
      const loose = properties.find((p) => !required.includes(p));
      if (loose) return problem(`Invalid schema for function '${tool.name}': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing '${loose}'.`, `${at}.parameters`, 400, 'invalid_function_parameters');
    }
    names.add(tool.name);
  }
  const choice = body.tool_choice;
  if (isObject(choice) && choice.type === 'function' && !names.has(choice.name)) return problem("Tool choice 'function' not found in 'tools' parameter.", 'tool_choice');
  return undefined;
}

const functionTools = (body: Json): Json[] => (Array.isArray(body.tools) ? body.tools.filter((t: unknown) => isObject(t) && t.type === 'function') : []);

/** Which recorded answer fits the request; a forcing mode wins. */
export function pickResponsesScenario(body: Json, mode: string): ResponsesScenario {
  const tools = functionTools(body).length > 0 && body.tool_choice !== 'none';
  if (mode === 'tool' && tools) return 'tools';
  if (mode === 'reasoning') return 'reasoning';
  if (mode === 'cache') return 'cache';
  const items: Json[] = Array.isArray(body.input) ? body.input : [];
  if (items.at(-1)?.type === 'function_call_output') return 'tool-result';
  if (tools) return 'tools';
  if (isObject(body.reasoning) && body.reasoning.effort && body.reasoning.effort !== 'none') return 'reasoning';
  if (typeof body.prompt_cache_key === 'string') return 'cache';
  if (items.some((item) => Array.isArray(item.content) && item.content.some((p: Json) => p?.type === 'input_image'))) return 'image';
  return 'text';
}

/**
 * The recorded answer, adjusted to the request the way OpenAI's would differ: the model asked for (a recorded
 * dated snapshot of it stays), the declared tool's name, the reasoning summary only when `reasoning.summary` asks
 * for it, encrypted reasoning only when `include` asks for it, `store` as requested.
 */
export function responsesReply(body: Json, mode: string, memory: ResponsesMemory): { response: Json; events: Json[] } {
  const scenario = pickResponsesScenario(body, mode);
  const response: Json = fx.json(`responses-${scenario}.response.json`);
  let events: Json[] = parseSse(fx.text(`responses-${scenario}.stream.txt`)).map((e) => e.data);
  const model = String(body.model);
  const keepModel = typeof response.model === 'string' && response.model.startsWith(model);
  const scripted = scriptedCall(functionTools(body).map((t: Json) => t.name));
  const toolName = scripted?.name ?? (isObject(body.tool_choice) && body.tool_choice.type === 'function' ? body.tool_choice.name : functionTools(body)[0]?.name);
  const scriptedArgs = scripted ? JSON.stringify(scripted.args) : undefined;
  const summary = isObject(body.reasoning) && (body.reasoning.summary || body.reasoning.generate_summary);
  const encrypted = Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
  const store = body.store !== false;

  const item = (value: Json) => {
    if (value.type === 'function_call' && toolName) value.name = toolName;
    if (value.type === 'function_call' && scriptedArgs) value.arguments = scriptedArgs;
    if (value.type === 'reasoning') {
      if (!summary) value.summary = [];
      if (!encrypted) delete value.encrypted_content;
      else if (value.encrypted_content) memory.encrypted.add(value.encrypted_content);
    }
  };
  const measuredInput = measuredPromptTokens(body);
  const whole = (value: Json) => {
    if (!keepModel) value.model = model;
    if (measuredInput !== undefined && isObject(value.usage)) {
      value.usage.total_tokens = (value.usage.total_tokens ?? 0) - (value.usage.input_tokens ?? 0) + measuredInput;
      value.usage.input_tokens = measuredInput;
    }
    value.store = store;
    value.output.forEach(item);
    if (mode === 'incomplete' && value.status === 'completed') {
      value.status = 'incomplete';
      value.incomplete_details = { reason: 'max_output_tokens' };
    }
  };
  whole(response);
  if (!summary) events = events.filter((e) => !String(e.type).startsWith('response.reasoning_summary_'));
  for (const event of events) {
    if (isObject(event.response)) whole(event.response);
    if (isObject(event.item)) item(event.item);
    if (event.type === 'response.function_call_arguments.done' && toolName) event.name = toolName;
    if (event.type === 'response.function_call_arguments.done' && scriptedArgs) event.arguments = scriptedArgs;
    if (mode === 'incomplete' && event.type === 'response.completed') event.type = 'response.incomplete';
  }
  // A scripted call's arguments go out in one delta.
  if (scriptedArgs) {
    events = events.flatMap((e) =>
      e.type === 'response.function_call_arguments.delta' ? [] : e.type === 'response.function_call_arguments.done' ? [{ type: 'response.function_call_arguments.delta', item_id: e.item_id, output_index: e.output_index, delta: scriptedArgs }, e] : [e],
    );
  }
  events.forEach((event, index) => (event.sequence_number = index));
  if (store) for (const id of [response.id, ...response.output.map((o: Json) => o.id)]) memory.stored.add(id);
  return { response, events };
}

export const responsesEvent = (e: Json) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers POST /v1/responses (validated, then the fitting recorded answer, whole or streamed). */
export async function answerResponses(res: ServerResponse, raw: unknown, mode: string, memory: ResponsesMemory): Promise<void> {
  const failure = responsesProblem(raw, memory);
  if (failure) {
    const text = JSON.stringify({ error: { message: failure.message, type: 'invalid_request_error', param: failure.param, code: failure.code } });
    res.writeHead(failure.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  const body = raw as Json;
  const { response, events } = responsesReply(body, mode, memory);
  if (!body.stream) {
    const text = JSON.stringify(response);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const cut = mode === 'break' || mode === 'stream-error' ? Math.max(1, Math.floor(events.length / 2)) : events.length;
  for (let i = 0; i < cut; i++) {
    if (res.destroyed) return;
    res.write(responsesEvent(events[i]));
    if (mode === 'slow-stream') await sleep(50);
  }
  if (mode === 'break') {
    await sleep(30);
    res.socket?.destroy();
    return;
  }
  if (mode === 'stream-error') {
    const failed = { ...events[0].response, status: 'failed', error: { code: 'server_error', message: 'The model produced invalid content.' } };
    res.end(responsesEvent({ type: 'response.failed', sequence_number: cut, response: failed }));
    return;
  }
  // `linger`: the connection stays open a while after response.completed, as a busy upstream's may.
  if (mode === 'linger') await sleep(1_500);
  res.end();
}
