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
  /** Of the prompt: written to Anthropic's 1-hour cache. */
  cache_write_1h_tokens?: number;
  /** Of the completion: reasoning ("thinking") tokens. */
  reasoning_tokens?: number;
  /** Images generated (image endpoints bill per image). */
  images?: number;
  /**
   * Set when the upstream reported only a total for a completion (no prompt/completion split): the pipeline
   * then counts the prompt itself and bills the rest of the total as completion.
   */
  total_only?: number;
}

export const EMPTY_USAGE: Usage = Object.freeze({ prompt_tokens: 0, completion_tokens: 0 });

/** Non-negative integer or 0: provider reports are not trusted to be well-formed. */
export function tokenCount(value: unknown): number {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;
}
