import { outputLimitOf } from './model-limits.js';
import { costOf, rawCostOf, type Prices } from './pricing.js';
import type { Usage } from './usage.js';

/** Fewest output tokens worth sending a request for when the balance cannot cover the full allowance. */
export const MIN_OUTPUT_TOKENS = 16;
/** No model writes more than this in one answer: a client's larger max_tokens (1e308, 2^63) counts as this. */
export const MAX_OUTPUT_TOKENS = 1_000_000;
/** Output tokens one generated image can cost (gpt-image-1 at high quality, 1536 x 1024: 6,240). */
export const IMAGE_OUTPUT_TOKENS = 6_240;

export interface ReservationRequest {
  model: string;
  /** Upper bound of the prompt's tokens. */
  promptBound: number;
  /** Whether the endpoint generates tokens (chat, completions); embeddings and the like bill the prompt only. */
  generates: boolean;
  /** Output tokens the client allowed; 0 when it set no limit. */
  maxTokens: number;
  /** Answers asked for (`n`). */
  choices: number;
  /** Images the request generates (the images endpoint's `n`), billed per image or as image tokens. */
  images?: number;
  /** Prompt-cache writes the request asks for (Anthropic's cache_control): 'none', or a TTL; unknown when absent. */
  cacheWrites?: 'none' | '5m' | '1h';
  /** The request asks for the provider's fast mode: every token may cost FastModeRatio times its price. */
  fastMode?: boolean;
  /** Of `promptBound`: the audio's share, reserved at the audio price where that is dearer. */
  audioTokens?: number;
  /** Web searches the request is billed for whatever it says (a search model's one per answer), reserved beside its tokens. */
  searches?: number;
  /** PreConsumedQuota: the least a priced request reserves. */
  floor: number;
}

export interface ReservationPlan {
  /** What to reserve: the most the request can cost. */
  amount: number;
  /** The least worth reserving (prompt plus a few output tokens); below it the request is refused. */
  minimum: number;
  /** Output tokens per answer the full amount covers. */
  outputTokens: number;
  /** Unrounded cost of the prompt bound and of one output token, each at its dearest price. */
  promptCost: number;
  outputTokenCost: number;
}

/**
 * How much a request must hold before it is sent: an upper bound of what the upstream can bill. The prompt's
 * upper bound at its dearest input price (a prompt may be written to the cache, which costs more than reading
 * it), plus every output token the request may produce (the largest output limit the client sent, else the
 * model's output limit) for each answer at the dearest output price, plus the images it generates. When the
 * balances cannot cover that, the ledger may take less, down to `minimum`, and `outputCapFor` then tells the
 * upstream how many tokens it may produce, so the request still never costs more than it holds.
 */
export function planReservation(request: ReservationRequest, prices: Prices): ReservationPlan {
  const limit = outputLimitOf(request.model);
  const outputTokens = request.generates ? (request.maxTokens > 0 ? Math.min(request.maxTokens, MAX_OUTPUT_TOKENS) : limit) : 0;
  const images = request.images ?? 0;
  const dearest = dearestUsage(prices, request.cacheWrites, request.fastMode === true, request.audioTokens ?? 0, request.searches ?? 0);
  const full = Math.max(
    costOf(dearest(request.promptBound, outputTokens * request.choices + images * IMAGE_OUTPUT_TOKENS), prices),
    costOf(Object.assign(dearest(request.promptBound, outputTokens * request.choices), { images }), prices),
  );
  const floor = prices.modelRatio > 0 && prices.groupRatio > 0 ? request.floor : 0;
  const amount = Math.min(Math.max(full, floor), Number.MAX_SAFE_INTEGER);
  const fewest = request.generates ? Math.min(outputTokens, MIN_OUTPUT_TOKENS) : 0;
  const minimum = Math.min(amount, costOf(dearest(request.promptBound, fewest * request.choices), prices));
  return {
    amount,
    minimum,
    outputTokens,
    promptCost: rawCostOf(dearest(request.promptBound, 0), prices),
    outputTokenCost: rawCostOf(dearest(0, 1), prices) - rawCostOf(dearest(0, 0), prices),
  };
}

/**
 * Usages of given totals priced at their dearest: the prompt as the priciest input the request can be billed for
 * (a cache write where one is asked for, or where the client's dialect cannot say), the output as the priciest output.
 */
function dearestUsage(prices: Prices, cacheWrites: ReservationRequest['cacheWrites'], fastMode: boolean, audioTokens: number, searches: number) {
  const write =
    cacheWrites === 'none' ? undefined
    : cacheWrites === '5m' ? (prices.cacheWriteRatio > 1 ? 'cache_write_tokens' : undefined)
    : prices.cacheWrite1hRatio > 1 && (cacheWrites === '1h' || prices.cacheWrite1hRatio >= prices.cacheWriteRatio) ? 'cache_write_1h_tokens'
    : prices.cacheWriteRatio > 1 ? 'cache_write_tokens'
    : undefined;
  const output = dearestOutput(prices);
  const writeRatio = write === 'cache_write_1h_tokens' ? prices.cacheWrite1hRatio : write ? prices.cacheWriteRatio : 1;
  // The prompt's audio at the audio price where that is dearer than a write (or plain input): the rest as above.
  const audioOf = (prompt: number) => (prices.audioRatio > writeRatio ? Math.min(audioTokens, prompt) : 0);
  return (prompt: number, completion: number): Usage => ({
    prompt_tokens: prompt,
    completion_tokens: completion,
    ...(write ? { [write]: prompt - audioOf(prompt) } : {}),
    ...(audioOf(prompt) > 0 ? { audio_prompt_tokens: audioOf(prompt) } : {}),
    ...(output ? { [output]: completion } : {}),
    ...(fastMode ? { fast_mode: true } : {}),
    ...(searches > 0 ? { web_searches: searches } : {}),
  });
}

/** The kind of output token priced highest when dearer than text output (reasoning, audio, a drawn image), else undefined. */
function dearestOutput(prices: Prices): 'reasoning_tokens' | 'audio_completion_tokens' | 'image_completion_tokens' | undefined {
  let dearest: 'reasoning_tokens' | 'audio_completion_tokens' | 'image_completion_tokens' | undefined;
  let price = prices.completionRatio;
  const kinds = [
    ['reasoning_tokens', prices.reasoningRatio],
    ['audio_completion_tokens', prices.audioRatio * prices.audioCompletionRatio],
    ['image_completion_tokens', prices.imageCompletionRatio],
  ] as const;
  for (const [kind, ratio] of kinds) {
    if (ratio > price) [dearest, price] = [kind, ratio];
  }
  return dearest;
}

/**
 * The output cap per answer to send upstream when the ledger reserved less than the plan's amount, or
 * undefined when the reservation covers the whole allowance (nothing to cap).
 */
export function outputCapFor(plan: ReservationPlan, reserved: number, choices: number): number | undefined {
  if (reserved >= plan.amount || plan.outputTokenCost <= 0 || plan.outputTokens === 0) return undefined;
  const tokens = Math.floor((reserved - plan.promptCost) / (plan.outputTokenCost * choices) + 1e-9);
  return Math.max(1, Math.min(plan.outputTokens, tokens));
}
