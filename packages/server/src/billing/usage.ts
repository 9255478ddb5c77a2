/**
 * What a request used, as the provider reported it or as counted. Token counts follow OpenAI's convention:
 * `prompt_tokens` is every input token (cache reads and cache writes included) and `completion_tokens` every
 * output token (reasoning included); the optional fields say how much of each was of a kind priced apart.
 * Providers that report the parts separately (Anthropic's input_tokens excludes cache reads and writes) are
 * converted to this shape by their dialect.
 */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Of the prompt: read from the provider's prompt cache. */
  cached_tokens?: number;
  /** Of the prompt: written to the prompt cache (Anthropic's 5-minute cache, or a cache without a stated TTL). */
  cache_write_tokens?: number;
  /** Of the prompt: written to the longer-lived cache (Anthropic's 1-hour, OpenAI's 12-hour). */
  cache_write_1h_tokens?: number;
  /**
   * The report gave its cache writes as one number though they may be of either lifetime (OpenAI's Chat Completions):
   * they are settled at the longest the request asked for (RequestFacts.cacheWrites), never below their price.
   */
  cache_writes_unsplit?: boolean;
  /** Of the completion: reasoning ("thinking") tokens. */
  reasoning_tokens?: number;
  /** Of the prompt: audio (OpenAI's prompt_tokens_details.audio_tokens, Gemini's AUDIO modality), priced at AudioRatio. */
  audio_prompt_tokens?: number;
  /** Of the completion: audio (OpenAI's completion_tokens_details.audio_tokens), priced at AudioRatio x AudioCompletionRatio. */
  audio_completion_tokens?: number;
  /**
   * Of the completion: image tokens a model drew in its answer (Gemini's IMAGE modality in candidatesTokensDetails,
   * `completion_tokens_details.image_tokens` of an OpenAI-style report), priced at ImageCompletionRatio.
   */
  image_completion_tokens?: number;
  /** Images generated (image endpoints bill per image). */
  images?: number;
  /** What each of `images` costs against the model's base image price, by the size and quality asked (billing/image-prices.ts). */
  image_size_ratio?: number;
  /** Of the prompt: image tokens (GPT Image's input_tokens_details.image_tokens), priced at ImageRatio. */
  image_prompt_tokens?: number;
  /**
   * Web searches the provider ran for the answer, each billed at a price of its own (WebSearchPrice): Anthropic's
   * `server_tool_use.web_search_requests`, the Responses API's `web_search_call` items, a Gemini answer grounded in
   * Google Search.
   */
  web_searches?: number;
  /**
   * Calls of other tools the provider ran and bills per call (billing/tool-calls.ts), by price key: `file_search`,
   * `code_interpreter`, `image_generation:<quality>:<size>`.
   */
  tool_calls?: Record<string, number>;
  /**
   * The upstream ran the request in its fast mode, every token priced at FastModeRatio times its price: OpenAI's
   * `service_tier` "priority" / "fast" (Fast mode, formerly Priority processing), Anthropic's `usage.speed` "fast".
   */
  fast_mode?: boolean;
  /**
   * The upstream ran the request only in one geography at a premium (Anthropic's `usage.inference_geo` "us": 1.1 times
   * every token price), priced at the model family's regional multiplier.
   */
  regional_inference?: boolean;
  /**
   * Inferences the upstream ran on other models within the request and reported apart from the totals, each billed
   * at its own model's prices: Anthropic's advisor tool (`usage.iterations` of type `advisor_message`, Claude Code's
   * /advisor).
   */
  sub_usages?: SubUsage[];
  /**
   * Set when the upstream reported only a total for a completion (no prompt/completion split): the pipeline
   * then counts the prompt itself and bills the rest of the total as completion.
   */
  total_only?: number;
  /**
   * Totals the upstream left out ('missing') or reported unusably ('malformed': negative, not a JSON number, not
   * finite), recorded as 0: the pipeline replaces them by its own count of what was sent and received.
   */
  unreported?: { prompt?: Unreported; completion?: Unreported };
}

export type Unreported = 'missing' | 'malformed';

/** One inference on another model within a request (Usage.sub_usages). */
export interface SubUsage {
  model: string;
  usage: Usage;
}

export const EMPTY_USAGE: Usage = Object.freeze({ prompt_tokens: 0, completion_tokens: 0 });

/**
 * A count as a provider reported it: a finite, non-negative JSON number (floored), else undefined. Strings,
 * negatives, NaN and infinities are not counts: provider reports are not trusted to be well-formed.
 */
export function reportedCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
}

/** A part of a report that is billed only when present and well-formed (cache reads, reasoning): else 0. */
export function tokenCount(value: unknown): number {
  return reportedCount(value) ?? 0;
}

/**
 * A usage from the two totals as the upstream reported them (raw JSON values): a total that is not a count is
 * recorded in `unreported` (as 0), so that the pipeline counts it instead.
 */
export function usageOf(prompt: unknown, completion: unknown): Usage {
  const promptTokens = reportedCount(prompt);
  const completionTokens = reportedCount(completion);
  const usage: Usage = { prompt_tokens: promptTokens ?? 0, completion_tokens: completionTokens ?? 0 };
  const why = (raw: unknown): Unreported => (raw === undefined || raw === null ? 'missing' : 'malformed');
  if (promptTokens === undefined) (usage.unreported ??= {}).prompt = why(prompt);
  if (completionTokens === undefined) (usage.unreported ??= {}).completion = why(completion);
  return usage;
}

/**
 * Cache writes a report gave as one number (`cache_writes_unsplit`, OpenAI's Chat Completions) are of the longer
 * lifetime when the request asked for it anywhere: billed at that price, never below what they may have cost.
 */
export function writesAsAsked(reported: Usage | undefined, asked: 'none' | '5m' | '1h' | undefined): Usage | undefined {
  if (!reported?.cache_writes_unsplit || asked !== '1h' || !reported.cache_write_tokens) return reported;
  const { cache_write_tokens: written, ...rest } = reported;
  return { ...rest, cache_write_1h_tokens: (reported.cache_write_1h_tokens ?? 0) + written };
}
