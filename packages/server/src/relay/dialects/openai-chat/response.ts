import type { AssistantPart, ChatResponse, DrawnImage, FinishReason, Usage } from '../../canonical.js';
import { searchesEveryAnswer } from '../../../billing/model-catalogue.js';
import { reportedCount, tokenCount, usageOf } from '../../../billing/usage.js';
import type { WriteContext } from '../types.js';
import { asArray, asString, isRecord } from '../shared.js';
import { flatMap } from '../../../lib/arrays.js';

const FINISH: Record<string, FinishReason> = { stop: 'stop', length: 'length', tool_calls: 'tool_calls', function_call: 'tool_calls', content_filter: 'content_filter' };
export const finishFromOpenAi = (reason: unknown): FinishReason | undefined => (typeof reason === 'string' ? (FINISH[reason] ?? 'stop') : undefined);

/**
 * Usage in OpenAI's shape: cached prompt tokens in prompt_tokens_details, reasoning in completion_tokens_details
 * (DeepSeek reports its cache hits as prompt_cache_hit_tokens, Moonshot as a top-level cached_tokens; DashScope's
 * explicit cache writes are prompt_tokens_details.cache_creation_input_tokens, OpenAI's own cache_write_tokens; audio, in and out, is each side's
 * `audio_tokens`, priced apart; images drawn in the answer are completion_tokens_details.image_tokens, as OpenRouter
 * reports them for image models). A report with only a total is marked so the pipeline counts the prompt itself.
 *
 * OpenAI's completion_tokens includes the reasoning; xAI's does not ("reasoning token consumption will be counted
 * separately from completion_tokens, but will be counted in the total_tokens", docs.x.ai, consumption and rate
 * limits). A report whose total is the prompt, the completion and the reasoning together is read that way: the
 * reasoning is added to the completion, as it is billed.
 */
/**
 * The usage of a chat answer (or chunk): a search model's answer has its search counted, and one run in Fast mode
 * (`service_tier` "priority" or "fast") is marked so.
 */
export function readChatUsage(value: unknown, answer: Record<string, unknown>): Usage | undefined {
  const usage = readOpenAiUsage(value);
  if (!usage) return undefined;
  if (typeof answer.model === 'string' && searchesEveryAnswer(answer.model)) usage.web_searches = 1;
  if (isFastTier(answer.service_tier)) usage.fast_mode = true;
  return usage;
}

/** OpenAI's Fast mode, as a response names the tier that served it ("priority", its name until July 2026, or "fast"). */
export const isFastTier = (tier: unknown): boolean => tier === 'priority' || tier === 'fast';

/**
 * Whether an OpenAI body asks for 12-hour prompt-cache writes (GPT-5.6 and later): `prompt_cache_options.ttl` "12h"
 * for the request, or a content part's `prompt_cache_breakpoint.ttl` "12h" in `items` (chat messages, Responses
 * input items). The longer write class then (RequestFacts.cacheWrites "1h"): OpenAI prices it apart on some models
 * and Chat Completions reports the writes as one number.
 */
export function asksLongCacheWrites(body: Record<string, unknown>, items: unknown): boolean {
  if (isRecord(body.prompt_cache_options) && body.prompt_cache_options.ttl === '12h') return true;
  if (!Array.isArray(items)) return false;
  return items.some((item) => isRecord(item) && Array.isArray(item.content) && item.content.some((part) => isRecord(part) && isRecord(part.prompt_cache_breakpoint) && part.prompt_cache_breakpoint.ttl === '12h'));
}

/**
 * OpenAI's service tiers the gateway can bill: the standard ones (auto, default), the cheaper ones billed at the
 * standard price (flex, scale: never below) and Fast mode (priority, fast). Another asks for a price the catalogue does
 * not hold (GPT-6's ultrafast costs 3 to 6 times the standard price): it is refused before anything is reserved or sent,
 * rather than served below its price.
 */
const BILLED_TIERS = new Set(['auto', 'default', 'flex', 'scale', 'priority', 'fast']);

export const tierProblem = (tier: unknown): string | undefined =>
  tier === undefined || tier === null || BILLED_TIERS.has(String(tier)) ? undefined : `网关无法为 service_tier「${String(tier).slice(0, 40)}」计费，请改用 auto、default、flex 或 priority`;

export function readOpenAiUsage(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined;
  if (value.prompt_tokens === undefined && value.completion_tokens === undefined) {
    const total = tokenCount(value.total_tokens);
    return total > 0 ? { prompt_tokens: 0, completion_tokens: 0, total_only: total } : undefined;
  }
  const usage = usageOf(value.prompt_tokens, value.completion_tokens ?? derivedCompletion(value.total_tokens, value.prompt_tokens));
  const details = isRecord(value.prompt_tokens_details) ? value.prompt_tokens_details : {};
  const cached = tokenCount(details.cached_tokens ?? value.prompt_cache_hit_tokens ?? value.cached_tokens);
  if (cached > 0) usage.cached_tokens = cached;
  // OpenAI's own writes (GPT-5.6 and later, priced at 1.25 times the input) are cache_write_tokens; DashScope's
  // explicit ones cache_creation_input_tokens.
  const openAiWrites = tokenCount(details.cache_write_tokens);
  const written = openAiWrites || tokenCount(details.cache_creation_input_tokens);
  if (written > 0) usage.cache_write_tokens = written;
  // OpenAI's writes may be for 30 minutes or 12 hours, said as one number: settled by what the request asked for.
  if (openAiWrites > 0) usage.cache_writes_unsplit = true;
  const audioIn = tokenCount(details.audio_tokens);
  if (audioIn > 0) usage.audio_prompt_tokens = audioIn;
  const completionDetails = isRecord(value.completion_tokens_details) ? value.completion_tokens_details : {};
  const audioOut = tokenCount(completionDetails.audio_tokens);
  if (audioOut > 0) usage.audio_completion_tokens = audioOut;
  const imageOut = tokenCount(completionDetails.image_tokens);
  if (imageOut > 0) usage.image_completion_tokens = imageOut;
  const reasoning = tokenCount(completionDetails.reasoning_tokens);
  if (reasoning > 0) {
    usage.reasoning_tokens = reasoning;
    const [prompt, completion, total] = [reportedCount(value.prompt_tokens), reportedCount(value.completion_tokens), reportedCount(value.total_tokens)];
    if (prompt !== undefined && completion !== undefined && total === prompt + completion + reasoning) usage.completion_tokens = completion + reasoning;
  }
  return usage;
}

/**
 * The images endpoint's usage as GPT Image reports it (input_tokens with their text / image split, output_tokens all
 * image tokens): billed by its tokens, image input at ImageRatio and output at ImageCompletionRatio. Undefined for an
 * answer without it (dall-e: billed per image).
 */
export function readImagesUsage(value: unknown): Usage | undefined {
  if (!isRecord(value) || (value.input_tokens === undefined && value.output_tokens === undefined)) return undefined;
  const usage = usageOf(value.input_tokens, value.output_tokens);
  const details = isRecord(value.input_tokens_details) ? value.input_tokens_details : {};
  const imageIn = tokenCount(details.image_tokens);
  if (imageIn > 0) usage.image_prompt_tokens = imageIn;
  if (usage.completion_tokens > 0) usage.image_completion_tokens = usage.completion_tokens;
  return usage;
}

/** The completion as the total less the prompt, when a report gives only those two (undefined unless both are counts). */
export function derivedCompletion(total: unknown, prompt: unknown): number | undefined {
  const [t, p] = [reportedCount(total), reportedCount(prompt)];
  return t !== undefined && p !== undefined && t >= p ? t - p : undefined;
}

/**
 * A usage in OpenAI's Chat Completions shape. Cache writes of either lifetime are `cache_write_tokens`, one number as
 * OpenAI gives them (openai-node's `PromptTokensDetails`), said only when there were some.
 */
export function writeOpenAiUsage(usage: Usage): Record<string, unknown> {
  const written = (usage.cache_write_tokens ?? 0) + (usage.cache_write_1h_tokens ?? 0);
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: {
      cached_tokens: usage.cached_tokens ?? 0,
      ...(written > 0 ? { cache_write_tokens: written } : {}),
      ...(usage.audio_prompt_tokens ? { audio_tokens: usage.audio_prompt_tokens } : {}),
    },
    completion_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0, ...(usage.audio_completion_tokens ? { audio_tokens: usage.audio_completion_tokens } : {}),
      ...(usage.image_completion_tokens ? { image_tokens: usage.image_completion_tokens } : {}),
    },
  };
}

export function parseChatResponse(body: unknown): ChatResponse {
  const json = isRecord(body) ? body : {};
  const choice = isRecord(asArray(json.choices)[0]) ? (asArray(json.choices)[0] as Record<string, unknown>) : {};
  const message = isRecord(choice.message) ? choice.message : {};
  const content: AssistantPart[] = [];
  const reasoning = asString(message.reasoning_content) ?? asString(message.reasoning);
  if (reasoning) content.push({ type: 'reasoning', text: reasoning });
  if (typeof message.content === 'string' && message.content) content.push({ type: 'text', text: message.content });
  for (const call of asArray(message.tool_calls)) {
    if (!isRecord(call) || !isRecord(call.function)) continue;
    const args = call.function.arguments;
    content.push({ type: 'tool_call', id: asString(call.id) ?? '', name: asString(call.function.name) ?? '', arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) });
  }
  return {
    id: asString(json.id) ?? '',
    model: asString(json.model) ?? '',
    content,
    finishReason: finishFromOpenAi(choice.finish_reason) ?? 'stop',
    usage: readChatUsage(json.usage, json),
  };
}

/** A drawn image as OpenRouter's chat answers carry one (`message.images`, `delta.images`): a data URL. */
export function imageUrlOf(image: DrawnImage): { type: 'image_url'; image_url: { url: string } } {
  return { type: 'image_url', image_url: { url: `data:${image.mediaType};base64,${image.data}` } };
}

export function writeChatResponse(response: ChatResponse, context: WriteContext): Record<string, unknown> {
  const text = flatMap(response.content, (p) => (p.type === 'text' ? [p.text] : [])).join('');
  const reasoning = flatMap(response.content, (p) => (p.type === 'reasoning' ? [p.text] : [])).join('');
  const calls = flatMap(response.content, (p) => (p.type === 'tool_call' ? [{ id: p.id, type: 'function', function: { name: p.name, arguments: p.arguments || '{}' } }] : []));
  const message: Record<string, unknown> = { role: 'assistant', content: text || (calls.length ? null : '') };
  // The field DeepSeek introduced and chat clients (Cherry Studio, LobeHub, Open WebUI) read for thinking.
  if (reasoning) message.reasoning_content = reasoning;
  if (calls.length) message.tool_calls = calls;
  if (response.images?.length) message.images = response.images.map(imageUrlOf);
  return {
    id: context.id,
    object: 'chat.completion',
    created: context.created,
    model: context.model,
    choices: [{ index: 0, message, finish_reason: response.finishReason === 'error' ? 'stop' : response.finishReason, logprobs: null }],
    ...(response.usage ? { usage: writeOpenAiUsage(response.usage) } : {}),
  };
}

/**
 * The billed usage in OpenAI's answers a codec wrote (Dialect.billedUsage): chat answers and chunks carry the full
 * usage object; embeddings and rerank answers only their prompt and total, as OpenAI's embeddings list does.
 */
export const openAiBilledUsage = {
  answer(json: Record<string, unknown>, usage: Usage, endpoint: string): Record<string, unknown> {
    const written = endpoint === 'chat' || endpoint === 'completions' ? writeOpenAiUsage(usage) : { prompt_tokens: usage.prompt_tokens, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    return { ...json, usage: written };
  },
  strip(frame: { event?: string; data: string }): { event?: string; data: string } | undefined {
    if (!frame.data.includes('"usage"')) return frame;
    let chunk: unknown;
    try {
      chunk = JSON.parse(frame.data);
    } catch {
      return frame;
    }
    if (!isRecord(chunk) || !('usage' in chunk)) return frame;
    const { usage: _usage, ...rest } = chunk;
    // A chunk that carried only usage (empty choices, OpenAI's last chunk) has nothing left to send.
    if (asArray(rest.choices).length === 0) return undefined;
    return { ...frame, data: JSON.stringify(rest) };
  },
  frame(usage: Usage, last: { data: string } | undefined, context: WriteContext): { data: string } | undefined {
    if (!context.includeUsage) return undefined;
    let chunk: Record<string, unknown> = {};
    try {
      const parsed = last ? (JSON.parse(last.data) as unknown) : undefined;
      if (isRecord(parsed)) chunk = parsed;
    } catch {
      /* the last frame was no chunk: the context's id and model */
    }
    return {
      data: JSON.stringify({ id: asString(chunk.id) ?? context.id, object: 'chat.completion.chunk', created: typeof chunk.created === 'number' ? chunk.created : context.created, model: asString(chunk.model) ?? context.model, choices: [], usage: writeOpenAiUsage(usage) }),
    };
  },
};
