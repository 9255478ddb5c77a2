import type { Dialect } from '../types.js';
import { openAiErrorBody } from '../openai-chat/index.js';
import { asNumber, asString, collectText, parseEvent, promptBoundOf } from '../shared.js';
import { buildResponsesRequest } from './build-request.js';
import { customToolNames } from './freeform.js';
import { parseResponsesRequest } from './parse-request.js';
import { parseResponsesResponse, writeResponsesResponse } from './response.js';
import { createResponsesStreamReader } from './stream-reader.js';
import { createResponsesStreamWriter } from './stream-writer.js';

/** An image part's URL (often an inline data URL) counts as an image, not as its bytes. */
const isMedia = (key: string) => key === 'image_url';
/** Left out of the prompt's text when counting: media, and reasoning only the model that wrote it can read. */
const isOpaque = (key: string) => key === 'image_url' || key === 'file_data' || key === 'encrypted_content';

/**
 * OpenAI Responses (https://platform.openai.com/docs/api-reference/responses), the API Codex CLI speaks. OpenAI
 * channels take it as is (pass-through, usage read from response.completed); every other channel gets the
 * conversation translated, within what it can do (see parse-request.ts for what is refused).
 */
export const openAiResponsesDialect: Dialect = {
  name: 'openai-responses',
  streamContentType: 'text/event-stream',
  parseRequest: parseResponsesRequest,
  validate: (body) => {
    const input = (body as { input?: unknown }).input;
    return typeof input === 'string' || Array.isArray(input) ? undefined : 'input 必须是字符串或数组';
  },
  writeResponse: writeResponsesResponse,
  createStreamWriter: createResponsesStreamWriter,
  errorBody: openAiErrorBody,
  inspect(body, imageBound) {
    const model = asString(body.model) ?? '';
    const max = asNumber(body.max_output_tokens) ?? 0;
    const parts = [body.instructions, body.input, body.tools, body.text];
    return {
      model,
      stream: body.stream === true,
      maxTokens: max > 0 ? Math.floor(max) : 0,
      choices: 1,
      promptBound: promptBoundOf(parts, imageBound(model), isMedia),
      promptText: () => collectText([body.instructions, body.input], isOpaque),
      // The terminal event always carries the usage.
      includeUsage: true,
      freeformTools: customToolNames(body.tools),
    };
  },
  buildRequest: buildResponsesRequest,
  parseResponse: parseResponsesResponse,
  createStreamReader: createResponsesStreamReader,
  rewrite(body, changes) {
    const copy: Record<string, unknown> = { ...body, model: changes.model };
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
