import { outputLimitOf } from './model-limits.js';
import { costOf, rawCostOf, type Prices } from './pricing.js';

/** Fewest output tokens worth sending a request for when the balance cannot cover the full allowance. */
export const MIN_OUTPUT_TOKENS = 16;
/** No model writes more than this in one answer: a client's larger max_tokens (1e308, 2^63) counts as this. */
export const MAX_OUTPUT_TOKENS = 1_000_000;

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
  /** Unrounded cost of the prompt bound and of one output token. */
  promptCost: number;
  outputTokenCost: number;
}

/**
 * How much a request must hold before it is sent (issue: users underpaying through their own in-flight
 * requests). The amount bounds the real cost: the prompt's upper bound plus every output token the request
 * may produce (the client's max_tokens, else the model's output limit) for each answer. When the balances
 * cannot cover that, the ledger may take less, down to `minimum`, and `outputCapFor` then tells the upstream
 * how many tokens it may produce, so the request still never costs more than it holds.
 */
export function planReservation(request: ReservationRequest, prices: Prices): ReservationPlan {
  const limit = outputLimitOf(request.model);
  const outputTokens = request.generates ? (request.maxTokens > 0 ? Math.min(request.maxTokens, MAX_OUTPUT_TOKENS) : limit) : 0;
  const full = costOf({ prompt_tokens: request.promptBound, completion_tokens: outputTokens * request.choices }, prices);
  const floor = prices.modelRatio > 0 && prices.groupRatio > 0 ? request.floor : 0;
  const amount = Math.min(Math.max(full, floor), Number.MAX_SAFE_INTEGER);
  const fewest = request.generates ? Math.min(outputTokens, MIN_OUTPUT_TOKENS) : 0;
  const minimum = Math.min(amount, costOf({ prompt_tokens: request.promptBound, completion_tokens: fewest * request.choices }, prices));
  return {
    amount,
    minimum,
    outputTokens,
    promptCost: rawCostOf({ prompt_tokens: request.promptBound, completion_tokens: 0 }, prices),
    outputTokenCost: rawCostOf({ prompt_tokens: 0, completion_tokens: 1 }, prices),
  };
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
