import type { Dialect, RequestFacts } from '../types.js';
import { asNumber, asString, collectText, isRecord, promptBoundOf } from '../shared.js';
import { buildChatRequest, usesCompletionTokensField } from './build-request.js';
import { parseChatRequest } from './parse-request.js';
import { parseChatResponse, writeChatResponse } from './response.js';
import { createChatStreamReader, createChatStreamWriter } from './stream.js';

const isMedia = (key: string) => key === 'image_url' || key === 'input_audio';

/** OpenAI Chat Completions (https://platform.openai.com/docs/api-reference/chat). */
export const openAiChatDialect: Dialect = {
  name: 'openai-chat',
  streamContentType: 'text/event-stream',
  parseRequest: parseChatRequest,
  validate: (body) => (Array.isArray((body as { messages?: unknown }).messages) && (body as { messages: unknown[] }).messages.length > 0 ? undefined : 'messages 必须是非空数组'),
  writeResponse: writeChatResponse,
  createStreamWriter: createChatStreamWriter,
  errorBody: openAiErrorBody,
  inspect: (body, imageBound) => inspectOpenAi(body, [body.messages, body.tools, body.functions, body.response_format], imageBound),
  buildRequest: buildChatRequest,
  parseResponse: parseChatResponse,
  createStreamReader: createChatStreamReader,
  rewrite(body, changes) {
    const copy: Record<string, unknown> = { ...body, model: changes.model };
    if (changes.stream !== undefined) copy.stream = changes.stream;
    if (changes.maxOutputTokens !== undefined) capOutput(copy, changes.maxOutputTokens, changes.model);
    return copy;
  },
  frame: (frame) => `data: ${frame.data}\n\n`,
};

/** OpenAI's error shape, used by every OpenAI-style endpoint of /v1. */
export function openAiErrorBody(_status: number, message: string, code: string | null = null, type = 'invalid_request_error') {
  return { error: { message, type, param: '', code } };
}

/** Facts of any OpenAI-style body; `promptParts` are the fields the model reads as its prompt. */
export function inspectOpenAi(body: Record<string, unknown>, promptParts: unknown[], imageBound: (model: string) => number): RequestFacts {
  const model = asString(body.model) ?? '';
  const max = asNumber(body.max_completion_tokens) ?? asNumber(body.max_tokens) ?? asNumber(body.max_output_tokens) ?? 0;
  const n = asNumber(body.n) ?? 1;
  return {
    model,
    stream: body.stream === true,
    maxTokens: max > 0 ? Math.floor(max) : 0,
    choices: Number.isInteger(n) && n > 1 ? Math.min(n, 128) : 1,
    promptBound: promptBoundOf(promptParts, imageBound(model), isMedia),
    promptText: () => collectText(promptParts.slice(0, 1), isMedia),
    includeUsage: isRecord(body.stream_options) && body.stream_options.include_usage === true,
  };
}

/**
 * Caps the answer's length. OpenAI's reasoning models refuse `max_tokens` and take `max_completion_tokens`,
 * which older OpenAI-compatible vendors do not know: use the field the client used, else the one the model
 * understands, and never raise the client's own limit.
 */
export function capOutput(body: Record<string, unknown>, cap: number, model: string): void {
  const modern = body.max_completion_tokens !== undefined || usesCompletionTokensField(model);
  const field = modern ? 'max_completion_tokens' : 'max_tokens';
  const current = Number(body[field] ?? body.max_tokens ?? Infinity);
  body[field] = Math.min(cap, Number.isFinite(current) && current > 0 ? current : cap);
  if (modern) delete body.max_tokens;
}
