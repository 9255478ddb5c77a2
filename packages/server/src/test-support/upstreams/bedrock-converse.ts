import { fixtures } from './fixtures.js';
import type { MockMode } from './mock-server.js';

/**
 * Bedrock's Converse API (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html): what it
 * refuses (each refusal is a ValidationException message) and its answers, read from providers/bedrock/__fixtures__.
 */
const fx = fixtures('bedrock');
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const CONVERSE_SCENARIOS = ['text', 'tools', 'tool-result', 'image', 'reasoning', 'cache'] as const;
export type ConverseScenario = (typeof CONVERSE_SCENARIOS)[number];
export interface Frame {
  headers: Record<string, string>;
  payload: Record<string, any>;
}

/** A model id from the path: a base id, a cross-region profile id (`us.`...) or an ARN of either. */
export function parseModelId(raw: string): { id: string; family: string; profile: boolean } | undefined {
  const id = raw.startsWith('arn:') ? (/:(?:foundation-model|inference-profile|application-inference-profile)\/(.+)$/.exec(raw)?.[1] ?? '') : raw;
  const m = /^(?:(us|eu|apac|global|jp|au|ca|us-gov)\.)?(anthropic|amazon|meta|mistral|cohere|ai21|deepseek|openai|qwen|writer|twelvelabs)\.[a-z0-9.:-]+$/.exec(id);
  return m ? { id, family: m[2], profile: Boolean(m[1]) || raw.includes('inference-profile/') } : undefined;
}

/** Newer Claude models run only through an inference profile; a base id is refused for on-demand use. */
export function needsProfile(model: { id: string; family: string; profile: boolean }): boolean {
  return model.family === 'anthropic' && !model.profile && /claude-(3-7|sonnet-4|opus-4|haiku-4-5|sonnet-5|opus-5)/.test(model.id);
}

export function reasoningSignatures(): Set<string> {
  const out = new Set<string>();
  for (const block of fx.json('reasoning.response.json').output.message.content) if (block.reasoningContent?.reasoningText?.signature) out.add(block.reasoningContent.reasoningText.signature);
  return out;
}

const CONTENT_MEMBERS = ['text', 'image', 'document', 'video', 'toolUse', 'toolResult', 'guardContent', 'cachePoint', 'reasoningContent', 'citationsContent', 'searchResult'];
const field = (at: string, rule: string, value: unknown) => `1 validation error detected: Value ${JSON.stringify(value) ?? 'null'} at '${at}' failed to satisfy constraint: ${rule}`;

const thinking = (body: Record<string, any>) => body.additionalModelRequestFields?.thinking;
const thinkingOn = (body: Record<string, any>) => ['enabled', 'adaptive'].includes(thinking(body)?.type);

export function validateConverse(body: unknown, opts: { family: string; stream: boolean; signatures: Set<string> }): string | null {
  if (!isObject(body)) return 'Unable to parse the request body as JSON.';
  const { messages, system, inferenceConfig, toolConfig } = body;
  if (!Array.isArray(messages) || !messages.length) return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
  if (system !== undefined && !Array.isArray(system)) return field('system', 'Member must be a list', system);
  for (const [i, block] of (system ?? []).entries()) if (!isObject(block) || !['text', 'cachePoint', 'guardContent'].some((k) => k in block)) return `The system field at system.${i} must contain text, a cachePoint or guardContent.`;
  if (inferenceConfig !== undefined) {
    if (inferenceConfig.maxTokens !== undefined && !(Number.isInteger(inferenceConfig.maxTokens) && inferenceConfig.maxTokens >= 1)) return field('inferenceConfig.maxTokens', 'Member must have value greater than or equal to 1', inferenceConfig.maxTokens);
    if (inferenceConfig.temperature !== undefined && (inferenceConfig.temperature < 0 || inferenceConfig.temperature > 1)) return field('inferenceConfig.temperature', 'Member must have value less than or equal to 1', inferenceConfig.temperature);
    if (inferenceConfig.topP !== undefined && (inferenceConfig.topP < 0 || inferenceConfig.topP > 1)) return field('inferenceConfig.topP', 'Member must have value less than or equal to 1', inferenceConfig.topP);
  }
  let toolBlocks = false;
  for (const [i, message] of messages.entries()) {
    if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant')) return field(`messages.${i + 1}.member.role`, 'Member must satisfy enum value set: [user, assistant]', message?.role);
    if (i === 0 && message.role !== 'user') return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
    if (i > 0 && messages[i - 1].role === message.role) return 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.';
    if (!Array.isArray(message.content) || !message.content.length) return `The content field in the Message object at messages.${i} is empty. Add a ContentBlock object to the content field and try again.`;
    for (const [j, block] of message.content.entries()) {
      const at = `messages.${i}.content.${j}`;
      const members = isObject(block) ? Object.keys(block).filter((k) => CONTENT_MEMBERS.includes(k)) : [];
      if (members.length !== 1 || Object.keys(block).length !== 1) return `The ContentBlock object at ${at} must set exactly one of: ${CONTENT_MEMBERS.join(', ')}.`;
      if ('text' in block && (typeof block.text !== 'string' || !block.text.trim())) return `The text field in the ContentBlock object at ${at} is blank. Add text to the text field, and try again.`;
      if ('image' in block && (!['png', 'jpeg', 'gif', 'webp'].includes(block.image?.format) || typeof block.image?.source?.bytes !== 'string')) return field(`${at}.image.format`, 'Member must satisfy enum value set: [png, jpeg, gif, webp]', block.image?.format);
      if ('toolUse' in block || 'toolResult' in block) toolBlocks = true;
      if ('toolUse' in block && message.role !== 'assistant') return `The toolUse block at ${at} is only allowed in an assistant message.`;
      if ('toolResult' in block && message.role !== 'user') return `The toolResult block at ${at} is only allowed in a user message.`;
      if ('reasoningContent' in block) {
        const signature = block.reasoningContent?.reasoningText?.signature;
        if (signature !== undefined && !opts.signatures.has(signature)) return `The model returned the following errors: ${at}: Invalid \`signature\` in \`thinking\` block`;
      }
    }
  }
  if (toolBlocks && !isObject(toolConfig)) return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
  return validateTools(toolConfig, opts) ?? validateToolTurns(messages) ?? validateClaudeFields(body, opts.family) ?? validateCachePoints(body);
}

function validateTools(toolConfig: unknown, opts: { family: string; stream: boolean }): string | null {
  if (toolConfig === undefined) return null;
  if (!isObject(toolConfig) || !Array.isArray(toolConfig.tools) || !toolConfig.tools.length) return field('toolConfig.tools', 'Member must have length greater than or equal to 1', (toolConfig as any)?.tools);
  for (const [i, tool] of toolConfig.tools.entries()) {
    if (isObject(tool) && 'cachePoint' in tool) continue;
    const spec = tool?.toolSpec;
    if (!isObject(spec)) return `The tool at toolConfig.tools.${i} must set toolSpec or cachePoint.`;
    if (typeof spec.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(spec.name)) return field(`toolConfig.tools.${i + 1}.member.toolSpec.name`, 'Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+', spec.name);
    if (!isObject(spec.inputSchema) || !isObject(spec.inputSchema.json)) return `The inputSchema of the tool at toolConfig.tools.${i} must be {"json": <JSON Schema object>}.`;
  }
  if (opts.stream && opts.family === 'meta') return "This model doesn't support tool use in streaming mode.";
  return null;
}

function validateToolTurns(messages: any[]): string | null {
  for (const [i, message] of messages.entries()) {
    const uses = message.content.filter((b: any) => b.toolUse).map((b: any) => b.toolUse.toolUseId);
    const results = message.content.filter((b: any) => b.toolResult).map((b: any) => b.toolResult.toolUseId);
    if (results.length) {
      const previous = (messages[i - 1]?.content ?? []).filter((b: any) => b.toolUse).map((b: any) => b.toolUse.toolUseId);
      if (results.length > previous.length) return `The number of toolResult blocks at messages.${i}.content exceeds the number of toolUse blocks of previous turn.`;
      const stray = results.find((id: string) => !previous.includes(id));
      if (stray) return `The toolResult block with toolUseId ${stray} at messages.${i}.content does not match any toolUse block of the previous turn.`;
    }
    const next = messages[i + 1];
    if (uses.length && next) {
      const answered = next.content.filter((b: any) => b.toolResult).map((b: any) => b.toolResult.toolUseId);
      const missing = uses.filter((id: string) => !answered.includes(id));
      if (missing.length) return `Expected toolResult blocks at messages.${i + 1}.content for the following Ids: ${missing.join(', ')}`;
    }
  }
  return null;
}

/** Claude's own rules, passed through additionalModelRequestFields (Bedrock reports them as ValidationException). */
function validateClaudeFields(body: Record<string, any>, family: string): string | null {
  if (family !== 'anthropic') return null;
  const t = thinking(body);
  if (t === undefined) return null;
  if (!['enabled', 'disabled', 'adaptive'].includes(t?.type)) return "The model returned the following errors: thinking: Input tag found using 'type' does not match any of the expected tags: 'adaptive', 'disabled', 'enabled'";
  if (t.type === 'enabled') {
    if (!Number.isInteger(t.budget_tokens) || t.budget_tokens < 1024) return 'The model returned the following errors: thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if ((body.inferenceConfig?.maxTokens ?? 4096) <= t.budget_tokens) return 'The model returned the following errors: `max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size';
  }
  const messages = body.messages;
  const last = messages.at(-1);
  const assistant = messages.at(-2);
  if (thinkingOn(body) && last?.content.some((b: any) => b.toolResult) && assistant?.content.some((b: any) => b.toolUse) && !assistant.content[0].reasoningContent) {
    return `The model returned the following errors: messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${Object.keys(assistant.content[0])[0] === 'toolUse' ? 'tool_use' : 'text'}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`;
  }
  return null;
}

function validateCachePoints(body: Record<string, any>): string | null {
  const points: any[] = [];
  for (const list of [body.system ?? [], ...(body.messages ?? []).map((m: any) => m.content), body.toolConfig?.tools ?? []]) for (const block of list) if (isObject(block) && block.cachePoint) points.push(block.cachePoint);
  for (const point of points) {
    if (point.type !== 'default') return field('cachePoint.type', 'Member must satisfy enum value set: [default]', point.type);
    if (point.ttl !== undefined && !['5m', '1h'].includes(point.ttl)) return field('cachePoint.ttl', 'Member must satisfy enum value set: [5m, 1h]', point.ttl);
  }
  if (points.length > 4) return `The model returned the following errors: A maximum of 4 blocks with cache_control may be provided. Found ${points.length}.`;
  return null;
}

function toolNames(body: Record<string, any>): string[] {
  return (body.toolConfig?.tools ?? []).map((t: any) => t?.toolSpec?.name).filter(Boolean);
}

export function pickConverseScenario(body: Record<string, any>, mode: MockMode | undefined): ConverseScenario {
  const tools = toolNames(body).length > 0;
  if (mode === 'tool' && tools) return 'tools';
  if (mode === 'thinking') return 'reasoning';
  if (mode === 'cache') return 'cache';
  const messages: any[] = body.messages ?? [];
  if (messages.at(-1)?.content?.some((b: any) => b.toolResult)) return 'tool-result';
  if (tools) return 'tools';
  if (thinkingOn(body)) return 'reasoning';
  const blocks = [...(body.system ?? []), ...messages.flatMap((m) => m.content ?? []), ...(body.toolConfig?.tools ?? [])];
  if (blocks.some((b) => b?.cachePoint)) return 'cache';
  if (blocks.some((b) => b?.image)) return 'image';
  return 'text';
}

/** The Converse answer (and its stream frames) for a request; Nova and Llama answer their own text, the rest Claude's. */
export function converseReply(body: Record<string, any>, mode: MockMode | undefined, family: string): { scenario: ConverseScenario; response: any; frames: Frame[] } {
  const scenario = pickConverseScenario(body, mode);
  const file = scenario === 'text' && family !== 'anthropic' ? 'nova-text' : scenario;
  const response = fx.json(`${file}.response.json`);
  let frames: Frame[] = fx.json(`${file}.stream.frames.json`);
  if (scenario === 'tools' && family === 'anthropic' && thinkingOn(body)) {
    // With thinking on Claude reasons before it calls a tool: lead with the recorded reasoning block.
    const reasoning = fx.json('reasoning.response.json');
    response.output.message.content.unshift(reasoning.output.message.content[0]);
    const thoughts = (fx.json('reasoning.stream.frames.json') as Frame[]).filter((f) => f.payload.contentBlockIndex === 0);
    const shifted = frames.map((f) => (typeof f.payload.contentBlockIndex === 'number' ? { ...f, payload: { ...f.payload, contentBlockIndex: f.payload.contentBlockIndex + 1 } } : f));
    frames = [shifted[0], ...thoughts, ...shifted.slice(1)];
  }
  const name = body.toolConfig?.toolChoice?.tool?.name ?? toolNames(body)[0];
  if (name) {
    for (const block of response.output.message.content) if (block.toolUse) block.toolUse.name = name;
    for (const frame of frames) if (frame.payload.start?.toolUse) frame.payload = { ...frame.payload, start: { toolUse: { ...frame.payload.start.toolUse, name } } };
  }
  return { scenario, response, frames };
}

/** Input tokens as the matching answer bills them (input + cache read + cache write), for count-tokens. */
export function converseInputTokens(body: Record<string, any>): number {
  const u = fx.json(`${pickConverseScenario(body, undefined)}.response.json`).usage;
  return u.inputTokens + (u.cacheReadInputTokens ?? 0) + (u.cacheWriteInputTokens ?? 0);
}
