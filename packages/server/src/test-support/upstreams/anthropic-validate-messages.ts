import type { MessagesRules, Problem } from './anthropic-validate.js';
import { sniffImage } from './sniff-image.js';

/**
 * The `messages` rules of the Claude Messages API: block types per role, images, tool_use / tool_result pairs, thinking
 * blocks and their signatures. Consecutive same-role turns are joined, as the API does, unless `strictTurns` is set.
 */
const invalid = (message: string): Problem => ({ status: 400, type: 'invalid_request_error', message });
const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Mid-conversation `role: system` messages: Claude API only, Claude Opus 4.8 only. */
const MID_SYSTEM_MODEL = /claude-opus-4-8/;
const thinkingOn = (body: Record<string, any>) => isObject(body.thinking) && (body.thinking.type === 'enabled' || body.thinking.type === 'adaptive');

const USER_BLOCKS = ['text', 'image', 'document', 'tool_result', 'search_result', 'container_upload', 'tool_reference'];
const ASSISTANT_BLOCKS = ['text', 'tool_use', 'thinking', 'redacted_thinking', 'server_tool_use', 'web_search_tool_result', 'web_fetch_tool_result', 'code_execution_tool_result', 'document'];

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

export function validateMessages(body: Record<string, any>, rules: MessagesRules): Problem | null {
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
