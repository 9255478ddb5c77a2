import { collectText, promptBoundOf, type MediaReader } from '../media.js';
import type { Dialect } from '../types.js';
import { asNumber, asString, declaresTools, isRecord, largestLimit, parseEvent, TOOL_PROMPT_OVERHEAD } from '../shared.js';
import { buildMessagesRequest } from './build-request.js';
import { parseMessagesRequest } from './parse-request.js';
import { anthropicErrorBody, parseMessagesResponse, writeMessagesResponse } from './response.js';
import { createMessagesStreamReader, createMessagesStreamWriter } from './stream.js';

/**
 * Image and document blocks whose bytes are inline (base64), elsewhere (a URL) or uploaded (a file id). A document
 * given as text or as content blocks is text like any other.
 */
const anthropicMedia: MediaReader = (block) => {
  if ((block.type !== 'image' && block.type !== 'document') || !isRecord(block.source)) return undefined;
  const source = block.source;
  const kind = block.type === 'image' ? 'image' : 'document';
  if (source.type === 'base64') return { kind, data: asString(source.data) ?? '', mediaType: asString(source.media_type) };
  if (source.type === 'url' || source.type === 'file') return { kind, url: asString(source.url) };
  return undefined;
};

/** The prompt-cache writes a body asks for: cache_control on the body (automatic caching) or on any block. */
function cacheWritesOf(body: Record<string, unknown>): 'none' | '5m' | '1h' {
  let writes: 'none' | '5m' | '1h' = 'none';
  const mark = (value: unknown) => {
    if (!isRecord(value) || !isRecord(value.cache_control)) return;
    writes = value.cache_control.ttl === '1h' ? '1h' : writes === 'none' ? '5m' : writes;
  };
  mark(body);
  for (const list of [body.system, body.tools]) if (Array.isArray(list)) list.forEach(mark);
  if (Array.isArray(body.messages)) for (const message of body.messages) if (isRecord(message) && Array.isArray(message.content)) message.content.forEach(mark);
  return writes;
}

/** Tools Anthropic runs itself (web search and fetch, code execution, tool search) and remote MCP servers. */
const hostsTools = (body: Record<string, unknown>) =>
  declaresTools(body.mcp_servers) || (Array.isArray(body.tools) && body.tools.some((tool) => isRecord(tool) && /^(web_search|web_fetch|code_execution|tool_search|advisor)/.test(String(tool.type ?? ''))));

/**
 * The most searches the body's web search tools may run (each tool's `max_uses` summed), or undefined when one of them
 * sets no bound (or there is none). Each search is billed apart, so it is reserved with the tokens.
 */
function searchBoundOf(tools: unknown): number | undefined {
  let bound: number | undefined;
  for (const tool of Array.isArray(tools) ? tools : []) {
    if (!isRecord(tool) || !String(tool.type ?? '').startsWith('web_search')) continue;
    const uses = asNumber(tool.max_uses);
    if (uses === undefined || !Number.isInteger(uses) || uses < 1) return undefined;
    bound = (bound ?? 0) + uses;
  }
  return bound;
}

/** Anthropic Messages (https://docs.anthropic.com/en/api/messages), as Claude Code and the Anthropic SDKs speak it. */
export const anthropicDialect: Dialect = {
  name: 'anthropic',
  streamContentType: 'text/event-stream',
  idPrefix: 'msg_',
  parseRequest: parseMessagesRequest,
  validate: (body) => (Array.isArray((body as { messages?: unknown }).messages) ? undefined : 'messages 必须是数组'),
  writeResponse: writeMessagesResponse,
  createStreamWriter: createMessagesStreamWriter,
  errorBody: anthropicErrorBody,
  inspect(body, boundsFor) {
    const model = asString(body.model) ?? '';
    const parts = [body.messages, body.system, body.tools];
    return {
      model,
      stream: body.stream === true,
      // The thinking budget is part of max_tokens, which bounds it (Anthropic refuses a budget at or above it).
      maxTokens: largestLimit(body.max_tokens, isRecord(body.thinking) ? body.thinking.budget_tokens : undefined),
      choices: 1,
      promptBound: promptBoundOf(parts, boundsFor(model), anthropicMedia) + (declaresTools(body.tools) ? TOOL_PROMPT_OVERHEAD : 0),
      promptText: () => collectText([body.system, body.messages, body.tools], anthropicMedia),
      includeUsage: true,
      hostedTools: hostsTools(body),
      searchBound: searchBoundOf(body.tools),
      cacheWrites: cacheWritesOf(body),
      ...(body.speed === 'fast' ? { fastMode: true } : {}),
      // Claude Code names its session here (user_…_account_…_session_<uuid>).
      session: isRecord(body.metadata) ? asString(body.metadata.user_id) : undefined,
    };
  },
  buildRequest: buildMessagesRequest,
  parseResponse: parseMessagesResponse,
  createStreamReader: createMessagesStreamReader,
  rewrite(body, changes) {
    const copy: Record<string, unknown> = Object.assign({}, body, { model: changes.model });
    if (changes.stream !== undefined) copy.stream = changes.stream;
    if (changes.maxOutputTokens !== undefined) {
      const current = asNumber(body.max_tokens);
      copy.max_tokens = current !== undefined && current > 0 ? Math.min(current, changes.maxOutputTokens) : changes.maxOutputTokens;
      // A thinking budget must stay below max_tokens.
      if (isRecord(copy.thinking) && typeof copy.thinking.budget_tokens === 'number' && copy.thinking.budget_tokens >= (copy.max_tokens as number)) {
        copy.thinking = (copy.max_tokens as number) > 1024 ? { ...copy.thinking, budget_tokens: (copy.max_tokens as number) - 1 } : { type: 'disabled' };
      }
    }
    return copy;
  },
  frame(frame) {
    const type = frame.event ?? asString(parseEvent(frame.data)?.type) ?? 'message';
    return `event: ${type}\ndata: ${frame.data}\n\n`;
  },
};
