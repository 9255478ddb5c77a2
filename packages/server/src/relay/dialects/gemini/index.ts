import { createHash } from 'node:crypto';
import { contextWindowOf } from '../../../billing/media-bounds.js';
import { collectText, promptBoundOf, type MediaReader } from '../media.js';
import type { Dialect } from '../types.js';
import { asNumber, asString, declaresTools, isRecord, largestLimit, TOOL_PROMPT_OVERHEAD } from '../shared.js';
import { buildGenerateContentRequest } from './build-request.js';
import { parseGenerateContentRequest } from './parse-request.js';
import { protoField } from './proto-json.js';
import { geminiErrorBody, parseGenerateContentResponse, writeGenerateContentResponse } from './response.js';
import { createGenerateContentStreamReader, createGenerateContentStreamWriter } from './stream.js';

/** Parts with inline bytes (`inlineData`) or a file's URI (`fileData`), in either JSON spelling, by their MIME type. */
const geminiMedia: MediaReader = (part) => {
  const inline = protoField(part, 'inlineData');
  if (isRecord(inline)) return { kind: 'file', data: asString(inline.data) ?? '', mediaType: asString(protoField(inline, 'mimeType')) };
  const file = protoField(part, 'fileData');
  if (isRecord(file)) return { kind: 'file', url: asString(protoField(file, 'fileUri')) ?? '', mediaType: asString(protoField(file, 'mimeType')) };
  return undefined;
};
/** Thought signatures are opaque tokens sent back, not words of the prompt. */
const OPAQUE = new Set(['thoughtSignature', 'thought_signature']);
/**
 * Gemini CLI names no session: its conversation is told by how it begins (the system instruction and the first
 * turn), which is also the prefix a provider's cache keys on, so requests sharing it go to one channel.
 */
function conversationOf(body: Record<string, unknown>): string | undefined {
  const first = Array.isArray(body.contents) ? body.contents[0] : undefined;
  if (first === undefined) return undefined;
  return `prefix:${createHash('sha256').update(JSON.stringify([protoField(body, 'systemInstruction') ?? null, first])).digest('base64url').slice(0, 32)}`;
}

/** Tools Google runs itself: their results are billed as prompt (toolUsePromptTokenCount). */
const HOSTED = ['googleSearch', 'googleSearchRetrieval', 'urlContext', 'codeExecution', 'fileSearch', 'googleMaps'];
const hostsTools = (tools: unknown) => Array.isArray(tools) && tools.some((tool) => isRecord(tool) && HOSTED.some((name) => protoField(tool, name) !== undefined));

/**
 * Gemini generateContent (https://ai.google.dev/api/generate-content), as the Gemini API, Gemini on Vertex AI,
 * the @google/genai SDK and Gemini CLI speak it. The model and whether to stream are in the URL
 * (`models/{model}:generateContent` / `:streamGenerateContent`), so `inspect` reads the body's optional `model`
 * and the Gemini ingress supplies both from the path.
 */
export const geminiDialect: Dialect = {
  name: 'gemini',
  streamContentType: 'text/event-stream',
  idPrefix: '',
  jsonArrayStreams: true,
  parseRequest: parseGenerateContentRequest,
  validate: (body) => (Array.isArray((body as { contents?: unknown }).contents) ? undefined : 'contents 必须是数组'),
  writeResponse: writeGenerateContentResponse,
  createStreamWriter: createGenerateContentStreamWriter,
  errorBody: geminiErrorBody,
  inspect(body, boundsFor) {
    const model = (asString(body.model) ?? '').replace(/^models\//, '');
    const config = protoField(body, 'generationConfig');
    const generation = isRecord(config) ? config : {};
    const thinking = protoField(generation, 'thinkingConfig');
    const candidates = asNumber(protoField(generation, 'candidateCount')) ?? 1;
    const parts = [body.contents, protoField(body, 'systemInstruction'), body.tools];
    const audio = { tokens: 0 };
    return {
      model,
      stream: false,
      // Thinking counts toward maxOutputTokens on Gemini 2.5 and later; a larger budget is still an output limit sent.
      maxTokens: largestLimit(protoField(generation, 'maxOutputTokens'), isRecord(thinking) ? protoField(thinking, 'thinkingBudget') : undefined),
      choices: Number.isInteger(candidates) && candidates > 1 ? Math.min(candidates, 8) : 1,
      promptBound:
        promptBoundOf(parts, boundsFor(model), geminiMedia, audio) +
        (declaresTools(body.tools) ? TOOL_PROMPT_OVERHEAD : 0) +
        // Content cached at Google is part of the prompt the body only names: up to a whole context window.
        (protoField(body, 'cachedContent') ? contextWindowOf(model) : 0),
      ...(audio.tokens > 0 ? { audioBound: audio.tokens } : {}),
      promptText: () => collectText(parts, geminiMedia, OPAQUE),
      includeUsage: true,
      hostedTools: hostsTools(body.tools),
      session: conversationOf(body),
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
      const cap = changes.maxOutputTokens;
      copy[key] = { ...config, maxOutputTokens: current !== undefined && current > 0 ? Math.min(current, cap) : cap };
      // A thinking budget above the cap is an output limit too: it is held to the cap (-1, dynamic, and 0 stay).
      for (const name of ['thinkingConfig', 'thinking_config']) {
        const thinking = config[name];
        if (!isRecord(thinking)) continue;
        for (const field of ['thinkingBudget', 'thinking_budget']) {
          const budget = asNumber(thinking[field]);
          if (budget !== undefined && budget > cap) (copy[key] as Record<string, unknown>)[name] = { ...thinking, [field]: cap };
        }
      }
    }
    return copy;
  },
  frame: (frame) => `data: ${frame.data}\r\n\r\n`,
};
