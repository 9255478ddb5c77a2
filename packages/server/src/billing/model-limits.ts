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
  const name = baseName(model);
  for (const [pattern, limit] of OUTPUT_LIMITS) if (pattern.test(name)) return limit;
  return DEFAULT_OUTPUT_LIMIT;
}

/**
 * Prompt tokens one input image can cost at most. Most vision models stay below 2,000 (OpenAI's high detail
 * tops out near 1,105, Claude near 1,600, Gemini at 258 per tile), but OpenAI's small models count images at
 * a multiple so that their price matches the large model's (gpt-4o-mini: up to ~37,000 tokens).
 */
export function imageTokenBoundOf(model: string): number {
  return /^(gpt-4o-mini|gpt-4\.1-(mini|nano)|o\d-mini|gpt-5-(mini|nano))/.test(baseName(model)) ? 40_000 : 2_000;
}

function baseName(model: string): string {
  const slash = model.lastIndexOf('/');
  // Bedrock's `anthropic.claude-…` and inference profiles' `us.anthropic.claude-…` are Claude's own models.
  return (slash >= 0 ? model.slice(slash + 1) : model).toLowerCase().replace(/^(?:[a-z-]+\.)?anthropic\./, '');
}
