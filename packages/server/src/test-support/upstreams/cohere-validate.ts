/**
 * What Cohere's API v2 checks in a body, as its docs and error list say (https://docs.cohere.com/reference/chat,
 * /reference/embed, /reference/rerank, /reference/errors): the v2 fields only (a v1 body with `message`,
 * `chat_history` or `preamble`, or any field Cohere does not define, is refused), the four roles and each role's own
 * fields, tool results answering a call made before, parameter ranges. Each check answers Cohere's message or null.
 */
type Body = Record<string, unknown>;

const isRecord = (value: unknown): value is Body => typeof value === 'object' && value !== null && !Array.isArray(value);

const CHAT_FIELDS = new Set([
  'model', 'messages', 'stream', 'tools', 'strict_tools', 'documents', 'citation_options', 'response_format', 'safety_mode', 'max_tokens',
  'stop_sequences', 'temperature', 'seed', 'frequency_penalty', 'presence_penalty', 'k', 'p', 'logprobs', 'tool_choice', 'thinking', 'priority',
]);
const ROLE_FIELDS: Record<string, Set<string>> = {
  system: new Set(['role', 'content']),
  user: new Set(['role', 'content']),
  assistant: new Set(['role', 'content', 'tool_calls', 'tool_plan', 'citations']),
  tool: new Set(['role', 'tool_call_id', 'content']),
};
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function unknownField(body: Body, known: Set<string>, where: string): string | null {
  const extra = Object.keys(body).find((key) => !known.has(key));
  return extra === undefined ? null : `invalid request: unknown field ${where}${extra}`;
}

function range(body: Body, field: string, low: number, high: number): string | null {
  const value = body[field];
  if (value === undefined) return null;
  return typeof value === 'number' && value >= low && value <= high ? null : `invalid request: ${field} must be between ${low} and ${high} inclusive`;
}

function contentProblem(content: unknown, role: string, index: number): string | null {
  if (typeof content === 'string') return null;
  if (!Array.isArray(content)) return `invalid request: messages[${index}].content must be a string or a list of content blocks`;
  const allowed = role === 'user' ? ['text', 'image_url'] : role === 'tool' ? ['text', 'document'] : role === 'assistant' ? ['text', 'thinking'] : ['text'];
  for (const block of content) {
    if (!isRecord(block) || !allowed.includes(String(block.type))) return `invalid request: messages[${index}] has a content block of an invalid type for role ${role}`;
    if (block.type === 'text' && typeof block.text !== 'string') return `invalid request: messages[${index}] text block without text`;
    if (block.type === 'image_url' && !(isRecord(block.image_url) && typeof block.image_url.url === 'string')) return `invalid request: messages[${index}] image_url without url`;
  }
  return null;
}

export function validateCohereChat(body: unknown): string | null {
  if (!isRecord(body)) return 'invalid json syntax';
  for (const v1 of ['message', 'chat_history', 'preamble', 'connectors', 'conversation_id']) {
    if (v1 in body) return `invalid request: ${v1} is a v1 field; API v2 takes messages`;
  }
  const unknown = unknownField(body, CHAT_FIELDS, '');
  if (unknown) return unknown;
  if (typeof body.model !== 'string' || !body.model) return 'a model parameter is required for this endpoint.';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'invalid request: messages must not be empty';
  const callIds = new Set<string>();
  for (const [index, message] of body.messages.entries()) {
    if (!isRecord(message) || typeof message.role !== 'string' || !ROLE_FIELDS[message.role]) {
      return `invalid request: messages[${index}].role must be one of: system, user, assistant, tool`;
    }
    const extra = unknownField(message, ROLE_FIELDS[message.role], `messages[${index}].`);
    if (extra) return extra;
    if (message.role === 'assistant') {
      if (message.tool_plan !== undefined && typeof message.tool_plan !== 'string') return `invalid request: messages[${index}].tool_plan must be a string`;
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : message.tool_calls === undefined ? [] : [null]) {
        if (!isRecord(call) || call.type !== 'function' || typeof call.id !== 'string' || !call.id) return 'tool call must be of type function';
        if (!isRecord(call.function) || typeof call.function.name !== 'string' || typeof call.function.arguments !== 'string') return 'invalid request: tool call function must have a name and arguments';
        if (callIds.has(call.id)) return 'cannot have duplicate tool ids';
        callIds.add(call.id);
      }
      if (message.content === undefined && message.tool_calls === undefined) return `message must not be empty in a turn`;
      if (message.content !== undefined) {
        const problem = contentProblem(message.content, 'assistant', index);
        if (problem) return problem;
      }
      continue;
    }
    if (message.role === 'tool') {
      if (typeof message.tool_call_id !== 'string' || !message.tool_call_id) return 'tool call id must be provided with tool message';
      if (!callIds.has(message.tool_call_id)) return 'tool call id not found in previous tool calls';
    }
    const problem = contentProblem(message.content, message.role, index);
    if (problem) return problem;
    if (message.role === 'user' && (message.content === '' || (Array.isArray(message.content) && message.content.length === 0))) return 'message must not be empty in a turn';
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return 'invalid request: tools must be a list';
    for (const tool of body.tools) {
      if (!isRecord(tool) || tool.type !== 'function' || !isRecord(tool.function)) return 'invalid request: tools must be of type function';
      const extra = unknownField(tool.function, new Set(['name', 'description', 'parameters']), 'tools[].function.');
      if (extra) return extra;
      const name = tool.function.name;
      if (typeof name !== 'string' || !TOOL_NAME.test(name)) return `invalid request: tool names can only contain certain characters (A-Za-z0-9_) and can't begin with a digit (provided name: '${String(name)}').`;
      if (!isRecord(tool.function.parameters)) return 'schema must be an object';
    }
  }
  if (body.tool_choice !== undefined) {
    if (body.tool_choice !== 'REQUIRED' && body.tool_choice !== 'NONE') return "invalid request: tool_choice must be one of 'REQUIRED' or 'NONE'";
    if (!Array.isArray(body.tools) || body.tools.length === 0) return 'invalid request: tool_choice requires tools';
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return 'invalid request: stream must be a boolean';
  if (body.max_tokens !== undefined && !(Number.isInteger(body.max_tokens) && (body.max_tokens as number) > 0)) return 'invalid request: max_tokens must be a positive integer';
  if (body.stop_sequences !== undefined && !(Array.isArray(body.stop_sequences) && body.stop_sequences.length <= 5 && body.stop_sequences.every((s) => typeof s === 'string'))) {
    return 'invalid request: stop_sequences must be a list of at most 5 strings';
  }
  if (body.temperature !== undefined && !(typeof body.temperature === 'number' && body.temperature >= 0)) return 'invalid request: temperature must be a non-negative number';
  for (const problem of [range(body, 'p', 0.01, 0.99), range(body, 'k', 0, 500), range(body, 'frequency_penalty', 0, 1), range(body, 'presence_penalty', 0, 1)]) {
    if (problem) return problem;
  }
  if (body.response_format !== undefined) {
    const format = body.response_format;
    if (!isRecord(format) || (format.type !== 'text' && format.type !== 'json_object')) return "invalid request: response_format type must be 'text' or 'json_object'";
  }
  return null;
}

const INPUT_TYPES = ['search_document', 'search_query', 'classification', 'clustering', 'image'];
const EMBEDDING_TYPES = ['float', 'int8', 'uint8', 'binary', 'ubinary', 'base64'];

export function validateCohereEmbed(body: unknown): string | null {
  if (!isRecord(body)) return 'invalid json syntax';
  const unknown = unknownField(body, new Set(['model', 'texts', 'images', 'inputs', 'input_type', 'max_tokens', 'output_dimension', 'embedding_types', 'truncate', 'priority']), '');
  if (unknown) return unknown;
  if (typeof body.model !== 'string' || !body.model) return 'a model parameter is required for this endpoint.';
  if (!INPUT_TYPES.includes(String(body.input_type))) return 'invalid request: valid input_type must be provided with the provided model';
  if (!Array.isArray(body.embedding_types) || body.embedding_types.length === 0) return 'embedding_types parameter is required';
  if (!body.embedding_types.every((t) => EMBEDDING_TYPES.includes(String(t)))) return 'invalid request: invalid embedding type';
  if (!Array.isArray(body.texts) || body.texts.length === 0) return 'invalid request: texts must not be empty';
  if (body.texts.length > 96) return `invalid request: total number of texts must be at most 96 - received ${body.texts.length}`;
  const empty = body.texts.findIndex((t) => typeof t !== 'string' || t === '');
  if (empty >= 0) return `invalid request: inputs contains an element that is the empty string at index ${empty}`;
  if (body.output_dimension !== undefined && ![256, 512, 1024, 1536].includes(body.output_dimension as number)) return 'invalid request: output_dimension must be one of 256, 512, 1024, 1536';
  return null;
}

export function validateCohereRerank(body: unknown): string | null {
  if (!isRecord(body)) return 'invalid json syntax';
  const unknown = unknownField(body, new Set(['model', 'query', 'documents', 'top_n', 'max_tokens_per_doc', 'priority']), '');
  if (unknown) return unknown;
  if (typeof body.model !== 'string' || !body.model) return 'a model parameter is required for this endpoint.';
  if (typeof body.query !== 'string' || !body.query.trim()) return 'invalid request: query must not be empty or be only whitespace';
  if (!Array.isArray(body.documents) || body.documents.length === 0) return 'invalid request: list of documents must not be empty';
  const bad = body.documents.findIndex((d) => typeof d !== 'string' || d === '');
  if (bad >= 0) return `invalid request: document at index ${bad} cannot be empty`;
  if (body.top_n !== undefined && !(Number.isInteger(body.top_n) && (body.top_n as number) > 0)) return 'invalid request: top_n must be a positive integer';
  return null;
}
