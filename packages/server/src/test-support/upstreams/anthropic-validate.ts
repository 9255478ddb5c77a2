import { validateMessages } from './anthropic-validate-messages.js';

/**
 * What the Claude Messages API refuses, for the three places it is served: Anthropic itself, Vertex AI
 * (rawPredict) and Bedrock (InvokeModel). Messages follow the real API's wording where the docs or real answers show
 * it (the wording of our own checks is ours).
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
/**
 * The most output tokens each model takes (each model's page on platform.claude.com, Bedrock's model cards): a larger
 * max_tokens is refused. Claude 3.7 is given 128K here, what it takes with its output-128k beta header, so the mock
 * never refuses what the API may accept.
 */
function maxOutputOf(model: string): number {
  if (/claude-3-(opus|sonnet|haiku)/.test(model)) return 4096;
  if (/claude-3-5/.test(model)) return 8192;
  if (/claude-opus-4(-1|-0)?(-20\d{6}|@|-v\d|$)/.test(model)) return 32000;
  if (/claude-(sonnet-4-5|sonnet-4(-20\d{6}|@|-v\d|$)|haiku-4|opus-4-5)/.test(model)) return 64000;
  return 128000;
}

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
    const most = maxOutputOf(rules.model);
    if (body.max_tokens > most) return invalid(`max_tokens: ${body.max_tokens} > ${most}, which is the maximum allowed number of output tokens for ${rules.model}`);
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

/** Models that take `inference_geo` (Opus 4.6, Sonnet 4.6 and later); an older one refuses it with a 400. */
const GEO_MODEL = /^claude-(opus|sonnet)-4-[6-9]|^claude-(opus|sonnet|fable|mythos)-5/;

function validateSampling(body: Record<string, any>, rules: MessagesRules): Problem | null {
  const { temperature, top_p, top_k } = body;
  if (body.inference_geo !== undefined) {
    if (body.inference_geo !== 'us' && body.inference_geo !== 'global') return invalid("inference_geo: Input should be 'us' or 'global'");
    if (!GEO_MODEL.test(rules.model)) return invalid(`inference_geo: ${rules.model} does not support inference_geo.`);
  }
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
