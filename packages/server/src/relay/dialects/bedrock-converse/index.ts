import { collectText, promptBoundOf, type MediaReader } from '../media.js';
import type { Dialect } from '../types.js';
import { asNumber, asString, declaresTools, isRecord, largestLimit, TOOL_PROMPT_OVERHEAD } from '../shared.js';
import { buildConverseRequest } from './build-request.js';
import { parseConverseRequest } from './parse-request.js';
import { converseErrorBody, parseConverseResponse, writeConverseResponse } from './response.js';
import { createConverseStreamReader, createConverseStreamWriter } from './stream.js';

/** Image, document and video blocks: inline bytes (base64 in JSON) or an S3 location (size unknown). */
const converseMedia: MediaReader = (block) => {
  for (const kind of ['image', 'document', 'video'] as const) {
    const media = block[kind];
    if (!isRecord(media)) continue;
    const source = isRecord(media.source) ? media.source : {};
    const format = asString(media.format) ?? '';
    const mediaType = kind === 'image' ? `image/${format}` : kind === 'video' ? `video/${format}` : format === 'pdf' ? 'application/pdf' : `text/${format}`;
    const bytes = asString(source.bytes);
    return bytes === undefined ? { kind, url: 's3' } : { kind: kind === 'document' && format !== 'pdf' ? 'file' : kind, data: bytes, mediaType };
  }
  return undefined;
};

/**
 * Amazon Bedrock's Converse / ConverseStream (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html):
 * one message format for every model family on Bedrock. The model (`modelId`) and streaming are chosen by the URL,
 * so the body names neither. Spoken by the Bedrock provider upstream; the client side exists so that the contract
 * is whole and the conformance battery can round-trip it (no ingress serves Converse to clients). Its client stream
 * is framed as SSE (see createConverseStreamWriter); upstream streams arrive as binary event-stream messages.
 */
export const bedrockConverseDialect: Dialect = {
  name: 'bedrock-converse',
  streamContentType: 'text/event-stream',
  idPrefix: '',
  parseRequest: parseConverseRequest,
  writeResponse: writeConverseResponse,
  createStreamWriter: createConverseStreamWriter,
  errorBody: converseErrorBody,
  inspect(body, boundsFor) {
    const model = asString(body.modelId) ?? '';
    const extra = isRecord(body.additionalModelRequestFields) ? body.additionalModelRequestFields : {};
    const parts = [body.system, body.messages, body.toolConfig];
    return {
      model,
      stream: false,
      maxTokens: largestLimit(isRecord(body.inferenceConfig) ? body.inferenceConfig.maxTokens : undefined, isRecord(extra.thinking) ? extra.thinking.budget_tokens : undefined),
      choices: 1,
      promptBound: promptBoundOf(parts, boundsFor(model), converseMedia) + (isRecord(body.toolConfig) && declaresTools(body.toolConfig.tools) ? TOOL_PROMPT_OVERHEAD : 0),
      promptText: () => collectText(parts, converseMedia),
      includeUsage: true,
    };
  },
  buildRequest: buildConverseRequest,
  parseResponse: parseConverseResponse,
  createStreamReader: createConverseStreamReader,
  rewrite(body, changes) {
    // The model and streaming are in the URL: only the output cap touches the body.
    const copy: Record<string, unknown> = { ...body };
    if (changes.maxOutputTokens !== undefined) {
      const inference = isRecord(body.inferenceConfig) ? body.inferenceConfig : {};
      const current = asNumber(inference.maxTokens);
      const maxTokens = current !== undefined && current > 0 ? Math.min(current, changes.maxOutputTokens) : changes.maxOutputTokens;
      copy.inferenceConfig = { ...inference, maxTokens };
      const extra = isRecord(body.additionalModelRequestFields) ? body.additionalModelRequestFields : undefined;
      // Claude's thinking budget must stay below max_tokens.
      if (extra && isRecord(extra.thinking) && typeof extra.thinking.budget_tokens === 'number' && extra.thinking.budget_tokens >= maxTokens) {
        copy.additionalModelRequestFields = { ...extra, thinking: maxTokens > 1024 ? { ...extra.thinking, budget_tokens: maxTokens - 1 } : { type: 'disabled' } };
      }
    }
    return copy;
  },
  frame: (frame) => `event: ${frame.event ?? 'message'}\ndata: ${frame.data}\n\n`,
};
