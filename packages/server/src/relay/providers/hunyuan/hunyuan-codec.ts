import { asArray, asNumber, asString, isRecord, parseEvent, VendorAnswerError } from '../../dialects/shared.js';
import type { Frame } from '../../dialects/types.js';
import { classifyOpenAiError } from '../openai-compatible/adapter.js';
import type { ErrorVerdict, VendorCodec } from '../types.js';
import { collectText, NO_MEDIA } from '../../dialects/media.js';
import { flatMap } from '../../../lib/arrays.js';

/**
 * Hunyuan's answers (API 3.0, https://cloud.tencent.com/document/api/1729/105701) read as OpenAI's. A whole answer
 * and every error come in an envelope `{"Response": {...}}` with HTTP 200, an error as `Response.Error {Code,
 * Message}`; a stream is SSE whose frames are `{Id, Created, Choices: [{Delta, FinishReason}], Usage}` without the
 * envelope (Usage counts up to the total on the last frame), and an error met mid-stream comes as `ErrorMsg {Code,
 * Msg}`. What has no envelope is already OpenAI's (the OpenAI-compatible endpoint a plain API key reaches) and passes.
 */
/** Images go as `ImageUrl` parts of `Contents`: not text. */
const IMAGE_URLS = new Set(['ImageUrl']);

/** The prompt Hunyuan's ChatCompletions was sent: its messages (the system prompt is the first). */
const hunyuanPrompt = (sent: Record<string, unknown>): string => collectText([sent.Messages], NO_MEDIA, IMAGE_URLS);

export function hunyuanCodec(model: string): VendorCodec {
  return {
    prompt: hunyuanPrompt,
    answer: (json) => {
      const response = json.Response;
      if (!isRecord(response)) return json;
      throwIfError(response);
      if (Array.isArray(response.Data)) return embeddingsAnswer(response, model);
      return chatAnswer(response, model);
    },
    stream: () => {
      const tools = new Map<string, number>();
      let started = false;
      return (frame: Frame): Frame[] => {
        const event = parseEvent(frame.data);
        if (!event || !('Choices' in event || 'ErrorMsg' in event || 'Response' in event)) return [frame];
        if (isRecord(event.Response)) throwIfError(event.Response);
        if (isRecord(event.ErrorMsg)) throw new VendorAnswerError(`${String(event.ErrorMsg.Code ?? '')}: ${String(event.ErrorMsg.Msg ?? '上游返回错误')}`, 502);
        const head = { id: asString(event.Id) ?? '', object: 'chat.completion.chunk', created: asNumber(event.Created) ?? 0, model };
        const frames: Frame[] = [];
        let finished = false;
        for (const choice of asArray(event.Choices)) {
          if (!isRecord(choice)) continue;
          const delta = isRecord(choice.Delta) ? choice.Delta : {};
          const out: Record<string, unknown> = {};
          if (!started) out.role = 'assistant';
          started = true;
          if (typeof delta.ReasoningContent === 'string' && delta.ReasoningContent) out.reasoning_content = delta.ReasoningContent;
          if (typeof delta.Content === 'string' && delta.Content) out.content = delta.Content;
          const calls = flatMap(asArray(delta.ToolCalls), (call) => (isRecord(call) ? [streamedCall(call, tools)] : [])).filter((c) => c !== undefined);
          if (calls.length) out.tool_calls = calls;
          const finish = finishReason(choice.FinishReason);
          finished ||= finish !== null;
          frames.push({ data: JSON.stringify({ ...head, choices: [{ index: 0, delta: out, finish_reason: finish }] }) });
        }
        const usage = openAiUsage(event.Usage);
        if (finished && usage) frames.push({ data: JSON.stringify({ ...head, choices: [], usage }) });
        return frames;
      };
    },
  };
}

/** A streamed tool call: pieces of one call share its Id (the first names it; later ones add arguments). */
function streamedCall(call: Record<string, unknown>, tools: Map<string, number>): Record<string, unknown> | undefined {
  const fn = isRecord(call.Function) ? call.Function : {};
  const key = asString(call.Id) || `index-${String(call.Index ?? 0)}`;
  const args = asString(fn.Arguments) ?? '';
  const known = tools.get(key);
  if (known !== undefined) return args ? { index: known, function: { arguments: args } } : undefined;
  const index = tools.size;
  tools.set(key, index);
  return { index, id: asString(call.Id) ?? `call_${index}`, type: 'function', function: { name: asString(fn.Name) ?? '', arguments: args } };
}

function chatAnswer(response: Record<string, unknown>, model: string): Record<string, unknown> {
  const choices = asArray(response.Choices)
    .filter(isRecord)
    .map((choice, index) => {
      const message = isRecord(choice.Message) ? choice.Message : {};
      const out: Record<string, unknown> = { role: 'assistant', content: asString(message.Content) ?? '' };
      if (typeof message.ReasoningContent === 'string' && message.ReasoningContent) out.reasoning_content = message.ReasoningContent;
      const calls = asArray(message.ToolCalls)
        .filter(isRecord)
        .map((call, i) => {
          const fn = isRecord(call.Function) ? call.Function : {};
          return { id: asString(call.Id) ?? `call_${i}`, type: 'function', function: { name: asString(fn.Name) ?? '', arguments: asString(fn.Arguments) ?? '{}' } };
        });
      if (calls.length) out.tool_calls = calls;
      return { index, message: out, finish_reason: finishReason(choice.FinishReason) ?? 'stop' };
    });
  const answer: Record<string, unknown> = { id: asString(response.Id) ?? asString(response.RequestId) ?? '', object: 'chat.completion', created: asNumber(response.Created) ?? 0, model, choices };
  const usage = openAiUsage(response.Usage);
  if (usage) answer.usage = usage;
  return answer;
}

function embeddingsAnswer(response: Record<string, unknown>, model: string): Record<string, unknown> {
  const data = asArray(response.Data)
    .filter(isRecord)
    .map((item, i) => ({ object: 'embedding', index: asNumber(item.Index) ?? i, embedding: asArray(item.Embedding) }));
  const usage = isRecord(response.Usage) ? response.Usage : {};
  return { object: 'list', data, model, usage: { prompt_tokens: asNumber(usage.PromptTokens) ?? 0, total_tokens: asNumber(usage.TotalTokens) ?? asNumber(usage.PromptTokens) ?? 0 } };
}

/** stop, tool_calls, and `sensitive` (the moderation stopped the answer). An empty string: not finished yet. */
function finishReason(value: unknown): string | null {
  if (typeof value !== 'string' || !value) return null;
  return value === 'sensitive' ? 'content_filter' : value;
}

function openAiUsage(value: unknown): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  const prompt = asNumber(value.PromptTokens) ?? 0;
  const completion = asNumber(value.CompletionTokens) ?? 0;
  const usage: Record<string, unknown> = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: asNumber(value.TotalTokens) ?? prompt + completion };
  // CachedTokens is a string in the API's types.
  const cached = isRecord(value.PromptTokensDetails) ? Number(value.PromptTokensDetails.CachedTokens ?? 0) : 0;
  if (cached > 0) usage.prompt_tokens_details = { cached_tokens: cached };
  return usage;
}

function throwIfError(response: Record<string, unknown>): void {
  if (!isRecord(response.Error)) return;
  const code = asString(response.Error.Code) ?? 'Error';
  throw new VendorAnswerError(`${code}: ${asString(response.Error.Message) ?? ''}`, hunyuanErrorStatus(code));
}

/** Account states in which this key's account cannot be served until someone acts (pays, activates, verifies). */
const ACCOUNT_CODES = /^(FailedOperation\.(ServiceNotActivated|ServiceStop|ServiceStopArrears|ResourcePackExhausted|FreeResourcePackExhausted|UserUnAuthError|PartnerAccountUnSupport)|ResourceInsufficient\.|ResourceUnavailable\.|UnauthorizedOperation)/;

/**
 * The HTTP status a Tencent Cloud error code means (the API 3.0 公共错误码, and Hunyuan's own codes as its 错误码 page and
 * the SDKs' hunyuan/v20230901 errors list them): AuthFailure.* 401, account states 403, limits 429, engine timeouts 504, internal
 * and engine faults 500, everything else (InvalidParameter*, UnknownParameter, OperationDenied.*...) the request's: 400.
 */
export function hunyuanErrorStatus(code: string): number {
  if (code.startsWith('AuthFailure')) return 401;
  if (ACCOUNT_CODES.test(code)) return 403;
  if (/^(LimitExceeded|RequestLimitExceeded)/.test(code) || code === 'FailedOperation.EngineServerLimitExceeded') return 429;
  if (code === 'FailedOperation.EngineRequestTimeout') return 504;
  if (/^(InternalError|ServiceUnavailable)/.test(code) || code === 'FailedOperation' || code === 'FailedOperation.EngineServerError') return 500;
  return 400;
}

/**
 * The verdict on a failure: from the error code when there is one (Tencent's envelope, or the codec's `Code: message`),
 * else as the OpenAI-compatible endpoint's error. A rejected or unknown key and an account that cannot pay are dead
 * (disable, try another channel); an expired signature is this server's clock, not the key; limits and faults pass.
 */
export function classifyHunyuanError(status: number, body: string): ErrorVerdict {
  const parsed = parseEvent(body);
  const error = isRecord(parsed?.Response) && isRecord(parsed.Response.Error) ? parsed.Response.Error : undefined;
  const wrapped = isRecord(parsed?.error) ? asString(parsed.error.message) : undefined;
  const message = error ? `${String(error.Code)}: ${String(error.Message ?? '')}` : (wrapped ?? (parsed ? undefined : body.trim() || undefined));
  const code = /^([A-Z][A-Za-z]*(?:\.[A-Za-z0-9]+)*):/.exec(message ?? '')?.[1];
  if (!code) return classifyOpenAiError(status, body);
  const meant = hunyuanErrorStatus(code);
  const expired = code === 'AuthFailure.SignatureExpire';
  const dead = !expired && (meant === 401 || meant === 403);
  return { retry: dead || expired || meant === 429 || meant >= 500, disableChannel: dead, message: message! };
}
