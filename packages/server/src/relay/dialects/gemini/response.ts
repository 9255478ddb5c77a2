import { collectStream, type ChatResponse, type StreamPart } from '../../canonical.js';
import type { WriteContext } from '../types.js';
import { asArray, asString, isRecord } from '../shared.js';
import { finishFromGemini, finishToGemini, readGeminiUsage, searchesOf, readModelPart, writeGeminiUsage, writeModelParts } from './model-parts.js';

/**
 * The parts of one GenerateContentResponse (a whole answer or one streamed chunk), first candidate only: the
 * other dialects answer with one choice. `nextCall` numbers tool calls across the chunks of a stream.
 */
export function readCandidate(body: Record<string, unknown>, nextCall: () => number, calledTools: () => boolean): { parts: StreamPart[]; finished: boolean } {
  const candidate = isRecord(asArray(body.candidates)[0]) ? (asArray(body.candidates)[0] as Record<string, unknown>) : undefined;
  const parts: StreamPart[] = [];
  const content = candidate && isRecord(candidate.content) ? candidate.content : undefined;
  for (const part of asArray(content?.parts)) parts.push(...readModelPart(part, nextCall));
  let finish = finishFromGemini(candidate?.finishReason, calledTools());
  // A prompt blocked before any candidate: no answer, the reason in promptFeedback.
  if (!candidate && isRecord(body.promptFeedback) && typeof body.promptFeedback.blockReason === 'string') finish = 'content_filter';
  if (finish) parts.push({ type: 'finish', reason: finish });
  return { parts, finished: finish !== undefined };
}

export function parseGenerateContentResponse(raw: unknown): ChatResponse {
  const body = isRecord(raw) ? raw : {};
  let calls = 0;
  const { parts } = readCandidate(body, () => calls++, () => calls > 0);
  const usage = readGeminiUsage(body.usageMetadata);
  const searches = searchesOf(body);
  if (usage && searches > 0) usage.web_searches = searches;
  return collectStream([{ type: 'start', id: asString(body.responseId), model: asString(body.modelVersion) }, ...parts, ...(usage ? [{ type: 'usage' as const, usage }] : [])]);
}

/** One candidate, in Gemini's shape; an answer without content still has one empty text part, as Gemini's do. */
export function candidateOf(parts: Array<Record<string, unknown>>, finishReason?: string): Record<string, unknown> {
  return { content: { role: 'model', parts: parts.length > 0 ? parts : [{ text: '' }] }, ...(finishReason ? { finishReason } : {}), index: 0 };
}

export function writeGenerateContentResponse(response: ChatResponse, context: WriteContext): Record<string, unknown> {
  return {
    candidates: [candidateOf([...writeModelParts(response.content), ...(response.images ?? []).map((image) => ({ inlineData: { mimeType: image.mediaType, data: image.data } }))], finishToGemini(response.finishReason))],
    ...(response.usage ? { usageMetadata: writeGeminiUsage(response.usage) } : {}),
    modelVersion: context.model,
    responseId: context.id,
  };
}

/** google.rpc status names of the HTTP statuses (https://cloud.google.com/apis/design/errors#handling_errors). */
const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
  529: 'UNAVAILABLE',
};

/** Google's error body: {error: {code, message, status}}. */
export function geminiErrorBody(status: number, message: string): Record<string, unknown> {
  return { error: { code: status, message, status: STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION') } };
}
