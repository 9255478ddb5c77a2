import type { AssistantPart, FinishReason, StreamPart, Usage } from '../../canonical.js';
import { reportedCount, tokenCount, usageOf } from '../../../billing/usage.js';
import { argumentsObject, asArray, asString, isRecord, newId } from '../shared.js';

/**
 * The model's side of a Gemini exchange: its parts, finish reasons and usage, read into and written from the
 * canonical model. Shared by requests (earlier model turns), responses and streams.
 */
export type GeminiPart = Record<string, unknown>;

/**
 * Canonical assistant content as Gemini parts. A `thoughtSignature` goes back where Gemini put it: a tool call's
 * on its functionCall; a reasoning block's on the part right after it (Gemini signs the first part that follows
 * its thinking) unless that part has its own, else on the thought itself. Redacted reasoning has no Gemini form.
 * `firstCallSignature` is given to a functionCall that has none when it opens a model turn.
 */
export function writeModelParts(content: AssistantPart[], firstCallSignature?: string): GeminiPart[] {
  const out: GeminiPart[] = [];
  let pending: string | undefined;
  let calls = 0;
  content.forEach((part, index) => {
    if (part.type === 'reasoning') {
      if (part.redacted !== undefined) return;
      const next = content[index + 1];
      const carried = part.signature && (next?.type === 'text' ? next.text !== '' : next?.type === 'tool_call' && !next.signature);
      if (carried) pending = part.signature;
      if (part.text || (part.signature && !carried)) out.push({ text: part.text, thought: true, ...(part.signature && !carried ? { thoughtSignature: part.signature } : {}) });
      return;
    }
    if (part.type === 'text') {
      if (!part.text) return;
      out.push({ text: part.text, ...(pending ? { thoughtSignature: pending } : {}) });
    } else {
      const signature = part.signature ?? pending ?? (calls === 0 ? firstCallSignature : undefined);
      out.push({ functionCall: { name: part.name, args: argumentsObject(part.arguments) }, ...(signature ? { thoughtSignature: signature } : {}) });
      calls++;
    }
    pending = undefined;
  });
  return out;
}

/** The stream parts one Gemini response part stands for. `nextCall` numbers the tool calls of an answer. */
export function readModelPart(part: unknown, nextCall: () => number): StreamPart[] {
  if (!isRecord(part)) return [];
  const signature = asString(part.thoughtSignature);
  if (isRecord(part.functionCall)) {
    const call = part.functionCall;
    const index = nextCall();
    return [
      { type: 'tool_call', index, id: asString(call.id) || newId('call_'), name: asString(call.name) ?? '', ...(signature ? { signature } : {}) },
      { type: 'tool_call_delta', index, arguments: JSON.stringify(isRecord(call.args) ? call.args : {}) },
    ];
  }
  // An image the model drew (the image models): passed on as an image.
  const inline = isRecord(part.inlineData) ? part.inlineData : isRecord(part.inline_data) ? part.inline_data : undefined;
  const drawn = inline && asString(inline.data);
  const mediaType = inline && (asString(inline.mimeType) ?? asString(inline.mime_type));
  if (drawn && mediaType?.startsWith('image/')) return [...(signature ? [{ type: 'reasoning' as const, text: '', signature }] : []), { type: 'image', mediaType, data: drawn }];
  const text = asString(part.text);
  if (text === undefined) return signature ? [{ type: 'reasoning', text: '', signature }] : [];
  if (part.thought === true) return [{ type: 'reasoning', text, ...(signature ? { signature } : {}) }];
  const parts: StreamPart[] = signature ? [{ type: 'reasoning', text: '', signature }] : [];
  if (text) parts.push({ type: 'text', text });
  return parts;
}

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

/** Gemini's finishReason; a function call ends with STOP, so calls made turn it into `tool_calls`. */
export function finishFromGemini(reason: unknown, calledTools: boolean): FinishReason | undefined {
  if (typeof reason !== 'string' || reason === 'FINISH_REASON_UNSPECIFIED') return undefined;
  if (reason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(reason)) return 'content_filter';
  if (reason === 'MALFORMED_FUNCTION_CALL' || reason === 'UNEXPECTED_TOOL_CALL') return 'error';
  return calledTools ? 'tool_calls' : 'stop';
}

export const finishToGemini = (reason: FinishReason): string =>
  ({ stop: 'STOP', tool_calls: 'STOP', length: 'MAX_TOKENS', content_filter: 'SAFETY', error: 'OTHER' })[reason];

/**
 * usageMetadata -> canonical. `promptTokenCount` already includes the cached tokens (`cachedContentTokenCount`);
 * tool-use prompts (search results...) are input billed apart from it. Thinking (`thoughtsTokenCount`) is
 * reported outside `candidatesTokenCount`, so the completion is candidates + thoughts.
 */
export function readGeminiUsage(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined;
  // Protobuf's JSON leaves out fields that are 0: a missing count is 0 here (a zero that cannot be true for what was
  // sent or delivered is caught by the pipeline's check of the usage).
  const counted = (field: unknown) => (field === undefined ? 0 : reportedCount(field));
  const promptCount = counted(value.promptTokenCount);
  const toolPrompt = tokenCount(value.toolUsePromptTokenCount);
  const thoughts = tokenCount(value.thoughtsTokenCount);
  const total = reportedCount(value.totalTokenCount);
  const candidates =
    value.candidatesTokenCount !== undefined ? reportedCount(value.candidatesTokenCount) : total !== undefined && promptCount !== undefined ? Math.max(0, total - promptCount - toolPrompt - thoughts) : 0;
  if (promptCount === 0 && toolPrompt === 0 && candidates === 0 && thoughts === 0) return undefined;
  const usage = usageOf(promptCount === undefined ? value.promptTokenCount : promptCount + toolPrompt, candidates === undefined ? value.candidatesTokenCount : candidates + thoughts);
  const prompt = usage.prompt_tokens;
  const cached = Math.min(prompt, tokenCount(value.cachedContentTokenCount));
  if (cached > 0) usage.cached_tokens = cached;
  if (thoughts > 0) usage.reasoning_tokens = thoughts;
  // Tokens by modality: the prompt's audio (AudioRatio) and the images drawn in the answer (ImageCompletionRatio) are
  // priced apart.
  const audio = modalityCount(value.promptTokensDetails, 'AUDIO');
  if (audio > 0) usage.audio_prompt_tokens = Math.min(audio, prompt);
  const image = modalityCount(value.candidatesTokensDetails, 'IMAGE');
  if (image > 0) usage.image_completion_tokens = Math.max(0, Math.min(image, usage.completion_tokens - thoughts));
  return usage;
}

/** The tokens of one modality in a list of ModalityTokenCount ({ modality, tokenCount }). */
function modalityCount(details: unknown, modality: string): number {
  let sum = 0;
  for (const detail of asArray(details)) if (isRecord(detail) && detail.modality === modality) sum += tokenCount(detail.tokenCount);
  return sum;
}

/**
 * The searches a generateContent answer (or stream chunk) was grounded in, as Google bills them: a candidate's
 * groundingMetadata names the queries it ran. The 2.x models are billed per grounded prompt (US$35 per 1,000), so
 * such an answer is one search; Gemini 3 per search query (US$14 per 1,000), so each query is one.
 */
export function searchesOf(answer: Record<string, unknown>, model = asString(answer.modelVersion)): number {
  const queries = asArray(answer.candidates).reduce<number>((sum, candidate) => sum + (isRecord(candidate) && isRecord(candidate.groundingMetadata) ? asArray(candidate.groundingMetadata.webSearchQueries).length : 0), 0);
  if (queries === 0) return 0;
  return /^gemini-3/.test(model ?? '') ? queries : 1;
}

/** Canonical usage as usageMetadata (cache writes have no Gemini field: they stay in the prompt count). */
export function writeGeminiUsage(usage: Usage): Record<string, unknown> {
  const reasoning = Math.min(usage.completion_tokens, usage.reasoning_tokens ?? 0);
  return {
    promptTokenCount: usage.prompt_tokens,
    candidatesTokenCount: usage.completion_tokens - reasoning,
    totalTokenCount: usage.prompt_tokens + usage.completion_tokens,
    ...(usage.cached_tokens ? { cachedContentTokenCount: usage.cached_tokens } : {}),
    ...(reasoning ? { thoughtsTokenCount: reasoning } : {}),
  };
}
