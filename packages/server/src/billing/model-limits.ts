import { canonicalModelName } from './model-name.js';

/**
 * Published output limits, used to bound what one request can cost before it is sent: when a client sets no
 * `max_tokens`, the reservation covers the model's own output limit (and when the balance cannot cover that,
 * the upstream is asked for fewer tokens). First matching pattern wins; names are matched without a vendor
 * prefix ("anthropic/claude-...", Bedrock's "us.anthropic.claude-..." and "claude-..." alike).
 */
const OUTPUT_LIMITS: Array<[RegExp, number]> = [
  [/^gpt-5/, 128_000],
  [/^o1-mini/, 65_536],
  [/^o\d/, 100_000],
  [/^gpt-4\.1/, 32_768],
  [/^(chatgpt-)?gpt-4o/, 16_384],
  [/^gpt-4-(turbo|\d{4}-preview|vision)/, 4_096],
  [/^gpt-4/, 8_192],
  [/^gpt-3\.5/, 4_096],
  [/^claude-3-(opus|sonnet|haiku)/, 4_096],
  [/^claude-3-5/, 8_192],
  [/^claude-(opus-4-1|opus-4-2|opus-4-0|opus-4$|opus-4-2025)/, 32_000],
  [/^claude-(3-7|sonnet-4|haiku-4|opus-4)/, 64_000],
  [/^claude/, 8_192],
  [/^gemini-(1\.|2\.0|pro)/, 8_192],
  [/^gemini/, 65_536],
  [/^deepseek-reasoner/, 64_000],
  [/^deepseek/, 8_192],
];

/** When nothing is known about a model: generous, so answers are not cut, yet finite, so the cost is bounded. */
export const DEFAULT_OUTPUT_LIMIT = 16_384;

export function outputLimitOf(model: string): number {
  return knownOutputLimitOf(model) ?? DEFAULT_OUTPUT_LIMIT;
}

/** The model's published output limit, or undefined when the model is not in the table. */
export function knownOutputLimitOf(model: string): number | undefined {
  const name = canonicalModelName(model);
  for (const [pattern, limit] of OUTPUT_LIMITS) if (pattern.test(name)) return limit;
  return undefined;
}
