/**
 * The model catalogue: every fact Model Relay knows about a model, one entry per model family (or, for vendors whose
 * models share no fact but a price list, per vendor price list).
 *
 * - Default prices (`models`): the options ModelRatio, CompletionRatio, CacheReadRatio, CacheWriteRatio,
 *   CacheWrite1hRatio and ReasoningRatio are seeded from them (options/defaults.ts), so an admin can change any of them.
 *   Ratio 1 = US$0.002 per 1K prompt tokens = US$2 per 1M; so ratio = input price per 1M tokens / 2, completion
 *   ratio = output price / input price. Cache ratios are relative to the input price, reasoning ratios like the
 *   completion ratio. Per-image / per-minute models use one-api's convention of pricing a unit as 1K "tokens". CNY
 *   prices are converted at 7 CNY per US$ (so ratio = CNY per 1M tokens / 14).
 * - Family facts, for every model whose canonical name (`canonicalModelName`) the family's `match` claims: the cache
 *   prices of a model missing from the cache ratio options (billing/pricing.ts), the published output limit
 *   (billing/model-limits.ts) and the parameters of the provider's media token formulas (billing/media-bounds.ts).
 *   A `variant` overrides a fact for the names it matches; the first variant that sets a fact wins.
 * - Names: `canonicalModelName()` is the one normalisation of a model's name, `priceNames()` the names its price is
 *   looked up under, `datedVersionOf()` the dated model an undated alias stands for.
 */

import { ANTHROPIC_GOOGLE_FAMILIES } from './model-catalogue/anthropic-google.js';
import { CHINESE_VENDOR_FAMILIES } from './model-catalogue/chinese-vendors.js';
import { HOSTED_AND_OTHER_FAMILIES } from './model-catalogue/hosted-and-other.js';
import { OPENAI_FAMILIES } from './model-catalogue/openai.js';
import type { ModelFacts, ModelFamily, ModelPrices } from './model-catalogue/types.js';

export type { AudioRatios, CacheRatios, LongContext, ImageFormula, MediaFacts, ModelFacts, ModelFamily, ModelPrices } from './model-catalogue/types.js';

/** Every family, one file per vendor group under model-catalogue/ (no two families claim one name: the test checks it). */
export const MODEL_CATALOGUE: ModelFamily[] = [...OPENAI_FAMILIES, ...ANTHROPIC_GOOGLE_FAMILIES, ...CHINESE_VENDOR_FAMILIES, ...HOSTED_AND_OTHER_FAMILIES];

/** Facts by model name as asked: the catalogue never changes, and a request asks for them several times. */
const factsByModel = new Map<string, Readonly<ModelFacts>>();
/** A flood of distinct model names clears the memo rather than grow it. */
const MAX_REMEMBERED_MODELS = 1000;

/**
 * OpenAI's search models (gpt-4o-search-preview, gpt-4o-mini-search-preview, gpt-5-search-api) search the web before
 * every answer in Chat Completions, each search billed beside the tokens: an answer of theirs is one search, whatever
 * tools the request gave.
 */
export const searchesEveryAnswer = (model: string): boolean => /-search-(preview|api)/.test(model);

/** What the catalogue knows of a model beyond its prices (nothing for a model of no known family). */
export function modelFacts(model: string): Readonly<ModelFacts> {
  let facts = factsByModel.get(model);
  if (!facts) {
    if (factsByModel.size >= MAX_REMEMBERED_MODELS) factsByModel.clear();
    facts = Object.freeze(readModelFacts(model));
    factsByModel.set(model, facts);
  }
  return facts;
}

function readModelFacts(model: string): ModelFacts {
  const name = canonicalModelName(model);
  const family = familyOf(name);
  if (!family) return {};
  const variants = family.variants?.filter((variant) => variant.match.test(name)) ?? [];
  const fact = <K extends keyof ModelFacts>(key: K): ModelFacts[K] => variants.find((variant) => variant[key] !== undefined)?.[key] ?? family[key];
  return { cache: fact('cache'), outputLimit: fact('outputLimit'), media: fact('media'), audio: fact('audio'), imageOutput: fact('imageOutput'), imageInput: fact('imageInput'), webSearch: fact('webSearch'), fastMode: fact('fastMode'), regionalInference: fact('regionalInference'), longContext: fact('longContext') };
}

/** The family whose `match` claims a canonical model name. */
export const familyOf = (canonicalName: string): ModelFamily | undefined => MODEL_CATALOGUE.find((family) => family.match?.test(canonicalName));

type PriceKey = Exclude<keyof ModelPrices, 'aliases'>;

/** One default ratio option (ModelRatio: `ratio`, CompletionRatio: `completion`, ...): every model that sets it, aliases too. */
export function defaultRatios(key: PriceKey): Record<string, number> {
  const ratios: Record<string, number> = {};
  for (const family of MODEL_CATALOGUE) {
    for (const [model, prices] of Object.entries(family.models)) {
      const value = prices[key];
      if (value === undefined) continue;
      for (const name of [model, ...(prices.aliases ?? [])]) ratios[name] = value;
    }
  }
  return ratios;
}

/** A cloud's name for a provider's model: Bedrock `anthropic.claude-…`, or with an inference profile's region `us.anthropic.claude-…`. */
const CLOUD_MODEL = /^(?:[a-z]{2,4}\.)?((anthropic|amazon|meta|mistral|cohere|ai21|deepseek)\..+)$/;
/** A cloud's version suffix (Bedrock `-v1:0`). */
const CLOUD_VERSION = /-v\d+(?::\d+)?$/;

/**
 * A name unwrapped step by step: without an aggregator's vendor path (`openai/gpt-4o`, `models/gemini-2.5-pro`),
 * then without a Bedrock region (`us.amazon.nova-lite-v1:0` is `amazon.nova-lite-v1:0`), then, for Claude, without
 * Bedrock's vendor (`anthropic.claude-…` is Anthropic's own `claude-…`).
 */
function unwrap(model: string): { bare: string; cloud?: string; provider?: string } {
  const bare = model.slice(model.lastIndexOf('/') + 1);
  const cloud = CLOUD_MODEL.exec(bare);
  if (!cloud) return { bare };
  return { bare, cloud: cloud[1], provider: cloud[2] === 'anthropic' ? cloud[1].slice('anthropic.'.length) : undefined };
}

/**
 * The one normalisation of model names for looking up a model's facts (its family: output limit, media bounds, cache
 * prices): lower case, unwrapped (`unwrap`), without a cloud's version (Bedrock `-v1:0`, Vertex `claude-…@date`).
 * Prices are looked up under several names, most specific first (`priceNames`).
 */
export function canonicalModelName(model: string): string {
  const { bare, cloud, provider } = unwrap(model.toLowerCase());
  return (provider ?? cloud ?? bare).replace(CLOUD_VERSION, '').replace(/@.*$/, '');
}

/**
 * The names a model's price is looked up under, most specific first: the name as called, then the provider's own
 * name of a model that a cloud or an aggregator renames. Bedrock `us.anthropic.claude-sonnet-4-20250514-v1:0` is
 * Anthropic's `claude-sonnet-4-20250514`; Vertex `claude-sonnet-4@20250514` (and `claude-3-5-sonnet-v2@20241022`)
 * too; an aggregator's `openai/gpt-4o` is `gpt-4o`. A price set for the exact name always wins.
 */
export function priceNames(model: string): string[] {
  const { bare, cloud, provider } = unwrap(model);
  const vertex = bare.includes('@') ? bare.replace(/-v\d+@/, '@').replace('@', '-') : undefined;
  const names = [model];
  for (const name of [bare, cloud, provider?.replace(CLOUD_VERSION, ''), vertex]) if (name && !names.includes(name)) names.push(name);
  return names;
}

/** The latest `<alias>-<date>` key of a ratio map (dates as 20250929 or 2025-09-29), if any: an undated alias (claude-sonnet-4-5) stands for it. */
export function datedVersionOf(map: Record<string, number>, alias: string): string | undefined {
  let best: string | undefined;
  for (const key of Object.keys(map)) {
    if (!key.startsWith(`${alias}-`) || !/^(\d{8}|\d{4}-\d{2}-\d{2})$/.test(key.slice(alias.length + 1))) continue;
    if (best === undefined || key > best) best = key;
  }
  return best;
}
