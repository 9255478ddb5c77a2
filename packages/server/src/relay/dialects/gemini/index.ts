import type { Dialect } from '../types.js';
import { asNumber, asString, collectText, isRecord, promptBoundOf } from '../shared.js';
import { buildGenerateContentRequest } from './build-request.js';
import { parseGenerateContentRequest } from './parse-request.js';
import { protoField } from './proto-json.js';
import { geminiErrorBody, parseGenerateContentResponse, writeGenerateContentResponse } from './response.js';
import { createGenerateContentStreamReader, createGenerateContentStreamWriter } from './stream.js';

/** Inline or referenced media count as an image each, not as their bytes. */
const isMedia = (key: string) => key === 'inlineData' || key === 'inline_data' || key === 'fileData' || key === 'file_data';
/** Thought signatures are opaque tokens sent back, not words of the prompt. */
const isMediaOrSignature = (key: string) => isMedia(key) || key === 'thoughtSignature' || key === 'thought_signature';

/**
 * Gemini generateContent (https://ai.google.dev/api/generate-content), as the Gemini API, Gemini on Vertex AI,
 * the @google/genai SDK and Gemini CLI speak it. The model and whether to stream are in the URL
 * (`models/{model}:generateContent` / `:streamGenerateContent`), so `inspect` reads the body's optional `model`
 * and the Gemini ingress supplies both from the path.
 */
export const geminiDialect: Dialect = {
  name: 'gemini',
  streamContentType: 'text/event-stream',
  parseRequest: parseGenerateContentRequest,
  validate: (body) => (Array.isArray((body as { contents?: unknown }).contents) ? undefined : 'contents 必须是数组'),
  writeResponse: writeGenerateContentResponse,
  createStreamWriter: createGenerateContentStreamWriter,
  errorBody: geminiErrorBody,
  inspect(body, imageBound) {
    const model = (asString(body.model) ?? '').replace(/^models\//, '');
    const config = protoField(body, 'generationConfig');
    const generation = isRecord(config) ? config : {};
    const max = asNumber(protoField(generation, 'maxOutputTokens')) ?? 0;
    const candidates = asNumber(protoField(generation, 'candidateCount')) ?? 1;
    const parts = [body.contents, protoField(body, 'systemInstruction'), body.tools];
    return {
      model,
      stream: false,
      maxTokens: max > 0 ? Math.floor(max) : 0,
      choices: Number.isInteger(candidates) && candidates > 1 ? Math.min(candidates, 8) : 1,
      promptBound: promptBoundOf(parts, imageBound(model), isMedia),
      promptText: () => collectText(parts, isMediaOrSignature),
      includeUsage: true,
    };
  },
  buildRequest: buildGenerateContentRequest,
  parseResponse: parseGenerateContentResponse,
  createStreamReader: createGenerateContentStreamReader,
  rewrite(body, changes) {
    // The model travels in the URL; a `model` left in the body could only disagree with it.
    const { model: _model, ...copy } = body;
    if (changes.maxOutputTokens !== undefined) {
      const key = body.generationConfig === undefined && body.generation_config !== undefined ? 'generation_config' : 'generationConfig';
      const { max_output_tokens: snake, ...config } = isRecord(body[key]) ? body[key] : {};
      const current = asNumber(config.maxOutputTokens) ?? asNumber(snake);
      copy[key] = { ...config, maxOutputTokens: current !== undefined && current > 0 ? Math.min(current, changes.maxOutputTokens) : changes.maxOutputTokens };
    }
    return copy;
  },
  frame: (frame) => `data: ${frame.data}\r\n\r\n`,
};
