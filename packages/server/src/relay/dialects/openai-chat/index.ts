import type { MediaBounds } from '../../../billing/media-bounds.js';
import { collectText, promptBoundOf, type MediaReader, type MediaRef } from '../media.js';
import type { Dialect, RequestFacts } from '../types.js';
import { asNumber, asString, declaresTools, isRecord, largestLimit, TOOL_PROMPT_OVERHEAD } from '../shared.js';
import { buildChatRequest, usesCompletionTokensField } from './build-request.js';
import { parseChatRequest } from './parse-request.js';
import { asksLongCacheWrites, isFastTier, openAiBilledUsage, parseChatResponse, tierProblem, writeChatResponse } from './response.js';
import { createChatStreamReader, createChatStreamWriter } from './stream.js';

/** A URL or a `data:` URL as a piece of media. */
export const mediaAt = (kind: MediaRef['kind'], url: string | undefined, detail?: unknown): MediaRef => (url?.startsWith('data:') ? { kind, data: url, detail } : { kind, url, detail });

/** Content parts of Chat Completions that are media: images, input audio, files (inline or by id). */
export const chatMedia: MediaReader = (part) => {
  if (part.type === 'image_url' && (typeof part.image_url === 'string' || isRecord(part.image_url))) {
    const image = part.image_url;
    return typeof image === 'string' ? mediaAt('image', image) : mediaAt('image', asString(image.url), image.detail);
  }
  if (part.type === 'input_audio' && isRecord(part.input_audio)) {
    return { kind: 'audio', data: asString(part.input_audio.data) ?? '', mediaType: `audio/${asString(part.input_audio.format) ?? 'wav'}` };
  }
  if (part.type === 'file' && isRecord(part.file)) {
    const data = asString(part.file.file_data);
    return data === undefined ? { kind: 'document' } : { kind: 'file', data };
  }
  return undefined;
};

/** OpenAI Chat Completions (https://platform.openai.com/docs/api-reference/chat). */
export const openAiChatDialect: Dialect = {
  name: 'openai-chat',
  streamContentType: 'text/event-stream',
  idPrefix: 'chatcmpl-',
  endFrame: '[DONE]',
  parseRequest: parseChatRequest,
  validate: (body) => (Array.isArray((body as { messages?: unknown }).messages) && (body as { messages: unknown[] }).messages.length > 0 ? tierProblem((body as { service_tier?: unknown }).service_tier) : 'messages 必须是非空数组'),
  writeResponse: writeChatResponse,
  createStreamWriter: createChatStreamWriter,
  errorBody: openAiErrorBody,
  inspect: (body, boundsFor) => inspectOpenAi(body, [body.messages, body.tools, body.functions, body.response_format], boundsFor),
  buildRequest: buildChatRequest,
  parseResponse: parseChatResponse,
  createStreamReader: createChatStreamReader,
  rewrite(body, changes) {
    const copy: Record<string, unknown> = Object.assign({}, body, { model: changes.model });
    if (changes.stream !== undefined) copy.stream = changes.stream;
    if (changes.maxOutputTokens !== undefined) capOutput(copy, changes.maxOutputTokens, changes.model);
    // A reasoning model refuses `max_tokens` (chat clients send it for every model): the client's limit goes in the
    // field the model takes, as it does when the gateway caps it.
    else if ((asNumber(copy.max_tokens) ?? 0) > 0 && usesCompletionTokensField(changes.model)) capOutput(copy, Number.MAX_SAFE_INTEGER, changes.model);
    return copy;
  },
  frame: (frame) => `data: ${frame.data}\n\n`,
  billedUsage: openAiBilledUsage,
};

/** OpenAI's error shape, used by every OpenAI-style endpoint of /v1. */
export function openAiErrorBody(_status: number, message: string, code: string | null = null, type = 'invalid_request_error', param = '') {
  return { error: { message, type, param, code } };
}

/**
 * Facts of any OpenAI-style body; `promptParts` are the fields the model reads as its prompt. The output limit is
 * the larger of max_tokens and max_completion_tokens: a client may send both, and an upstream may honour either.
 */
export function inspectOpenAi(body: Record<string, unknown>, promptParts: unknown[], boundsFor: (model: string) => MediaBounds): RequestFacts {
  const model = asString(body.model) ?? '';
  const n = asNumber(body.n) ?? 1;
  const tools = declaresTools(body.tools) || declaresTools(body.functions);
  const audio = { tokens: 0 };
  const promptBound = promptBoundOf(promptParts, boundsFor(model), chatMedia, audio) + (tools ? TOOL_PROMPT_OVERHEAD : 0);
  return {
    model,
    stream: body.stream === true,
    maxTokens: largestLimit(body.max_completion_tokens, body.max_tokens, body.max_output_tokens),
    choices: Number.isInteger(n) && n > 1 ? Math.min(n, 128) : 1,
    promptBound,
    ...(audio.tokens > 0 ? { audioBound: audio.tokens } : {}),
    promptText: () => collectText(promptParts.slice(0, 1), chatMedia),
    includeUsage: isRecord(body.stream_options) && body.stream_options.include_usage === true,
    // Search models and web_search_options: OpenAI runs the search and bills its results as input.
    hostedTools: body.web_search_options !== undefined || /search/i.test(model),
    session: asString(body.prompt_cache_key),
    ...(isFastTier(body.service_tier) ? { fastMode: true } : {}),
    ...(asksLongCacheWrites(body, body.messages) ? { cacheWrites: '1h' as const } : {}),
  };
}

/**
 * Caps the answer's length in every output field the body carries (a client may send both max_tokens and
 * max_completion_tokens, and an upstream may honour either), never raising the client's own limit; a body with
 * neither gets the field the model understands. OpenAI's reasoning models refuse `max_tokens` and take
 * `max_completion_tokens`, which older OpenAI-compatible vendors do not know.
 */
export function capOutput(body: Record<string, unknown>, cap: number, model: string): void {
  let present = false;
  for (const field of ['max_tokens', 'max_completion_tokens']) {
    const current = asNumber(body[field]);
    if (current === undefined || current <= 0) continue;
    body[field] = Math.min(Math.floor(current), cap);
    present = true;
  }
  if (usesCompletionTokensField(model) && body.max_tokens !== undefined) {
    const limits = [body.max_tokens, body.max_completion_tokens].map(asNumber).filter((n): n is number => n !== undefined && n > 0);
    body.max_completion_tokens = limits.length > 0 ? Math.min(...limits) : cap;
    delete body.max_tokens;
  } else if (!present) body[usesCompletionTokensField(model) || body.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens'] = cap;
}
