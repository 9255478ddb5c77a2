import { modelFacts } from './model-catalogue.js';

/**
 * Published output limits (the model catalogue's `outputLimit`), used to bound what one request can cost before it is
 * sent: when a client sets no `max_tokens`, the reservation covers the model's own output limit (and when the balance
 * cannot cover that, the upstream is asked for fewer tokens). Names are matched without a vendor prefix
 * ("anthropic/claude-...", Bedrock's "us.anthropic.claude-..." and "claude-..." alike).
 */

/** When nothing is known about a model: generous, so answers are not cut, yet finite, so the cost is bounded. */
export const DEFAULT_OUTPUT_LIMIT = 16_384;

export function outputLimitOf(model: string): number {
  return knownOutputLimitOf(model) ?? DEFAULT_OUTPUT_LIMIT;
}

/** The model's published output limit, or undefined when the catalogue does not know it. */
export function knownOutputLimitOf(model: string): number | undefined {
  return modelFacts(model).outputLimit;
}
