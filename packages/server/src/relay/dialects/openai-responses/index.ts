import { contextWindowOf } from '../../../billing/media-bounds.js';
import { collectText, promptBoundOf, type MediaReader } from '../media.js';
import type { Dialect } from '../types.js';
import { chatMedia, mediaAt, openAiErrorBody } from '../openai-chat/index.js';
import { asksLongCacheWrites, isFastTier, tierProblem } from '../openai-chat/response.js';
import { asNumber, asString, declaresTools, isRecord, largestLimit, parseEvent, TOOL_PROMPT_OVERHEAD } from '../shared.js';
import { buildResponsesRequest } from './build-request.js';
import { clientToolMap } from './client-tools.js';
import { parseResponsesRequest } from './parse-request.js';
import { parseResponsesResponse, writeResponsesResponse } from './response.js';
import { createResponsesStreamReader, createResponsesStreamWriter } from './stream.js';

/** Input images and files, inline (a data URL), by URL or by file id; Chat Completions' parts where they appear. */
const responsesMedia: MediaReader = (part) => {
  if (part.type === 'input_image') return mediaAt('image', asString(part.image_url), part.detail);
  if (part.type === 'input_file') {
    const data = asString(part.file_data);
    if (data !== undefined) return { kind: 'file', data, mediaType: data.startsWith('data:') ? undefined : 'application/pdf' };
    return { kind: 'document', url: asString(part.file_url) };
  }
  return chatMedia(part);
};
/** Left out of the prompt's text when counting: reasoning only the model that wrote it can read. */
const OPAQUE = new Set(['encrypted_content']);
/** Tools Codex and other clients run themselves; every other kind runs at OpenAI and bills its results as input. */
const CLIENT_RUN = new Set(['function', 'custom', 'namespace', 'local_shell', 'shell', 'apply_patch', 'computer_use_preview', 'computer']);
const hostsTools = (tools: unknown) => Array.isArray(tools) && tools.some((tool) => isRecord(tool) && !CLIENT_RUN.has(String(tool.type ?? 'function')));

/**
 * OpenAI Responses (https://platform.openai.com/docs/api-reference/responses), the API Codex CLI speaks. OpenAI
 * channels take it as is (pass-through, usage read from response.completed); every other channel gets the
 * conversation translated, within what it can do (see parse-request.ts for what is refused).
 */
export const openAiResponsesDialect: Dialect = {
  name: 'openai-responses',
  streamContentType: 'text/event-stream',
  idPrefix: 'resp_',
  parseRequest: parseResponsesRequest,
  validate: (body) => {
    const input = (body as { input?: unknown }).input;
    return typeof input === 'string' || Array.isArray(input) ? tierProblem((body as { service_tier?: unknown }).service_tier) : 'input 必须是字符串或数组';
  },
  writeResponse: writeResponsesResponse,
  createStreamWriter: createResponsesStreamWriter,
  errorBody: openAiErrorBody,
  inspect(body, boundsFor) {
    const model = asString(body.model) ?? '';
    const parts = [body.instructions, body.input, body.tools, body.text];
    return {
      model,
      stream: body.stream === true,
      maxTokens: largestLimit(body.max_output_tokens),
      choices: 1,
      promptBound:
        promptBoundOf(parts, boundsFor(model), responsesMedia) +
        (declaresTools(body.tools) ? TOOL_PROMPT_OVERHEAD : 0) +
        // A conversation stored at OpenAI is part of the prompt the body does not show: up to a whole context window.
        (body.previous_response_id || body.conversation ? contextWindowOf(model) : 0),
      hostedTools: hostsTools(body.tools),
      // Codex sends its conversation id as the cache key.
      session: asString(body.prompt_cache_key),
      promptText: () => collectText([body.instructions, body.input], responsesMedia, OPAQUE),
      // The terminal event always carries the usage.
      includeUsage: true,
      clientTools: clientToolMap(body.tools),
      ...(isFastTier(body.service_tier) ? { fastMode: true } : {}),
      ...(asksLongCacheWrites(body, body.input) ? { cacheWrites: '1h' as const } : {}),
    };
  },
  buildRequest: buildResponsesRequest,
  parseResponse: parseResponsesResponse,
  createStreamReader: createResponsesStreamReader,
  rewrite(body, changes) {
    const copy: Record<string, unknown> = Object.assign({}, body, { model: changes.model });
    if (changes.stream !== undefined) copy.stream = changes.stream;
    if (changes.maxOutputTokens !== undefined) {
      const current = asNumber(body.max_output_tokens);
      copy.max_output_tokens = current !== undefined && current > 0 ? Math.min(current, changes.maxOutputTokens) : changes.maxOutputTokens;
    }
    return copy;
  },
  frame(frame) {
    const type = frame.event ?? asString(parseEvent(frame.data)?.type) ?? 'message';
    return `event: ${type}\ndata: ${frame.data}\n\n`;
  },
};
