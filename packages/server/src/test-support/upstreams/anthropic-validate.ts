/**
 * What the Claude Messages API refuses, for the three places it is served: Anthropic itself, Vertex AI
 * (rawPredict) and Bedrock (InvokeModel). Messages follow the real API's wording where the docs or real answers show
 * it; the rule set is in the report and in providers/anthropic/__fixtures__/README.md.
 */
export interface Problem {
  status: number;
  type: string;
  message: string;
}
export interface MessagesRules {
  platform: 'anthropic' | 'vertex' | 'bedrock';
  /** The model from the body (Anthropic) or the URL (Vertex, Bedrock). */
  model: string;
  /** anthropic-version header (Anthropic only): 2026-10-21 drops the sampling parameters. */
  apiVersion?: string;
  countTokens?: boolean;
  /** Refuse consecutive same-role turns and an assistant first turn (older API behaviour); off by default. */
  strictTurns?: boolean;
  /** Thinking signatures this mock issued: a thinking block sent back must carry one of them, unchanged. */
  signatures: Set<string>;
}

const invalid = (message: string): Problem => ({ status: 400, type: 'invalid_request_error', message });
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

const CREATE_KEYS = ['messages', 'max_tokens', 'system', 'metadata', 'stop_sequences', 'stream', 'thinking', 'tool_choice', 'tools', 'cache_control', 'container', 'context_management', 'mcp_servers', 'output_config', 'output_format', 'service_tier', 'inference_geo', 'speed', 'diagnostics', 'user_profile_id', 'workspace_id'];
const COUNT_KEYS = ['messages', 'system', 'thinking', 'tool_choice', 'tools', 'cache_control', 'context_management', 'mcp_servers', 'output_config', 'output_format', 'speed', 'user_profile_id', 'workspace_id'];
const SAMPLING = ['temperature', 'top_p', 'top_k'];
const BEDROCK_KEYS = ['anthropic_version', 'anthropic_beta', 'max_tokens', 'system', 'messages', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'tools', 'tool_choice', 'thinking', 'metadata', 'output_config', 'cache_control'];

/** Models released after Claude Opus 4.6 take no sampling parameters except their defaults. */
const NO_SAMPLING_MODEL = /claude-(opus-4-[78]|opus-5|sonnet-5|haiku-5|fable|mythos)/;
/** Manual thinking (`type: enabled`) is refused on these; they take `adaptive` only. */
const ADAPTIVE_ONLY_MODEL = /claude-(opus-4-[78]|opus-5|sonnet-5|fable|mythos)/;
/** Mid-conversation `role: system` messages: Claude API only, Claude Opus 4.8 only. */
const MID_SYSTEM_MODEL = /claude-opus-4-8/;
const MAX_OUTPUT_TOKENS = 128000;

function allowedKeys(rules: MessagesRules): string[] {
  if (rules.platform === 'bedrock') return BEDROCK_KEYS;
  const base = rules.countTokens ? [...COUNT_KEYS, 'model'] : [...CREATE_KEYS, ...(rules.platform === 'anthropic' ? ['model'] : [])];
  if (rules.platform === 'vertex') base.push('anthropic_version', ...SAMPLING);
  if (rules.platform === 'anthropic' && rules.apiVersion !== '2026-10-21' && !rules.countTokens) base.push(...SAMPLING);
  return base;
}

function extraKey(rules: MessagesRules, key: string): Problem {
  if (rules.platform === 'bedrock') return invalid(`Malformed input request: #: extraneous key [${key}] is not permitted, please reformat your input and try again.`);
  return invalid(`${key}: Extra inputs are not permitted`);
}

export function validateMessagesBody(body: unknown, rules: MessagesRules): Problem | null {
  if (!isObject(body)) return invalid('The request body is not valid JSON.');
  for (const key of Object.keys(body)) if (!allowedKeys(rules).includes(key)) return extraKey(rules, key);

  if (rules.platform === 'vertex' && body.anthropic_version !== 'vertex-2023-10-16') {
    return invalid(body.anthropic_version === undefined ? 'anthropic_version: Field required' : `anthropic_version: Input should be 'vertex-2023-10-16'`);
  }
  if (rules.platform === 'bedrock' && body.anthropic_version !== 'bedrock-2023-05-31') {
    return invalid(body.anthropic_version === undefined ? 'Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.' : `anthropic_version: Input should be 'bedrock-2023-05-31'`);
  }
  if (rules.platform === 'anthropic' || (rules.platform === 'vertex' && rules.countTokens)) {
    if (typeof body.model !== 'string' || !body.model) return invalid('model: Field required');
  }
  if (!rules.countTokens) {
    if (body.max_tokens === undefined) return invalid('max_tokens: Field required');
    if (!Number.isInteger(body.max_tokens)) return invalid('max_tokens: Input should be a valid integer');
    if (body.max_tokens < 1) return invalid('max_tokens: Input should be greater than or equal to 1');
    if (body.max_tokens > MAX_OUTPUT_TOKENS) return invalid(`max_tokens: ${body.max_tokens} > ${MAX_OUTPUT_TOKENS}, which is the maximum allowed number of output tokens for ${rules.model}`);
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return invalid('stream: Input should be a valid boolean');
  return (
    validateSampling(body, rules) ??
    validateSystem(body.system) ??
    validateTools(body) ??
    validateThinking(body, rules) ??
    validateMessages(body, rules) ??
    validateCacheControl(body)
  );
}

function thinkingOn(body: Record<string, any>): boolean {
  return isObject(body.thinking) && (body.thinking.type === 'enabled' || body.thinking.type === 'adaptive');
}

function validateSampling(body: Record<string, any>, rules: MessagesRules): Problem | null {
  const { temperature, top_p, top_k } = body;
  if (temperature !== undefined && (typeof temperature !== 'number' || temperature < 0 || temperature > 1)) return invalid('temperature: Input should be less than or equal to 1');
  if (top_p !== undefined && (typeof top_p !== 'number' || top_p < 0 || top_p > 1)) return invalid('top_p: Input should be less than or equal to 1');
  if (NO_SAMPLING_MODEL.test(rules.model)) {
    if (temperature !== undefined && temperature !== 1) return invalid(`temperature: ${rules.model} does not support setting temperature; only the default value 1 is accepted.`);
    if (top_k !== undefined) return invalid(`top_k: ${rules.model} does not support top_k.`);
    if (top_p !== undefined && top_p < 0.99) return invalid(`top_p: ${rules.model} does not support setting top_p; only values of 0.99 or more are accepted.`);
  }
  if (thinkingOn(body)) {
    if (temperature !== undefined && temperature !== 1) return invalid('`temperature` may only be set to 1 when thinking is enabled or in adaptive mode. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility');
    if (top_k !== undefined) return invalid('`top_k` is not supported when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility');
    if (top_p !== undefined && top_p < 0.95) return invalid('`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility');
  }
  return null;
}

function validateSystem(system: unknown): Problem | null {
  if (system === undefined || typeof system === 'string') return null;
  if (!Array.isArray(system)) return invalid('system: Input should be a valid string or a list of text blocks');
  for (const [i, block] of system.entries()) {
    if (!isObject(block) || block.type !== 'text') return invalid(`system.${i}.type: Input should be 'text'`);
    if (typeof block.text !== 'string' || !block.text.trim()) return invalid('system: text content blocks must be non-empty');
  }
  return null;
}

function validateTools(body: Record<string, any>): Problem | null {
  const { tools, tool_choice } = body;
  const names = new Set<string>();
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return invalid('tools: Input should be a valid list');
    for (const [i, tool] of tools.entries()) {
      if (!isObject(tool)) return invalid(`tools.${i}: Input should be a valid dictionary`);
      if (tool.type === undefined || tool.type === 'custom') {
        if (typeof tool.name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(tool.name)) return invalid(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
        if (!isObject(tool.input_schema)) return invalid(`tools.${i}.custom.input_schema: Field required`);
        if (tool.input_schema.type !== 'object') return invalid(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
        for (const key of Object.keys(tool)) if (!['type', 'name', 'description', 'input_schema', 'cache_control', 'strict', 'input_examples', 'defer_loading', 'allowed_callers', 'eager_input_streaming'].includes(key)) return invalid(`tools.${i}.custom.${key}: Extra inputs are not permitted`);
      } else if (typeof tool.name !== 'string') return invalid(`tools.${i}.name: Field required`);
      if (names.has(tool.name)) return invalid('tools: Tool names must be unique.');
      names.add(tool.name);
    }
  }
  if (tool_choice !== undefined) {
    if (!isObject(tool_choice) || !['auto', 'any', 'tool', 'none'].includes(tool_choice.type)) return invalid("tool_choice: Input tag found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'");
    if (tool_choice.type === 'tool' && !names.has(tool_choice.name)) return invalid(`tool_choice.tool.name: Tool '${tool_choice.name}' not found in tools`);
  }
  return null;
}

function validateThinking(body: Record<string, any>, rules: MessagesRules): Problem | null {
  const thinking = body.thinking;
  if (thinking === undefined) return null;
  if (!isObject(thinking) || !['enabled', 'disabled', 'adaptive', 'between_tools'].includes(thinking.type)) {
    return invalid("thinking: Input tag found using 'type' does not match any of the expected tags: 'adaptive', 'between_tools', 'disabled', 'enabled'");
  }
  if (thinking.type === 'enabled') {
    if (ADAPTIVE_ONLY_MODEL.test(rules.model)) return invalid(`thinking.type.enabled is not supported for ${rules.model}. Use thinking.type.adaptive and output_config.effort to control thinking.`);
    if (!Number.isInteger(thinking.budget_tokens)) return invalid('thinking.enabled.budget_tokens: Field required');
    if (thinking.budget_tokens < 1024) return invalid('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    if (!rules.countTokens && body.max_tokens <= thinking.budget_tokens) {
      return invalid('`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size');
    }
  }
  if (thinkingOn(body) && isObject(body.tool_choice) && (body.tool_choice.type === 'any' || body.tool_choice.type === 'tool')) {
    return invalid('Thinking may not be enabled when tool_choice forces tool use.');
  }
  return null;
}

const USER_BLOCKS = ['text', 'image', 'document', 'tool_result', 'search_result', 'container_upload', 'tool_reference'];
const ASSISTANT_BLOCKS = ['text', 'tool_use', 'thinking', 'redacted_thinking', 'server_tool_use', 'web_search_tool_result', 'web_fetch_tool_result', 'code_execution_tool_result', 'document'];
const MAGIC: Array<[string, (b: Buffer) => boolean]> = [
  ['image/png', (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ['image/jpeg', (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ['image/gif', (b) => b.subarray(0, 4).toString('latin1') === 'GIF8'],
  ['image/webp', (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP'],
];

/** The actual format of base64 image data, or undefined when it is not base64 of a known image. */
export function sniffImage(data: string): string | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data) || data.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(data, 'base64');
  return MAGIC.find(([, test]) => test(bytes))?.[0];
}

function validateBlock(block: unknown, at: string, role: string, rules: MessagesRules): Problem | null {
  if (!isObject(block)) return invalid(`${at}: Input should be a valid dictionary`);
  const allowed = role === 'user' ? USER_BLOCKS : ASSISTANT_BLOCKS;
  if (!allowed.includes(block.type)) return invalid(`${at}: Input tag '${String(block.type)}' found using 'type' does not match any of the expected tags: ${allowed.map((t) => `'${t}'`).join(', ')}`);
  switch (block.type) {
    case 'text':
      if (typeof block.text !== 'string') return invalid(`${at}.text: Field required`);
      if (!block.text) return invalid('messages: text content blocks must be non-empty');
      if (!block.text.trim()) return invalid('messages: text content blocks must contain non-whitespace text');
      if (rules.apiVersion === '2026-10-21' && role === 'user' && Array.isArray(block.citations) && block.citations.length) return invalid(`${at}.citations: citations are not accepted on text blocks in user messages`);
      return null;
    case 'document':
      if (role === 'assistant' && rules.apiVersion === '2026-10-21') return invalid(`${at}: document blocks are not accepted in assistant messages`);
      return isObject(block.source) ? null : invalid(`${at}.document.source: Field required`);
    case 'image':
      return validateImage(block.source, `${at}.image.source`);
    case 'tool_use':
      if (typeof block.id !== 'string' || !/^[a-zA-Z0-9_-]+$/.test(block.id)) return invalid(`${at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (typeof block.name !== 'string') return invalid(`${at}.tool_use.name: Field required`);
      return isObject(block.input) ? null : invalid(`${at}.tool_use.input: Input should be a valid dictionary`);
    case 'tool_result':
      if (typeof block.tool_use_id !== 'string') return invalid(`${at}.tool_result.tool_use_id: Field required`);
      if (block.content === undefined || typeof block.content === 'string') return null;
      if (!Array.isArray(block.content)) return invalid(`${at}.tool_result.content: Input should be a valid string or list`);
      for (const [k, inner] of block.content.entries()) {
        if (!isObject(inner) || !['text', 'image', 'document', 'search_result', 'tool_reference'].includes(inner.type)) return invalid(`${at}.tool_result.content.${k}: Input tag '${String(inner?.type)}' found using 'type' does not match any of the expected tags: 'text', 'image', 'document', 'search_result', 'tool_reference'`);
        const problem = inner.type === 'image' ? validateImage(inner.source, `${at}.tool_result.content.${k}.image.source`) : null;
        if (problem) return problem;
      }
      return null;
    case 'thinking':
      if (typeof block.thinking !== 'string') return invalid(`${at}.thinking.thinking: Field required`);
      if (typeof block.signature !== 'string') return invalid(`${at}.thinking.signature: Field required`);
      return rules.signatures.has(block.signature) ? null : invalid(`${at}: Invalid \`signature\` in \`thinking\` block`);
    case 'redacted_thinking':
      return typeof block.data === 'string' ? null : invalid(`${at}.redacted_thinking.data: Field required`);
    default:
      return null;
  }
}

function validateImage(source: unknown, at: string): Problem | null {
  if (!isObject(source)) return invalid(`${at}: Field required`);
  if (source.type === 'url') return typeof source.url === 'string' && /^https?:\/\//.test(source.url) ? null : invalid(`${at}.url.url: Input should be a valid URL`);
  if (source.type === 'file') return typeof source.file_id === 'string' ? null : invalid(`${at}.file.file_id: Field required`);
  if (source.type !== 'base64') return invalid(`${at}: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`);
  const types = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
  if (!types.includes(source.media_type)) return invalid(`${at}.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
  if (typeof source.data !== 'string' || !source.data) return invalid(`${at}.base64.data: Field required`);
  const actual = sniffImage(source.data);
  if (!actual) return invalid(`${at}.base64.data: Could not process image`);
  if (actual !== source.media_type) return invalid(`${at}.base64.data: The image was specified using the ${source.media_type} media type, but the image appears to be a ${actual} image`);
  return null;
}

interface Turn {
  role: string;
  index: number;
  blocks: Array<Record<string, any>>;
}

function validateMessages(body: Record<string, any>, rules: MessagesRules): Problem | null {
  const { messages } = body;
  if (messages === undefined) return invalid('messages: Field required');
  if (!Array.isArray(messages)) return invalid('messages: Input should be a valid list');
  if (!messages.length) return invalid('messages: at least one message is required');
  const turns: Turn[] = [];
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return invalid(`messages.${i}: Input should be a valid dictionary`);
    const { role, content } = message;
    const systemAllowed = rules.platform === 'anthropic' && MID_SYSTEM_MODEL.test(rules.model);
    if (role === 'system' && systemAllowed) {
      if (i === 0 || messages[i - 1]?.role !== 'user') return invalid(`messages.${i}: a system message must come immediately after a user message`);
      continue;
    }
    if (role !== 'user' && role !== 'assistant') {
      return invalid(role === 'system' ? `messages.${i}.role: Unexpected role "system". The Messages API accepts a top-level \`system\` parameter, not "system" as an input message role.` : `messages.${i}.role: Input should be 'user' or 'assistant'`);
    }
    const last = i === messages.length - 1;
    let blocks: Array<Record<string, any>>;
    if (typeof content === 'string') {
      if (!content && !(last && role === 'assistant')) return invalid(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
      blocks = content ? [{ type: 'text', text: content }] : [];
    } else if (Array.isArray(content)) {
      if (!content.length && !(last && role === 'assistant')) return invalid(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
      for (const [j, block] of content.entries()) {
        const problem = validateBlock(block, `messages.${i}.content.${j}`, role, rules);
        if (problem) return problem;
      }
      blocks = content;
    } else return invalid(`messages.${i}.content: Field required`);
    if (last && role === 'assistant' && typeof content === 'string' && content !== content.trimEnd()) return invalid('messages: final assistant content cannot end with trailing whitespace');
    const previous = turns.at(-1);
    if (rules.strictTurns && !previous && role !== 'user') return invalid('messages: first message must use the "user" role');
    if (previous && previous.role === role) {
      if (rules.strictTurns) return invalid(`messages: roles must alternate between "user" and "assistant", but found multiple "${role}" roles in a row`);
      previous.blocks = [...previous.blocks, ...blocks]; // the API joins consecutive same-role turns into one
    } else turns.push({ role, index: i, blocks });
  }
  return validateToolPairs(turns) ?? validateThinkingTurns(body, turns);
}

function validateToolPairs(turns: Turn[]): Problem | null {
  for (const [t, turn] of turns.entries()) {
    if (turn.role === 'user') {
      const results = turn.blocks.filter((b) => b.type === 'tool_result');
      if (!results.length) continue;
      const firstOther = turn.blocks.findIndex((b) => b.type !== 'tool_result');
      const lastResult = turn.blocks.map((b) => b.type).lastIndexOf('tool_result');
      if (firstOther !== -1 && firstOther < lastResult) return invalid(`messages.${turn.index}: \`tool_result\` blocks must come first in the content of a user message, before any other content`);
      const previous = t > 0 ? turns[t - 1] : undefined;
      const uses = new Set((previous?.blocks ?? []).filter((b) => b.type === 'tool_use').map((b) => b.id));
      const orphan = results.find((b) => !uses.has(b.tool_use_id));
      if (orphan) return invalid(`messages.${turn.index}.content.${turn.blocks.indexOf(orphan)}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${orphan.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
    } else {
      const uses = turn.blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
      const next = turns[t + 1];
      if (!uses.length || !next) continue;
      const answered = new Set(next.blocks.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
      const missing = uses.filter((id) => !answered.has(id));
      if (missing.length) return invalid(`messages.${turn.index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
    }
  }
  return null;
}

/** With thinking on, the assistant turn that opened the current tool loop must start with its thinking block. */
function validateThinkingTurns(body: Record<string, any>, turns: Turn[]): Problem | null {
  if (!thinkingOn(body)) return null;
  const last = turns.at(-1);
  const assistant = turns.at(-2);
  if (!last || last.role !== 'user' || !assistant || assistant.role !== 'assistant') return null;
  if (!last.blocks.some((b) => b.type === 'tool_result') || !assistant.blocks.some((b) => b.type === 'tool_use')) return null;
  const first = assistant.blocks[0];
  if (first.type === 'thinking' || first.type === 'redacted_thinking') return null;
  return invalid(
    `messages.${assistant.index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
  );
}

/** Up to 4 breakpoints; a 1-hour one may not follow a 5-minute one (order: tools, system, messages). */
function validateCacheControl(body: Record<string, any>): Problem | null {
  const marks: Array<{ at: string; value: any }> = [];
  const collect = (value: unknown, at: string) => {
    if (Array.isArray(value)) value.forEach((v, i) => collect(v, `${at}.${i}`));
    else if (isObject(value)) {
      if (value.cache_control !== undefined && value.cache_control !== null) marks.push({ at, value: value.cache_control });
      if (Array.isArray(value.content)) collect(value.content, `${at}.content`);
    }
  };
  collect(body.tools, 'tools');
  collect(body.system, 'system');
  collect(body.messages, 'messages');
  if (marks.length > 4) return invalid(`A maximum of 4 blocks with cache_control may be provided. Found ${marks.length}.`);
  let seenShort = false;
  for (const { at, value } of marks) {
    if (!isObject(value) || value.type !== 'ephemeral') return invalid(`${at}.cache_control.type: Input should be 'ephemeral'`);
    const ttl = value.ttl ?? '5m';
    if (ttl !== '5m' && ttl !== '1h') return invalid(`${at}.cache_control.ttl: Input should be '5m' or '1h'`);
    if (ttl === '1h' && seenShort) return invalid("a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. Note that blocks are processed in the following order: `tools`, `system`, `messages`.");
    if (ttl === '5m') seenShort = true;
  }
  return null;
}
