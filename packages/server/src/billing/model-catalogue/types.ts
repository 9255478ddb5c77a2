/** The shapes of the model catalogue (billing/model-catalogue.ts) and the helpers its family files share. */


/** A model's default prices, as the ratio options hold them. */
export interface ModelPrices {
  /** ModelRatio: the input price (ratio 1 = US$2 per 1M tokens). */
  ratio: number;
  /** CompletionRatio: the output price relative to the input price (absent: not in the option, so 1). */
  completion?: number;
  /** CacheReadRatio / CacheWriteRatio / CacheWrite1hRatio (absent: the family's cache prices apply). */
  cacheRead?: number;
  cacheWrite?: number;
  cacheWrite1h?: number;
  /** ReasoningRatio (absent: reasoning is billed at the completion ratio). */
  reasoning?: number;
  /** Other names of the same model (a dated snapshot) that carry the same default prices, each its own option key. */
  aliases?: string[];
}

/** Audio prices (AudioRatio, AudioCompletionRatio): input relative to the text input price, output to the audio input price. */
export interface AudioRatios {
  input: number;
  /** Absent: audio output costs what text output does. */
  completion?: number;
}

/** Long-context prices (Claude's 1M context, Gemini Pro's long prompts): multipliers once the input passes a size. */
export interface LongContext {
  /** Input tokens (cache reads and writes included) up to which the standard prices apply. */
  above: number;
  input: number;
  output: number;
}

/** Cache prices relative to the input price: reads, 5-minute (or unstated TTL) writes and Anthropic's 1-hour writes. */
export interface CacheRatios {
  read: number;
  write: number;
  write1h: number;
}

/**
 * How a provider counts an image's tokens (billing/media-bounds.ts has the formulas): OpenAI's 512-pixel tiles
 * (`base + tile x` tiles), OpenAI's 32-pixel patches (times a multiplier), Claude's, Gemini's, or the generic bound.
 */
export type ImageFormula = { tiles: [base: number, tile: number] } | { patches: number } | 'claude' | 'gemini' | 'generic';

/** What a family's media can cost (billing/media-bounds.ts). */
export interface MediaFacts {
  image: ImageFormula;
  /** The image size assumed when it is not known: the size for which the formula is largest. */
  largest: [width: number, height: number];
  /** Tokens per PDF page (its text and its picture) and the most pages read. */
  page: number;
  pages: number;
  /** The largest context window of the family: nothing of unknown length can cost more. */
  context: number;
}

/** What is known of a model beyond its prices. */
export interface ModelFacts {
  /** The cache prices of a model missing from the cache ratio options. */
  cache?: CacheRatios;
  /** The published output limit. */
  outputLimit?: number;
  media?: MediaFacts;
  /** Audio tokens: input relative to the text input price, output relative to the audio input price. */
  audio?: AudioRatios;
  /** Image output tokens (images drawn in an answer), relative to the input price; absent: billed as text output. */
  imageOutput?: number;
  /** Image input tokens, relative to the text input price (ImageRatio); absent: billed as text input. */
  imageInput?: number;
  /** US$ per 1,000 web searches the provider runs for the model (its search tool's fee, beyond the tokens). */
  webSearch?: number;
  /** Every token price in the provider's fast mode (priority processing), relative to the standard price. */
  fastMode?: number;
  /** Every token price when inference is kept in one geography (Anthropic's inference_geo "us"), relative to the standard. */
  regionalInference?: number;
  /**
   * Long-context prices: a request whose input is above `above` tokens pays `input` times its input prices, `output`
   * times its output prices. Several steps for a price in tiers by prompt length: the step of the largest `above`
   * the input passes applies.
   */
  longContext?: LongContext | readonly LongContext[];
}

export interface ModelFamily extends ModelFacts {
  family: string;
  /** The canonical names of the family's models; absent: the family has no facts but its listed prices. */
  match?: RegExp;
  /** Facts that differ for some of the family's models, most specific first. */
  variants?: Array<ModelFacts & { match: RegExp }>;
  /** Default prices, under the names a channel serves the model by. */
  models: Record<string, ModelPrices>;
}

/** Providers without paid cache writes bill written tokens as ordinary input (ratio 1). */
export const cacheReads = (read: number): CacheRatios => ({ read, write: 1, write1h: 1 });
