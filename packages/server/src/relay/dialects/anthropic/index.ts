import type { Dialect } from '../types.js';
import { asNumber, asString, collectText, isRecord, parseEvent, promptBoundOf } from '../shared.js';
import { buildMessagesRequest, parseMessagesRequest } from './request.js';
import { anthropicErrorBody, parseMessagesResponse, writeMessagesResponse } from './response.js';
import { createMessagesStreamReader, createMessagesStreamWriter } from './stream.js';

/** An image block's source (inline base64 or URL) counts as an image, not as its bytes. */
const isMedia = (key: string, value: unknown) =>
  key === 'source' && isRecord(value) && (value.type === 'url' || (value.type === 'base64' && String(value.media_type ?? '').startsWith('image/')));

/** Anthropic Messages (https://docs.anthropic.com/en/api/messages), as Claude Code and the Anthropic SDKs speak it. */
export const anthropicDialect: Dialect = {
  name: 'anthropic',
  streamContentType: 'text/event-stream',
  parseRequest: parseMessagesRequest,
  validate: (body) => (Array.isArray((body as { messages?: unknown }).messages) ? undefined : 'messages 必须是数组'),
  writeResponse: writeMessagesResponse,
  createStreamWriter: createMessagesStreamWriter,
  errorBody: anthropicErrorBody,
  inspect(body, imageBound) {
    const model = asString(body.model) ?? '';
    const max = asNumber(body.max_tokens) ?? 0;
    const parts = [body.messages, body.system, body.tools];
    return {
      model,
      stream: body.stream === true,
      maxTokens: max > 0 ? Math.floor(max) : 0,
      choices: 1,
      promptBound: promptBoundOf(parts, imageBound(model), isMedia),
      promptText: () => collectText([body.system, body.messages, body.tools], isMedia),
      includeUsage: true,
    };
  },
  buildRequest: buildMessagesRequest,
  parseResponse: parseMessagesResponse,
  createStreamReader: createMessagesStreamReader,
  rewrite(body, changes) {
    const copy: Record<string, unknown> = { ...body, model: changes.model };
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
