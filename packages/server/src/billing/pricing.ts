import type { OptionStore } from '../options/option-store.js';
import { datedVersionOf, modelFacts, priceNames, type CacheRatios, type LongContext } from './model-catalogue.js';
import { describeToolCalls, toolCallPrice } from './tool-calls.js';
import type { Usage } from './usage.js';

export { priceNames };

/** Ratio used for a model missing from ModelRatio (US$0.06 / 1K tokens): expensive on purpose, so an unpriced model never runs free. */
export const UNKNOWN_MODEL_RATIO = 30;

/** One-api's convention for per-image models: an image is priced as 1K tokens at the model ratio. */
export const TOKENS_PER_IMAGE = 1000;

export interface Prices {
  modelRatio: number;
  completionRatio: number;
  groupRatio: number;
  /** Cache reads, relative to the input price. */
  cacheReadRatio: number;
  /** Cache writes (5-minute or unstated TTL), relative to the input price. */
  cacheWriteRatio: number;
  /** Anthropic 1-hour cache writes, relative to the input price. */
  cacheWrite1hRatio: number;
  /** Reasoning tokens, relative to the input price (like the completion ratio). */
  reasoningRatio: number;
  /** Audio input tokens, relative to the input price. */
  audioRatio: number;
  /** Audio output tokens, relative to the audio input price. */
  audioCompletionRatio: number;
  /** Image output tokens (an answer's drawn images), relative to the input price (like the completion ratio). */
  imageCompletionRatio: number;
  /** Image input tokens (GPT Image's), relative to the text input price (ImageRatio, new-api's name and meaning). */
  imageRatio: number;
  /** One web search the provider ran, in quota units (WebSearchPrice, US$ per 1,000, times QuotaPerUnit / 1,000). */
  webSearchQuota: number;
  /** Every token price when the upstream ran the request in its fast mode (FastModeRatio), relative to the standard. */
  fastModeRatio: number;
  /** Every token price when the upstream kept inference in one geography at a premium (the catalogue's), relative to the standard. */
  regionalRatio: number;
  /** Long-context prices (the catalogue's): multipliers of the input and output prices above an input size. */
  longContext?: LongContext | readonly LongContext[];
  /** The admin's prices of provider-run tools billed per call (ToolCallPrice, US$ per 1,000 by price key). */
  toolCallPrices: Readonly<Record<string, number>>;
  /** QuotaPerUnit when the prices were read: quota units per US$. */
  quotaPerUnit: number;
  /** true when the model had no configured ratio and UNKNOWN_MODEL_RATIO applied */
  unknownModel: boolean;
}

/** A model of no family with cache prices (billing/model-catalogue.ts): written tokens and cache reads cost as ordinary input. */
const NO_CACHE_DISCOUNT: CacheRatios = { read: 1, write: 1, write1h: 1 };

/** The ratio maps a set of prices was read from: a memo holds while every one of them is still the store's own. */
type RatioMaps = Array<Record<string, number>>;
const PRICE_KEYS = ['ModelRatio', 'CompletionRatio', 'GroupRatio', 'CacheReadRatio', 'CacheWriteRatio', 'CacheWrite1hRatio', 'ReasoningRatio', 'AudioRatio', 'AudioCompletionRatio', 'ImageRatio', 'ImageCompletionRatio', 'WebSearchPrice', 'ToolCallPrice', 'FastModeRatio'] as const;
/** Distinct (model, group) pairs remembered per option store; a flood of model names clears it rather than grow. */
const MAX_MEMO = 1000;
const memos = new WeakMap<OptionStore, { maps: RatioMaps; quotaPerUnit: number; prices: Map<string, Readonly<Prices>> }>();

/**
 * Every ratio that prices a request of `model` for a user of `group`. Priced twice per request (plan and
 * settlement), and a model missing from a map is looked up as an undated alias by scanning the whole map, so the
 * answer is remembered until an option changes (the store parses a changed map into a new object).
 */
export function pricesFor(options: OptionStore, model: string, group: string): Readonly<Prices> {
  let memo = memos.get(options);
  if (!memo || !readFrom(memo.maps, options) || memo.quotaPerUnit !== options.number('QuotaPerUnit') || memo.prices.size >= MAX_MEMO) {
    memo = { maps: PRICE_KEYS.map((key) => options.ratios(key)), quotaPerUnit: options.number('QuotaPerUnit'), prices: new Map() };
    memos.set(options, memo);
  }
  const key = `${model}\u0000${group}`;
  let prices = memo.prices.get(key);
  if (!prices) {
    prices = Object.freeze(computePrices(options, model, group));
    memo.prices.set(key, prices);
  }
  return prices;
}

/** Whether `maps` are still the store's own ratio maps (a loop, not an array: this runs twice a request). */
function readFrom(maps: RatioMaps, options: OptionStore): boolean {
  for (let i = 0; i < PRICE_KEYS.length; i++) if (options.ratios(PRICE_KEYS[i]) !== maps[i]) return false;
  return true;
}

function computePrices(options: OptionStore, model: string, group: string): Prices {
  const names = priceNames(model);
  const ratio = (key: 'ModelRatio' | 'CompletionRatio' | 'CacheReadRatio' | 'CacheWriteRatio' | 'CacheWrite1hRatio' | 'ReasoningRatio' | 'AudioRatio' | 'AudioCompletionRatio' | 'ImageRatio' | 'ImageCompletionRatio' | 'WebSearchPrice' | 'FastModeRatio') => {
    const map = options.ratios(key);
    for (const name of names) {
      const value = own(map, name);
      if (value !== undefined) return value;
    }
    // An undated alias (claude-sonnet-4-5) is priced as its latest dated model (claude-sonnet-4-5-20250929).
    for (const name of names) {
      const dated = datedVersionOf(map, name);
      if (dated !== undefined) return map[dated];
    }
    return undefined;
  };
  const modelRatio = ratio('ModelRatio');
  const completionRatio = ratio('CompletionRatio') ?? 1;
  // The family's cache prices, when a model has none of its own (Bedrock's `us.anthropic.claude-…` is a Claude too).
  const facts = modelFacts(model);
  const family = facts.cache ?? NO_CACHE_DISCOUNT;
  const searchPerThousand = ratio('WebSearchPrice') ?? facts.webSearch ?? 0;
  const audioRatio = ratio('AudioRatio') ?? facts.audio?.input ?? 1;
  return {
    modelRatio: modelRatio ?? UNKNOWN_MODEL_RATIO,
    completionRatio,
    groupRatio: own(options.ratios('GroupRatio'), group) ?? 1,
    cacheReadRatio: ratio('CacheReadRatio') ?? family.read,
    cacheWriteRatio: ratio('CacheWriteRatio') ?? family.write,
    cacheWrite1hRatio: ratio('CacheWrite1hRatio') ?? family.write1h,
    reasoningRatio: ratio('ReasoningRatio') ?? completionRatio,
    // A model of no audio prices bills its audio as text, in and out; one with an audio input price only, its audio
    // output as text output.
    audioRatio,
    audioCompletionRatio: ratio('AudioCompletionRatio') ?? facts.audio?.completion ?? (audioRatio > 0 ? completionRatio / audioRatio : completionRatio),
    // A model of no image output price bills the images it draws as text output.
    imageCompletionRatio: ratio('ImageCompletionRatio') ?? facts.imageOutput ?? completionRatio,
    // A model of no image input price bills image tokens as text.
    imageRatio: ratio('ImageRatio') ?? facts.imageInput ?? 1,
    webSearchQuota: (searchPerThousand / 1000) * options.number('QuotaPerUnit'),
    // A model of no fast mode cannot report one: 1 then.
    fastModeRatio: ratio('FastModeRatio') ?? facts.fastMode ?? 1,
    regionalRatio: facts.regionalInference ?? 1,
    ...(facts.longContext ? { longContext: facts.longContext } : {}),
    toolCallPrices: options.ratios('ToolCallPrice'),
    quotaPerUnit: options.number('QuotaPerUnit'),
    unknownModel: modelRatio === undefined,
  };
}

/** One call of a provider-run tool billed per call (price key, billing/tool-calls.ts), in quota units. */
export function toolCallQuota(prices: Prices, key: string): number {
  return (toolCallPrice(key, prices.toolCallPrices) / 1000) * prices.quotaPerUnit;
}

/** A ratio the map itself holds: names such as "__proto__" or "constructor" must not reach Object.prototype. */
function own(map: Record<string, number>, key: string): number | undefined {
  return Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}

/** The usage split into the parts priced apart; no part is negative whatever the provider reported. */
export function usageParts(usage: Usage) {
  const cached = Math.max(0, usage.cached_tokens ?? 0);
  const write = Math.max(0, usage.cache_write_tokens ?? 0);
  const write1h = Math.max(0, usage.cache_write_1h_tokens ?? 0);
  const completion = Math.max(0, usage.completion_tokens);
  const reasoning = Math.min(completion, Math.max(0, usage.reasoning_tokens ?? 0));
  // A provider reporting more cached tokens than prompt tokens must not make the input negative (a peer's bug).
  const uncached = Math.max(0, usage.prompt_tokens - cached - write - write1h);
  const audioIn = Math.min(uncached, Math.max(0, usage.audio_prompt_tokens ?? 0));
  const imageIn = Math.min(uncached - audioIn, Math.max(0, usage.image_prompt_tokens ?? 0));
  const audioOut = Math.min(completion - reasoning, Math.max(0, usage.audio_completion_tokens ?? 0));
  const imageOut = Math.min(completion - reasoning - audioOut, Math.max(0, usage.image_completion_tokens ?? 0));
  return {
    input: uncached - audioIn - imageIn,
    imageIn,
    cached,
    write,
    write1h,
    audioIn,
    output: completion - reasoning - audioOut - imageOut,
    reasoning,
    audioOut,
    imageOut,
    images: Math.max(0, usage.images ?? 0) * Math.max(0, usage.image_size_ratio ?? 1),
    searches: Math.max(0, usage.web_searches ?? 0),
  };
}

/**
 * cost = ceil(((input parts x long-context input multiplier + output parts x long-context output multiplier) x fast
 * mode and regional multipliers + images x 1000 x size ratio) x ModelRatio + searches x the search's quota + tool calls
 * x theirs) x GroupRatio), at least 1 when anything was used and the price is not zero. The input parts: input +
 * cached x CacheRead + written x CacheWrite + audio in x Audio + image in x Image; the output parts: output x
 * Completion + reasoning x Reasoning + audio out x Audio x AudioCompletion + image out x ImageCompletion
 * (docs/ledger.md, "Units and prices"; with only prompt and completion this is one-api's formula).
 */
export function costOf(usage: Usage, prices: Prices): number {
  const raw = rawCostOf(usage, prices);
  if (raw <= 0) return 0;
  return Math.max(1, Math.ceil(raw - 1e-9));
}

/** The cost before rounding up. */
export function rawCostOf(usage: Usage, prices: Prices): number {
  const p = usageParts(usage);
  const input =
    p.input +
    p.cached * prices.cacheReadRatio +
    p.write * prices.cacheWriteRatio +
    p.write1h * prices.cacheWrite1hRatio +
    p.audioIn * prices.audioRatio +
    p.imageIn * prices.imageRatio;
  const output =
    p.output * prices.completionRatio +
    p.reasoning * prices.reasoningRatio +
    p.audioOut * prices.audioRatio * prices.audioCompletionRatio +
    p.imageOut * prices.imageCompletionRatio;
  const long = longContextOf(usage, prices);
  const fast = (usage.fast_mode ? prices.fastModeRatio : 1) * (usage.regional_inference ? prices.regionalRatio : 1);
  const units = (input * (long?.input ?? 1) + output * (long?.output ?? 1)) * fast + p.images * TOKENS_PER_IMAGE;
  let tools = 0;
  for (const key in usage.tool_calls) tools += Math.max(0, usage.tool_calls[key]) * toolCallQuota(prices, key);
  return (units * prices.modelRatio + p.searches * prices.webSearchQuota + tools) * prices.groupRatio;
}

/**
 * The long-context prices that apply to a usage: its input (cache reads and writes included) is above their size; of
 * several steps (a price in tiers by prompt length), the largest one it passes.
 */
function longContextOf(usage: Usage, prices: Prices): LongContext | undefined {
  const steps = prices.longContext;
  if (steps === undefined) return undefined;
  let applies: LongContext | undefined;
  for (const step of isStepList(steps) ? steps : [steps]) if (usage.prompt_tokens > step.above && step.above >= (applies?.above ?? 0)) applies = step;
  return applies;
}

const isStepList = (steps: LongContext | readonly LongContext[]): steps is readonly LongContext[] => Array.isArray(steps);

/** A sub-inference priced (Usage.sub_usages): its model's prices and its cost. */
export interface PricedSubUsage {
  model: string;
  usage: Usage;
  prices: Readonly<Prices>;
  cost: number;
}

/**
 * What a request costs with the inferences it ran on other models (Usage.sub_usages), each priced as its model
 * (`priceOf`) and rounded up on its own, like a request of its own.
 */
export function totalCostOf(usage: Usage, prices: Prices, priceOf: (model: string) => Readonly<Prices>): { cost: number; subs: PricedSubUsage[] } {
  const subs = (usage.sub_usages ?? []).map((sub) => {
    const own = priceOf(sub.model);
    return { model: sub.model, usage: sub.usage, prices: own, cost: costOf(sub.usage, own) };
  });
  return { cost: subs.reduce((sum, sub) => sum + sub.cost, costOf(usage, prices)), subs };
}

/** The readable price breakdown written into consume logs: every priced part that was used. */
export function describePrice(prices: Prices, usage: Usage, cost: number, subs: PricedSubUsage[] = []): string {
  if (subs.length > 0) {
    const own = cost - subs.reduce((sum, sub) => sum + sub.cost, 0);
    return `${describePrice(prices, usage, own)}${subs.map((sub) => `；顾问模型 ${sub.model}：${describePrice(sub.prices, sub.usage, sub.cost)}`).join('')}；合计 ${cost} 额度`;
  }
  const unknown = prices.unknownModel ? '（未配置倍率，按默认倍率计费）' : '';
  const p = usageParts(usage);
  const parts = [`输入 ${p.input}`];
  if (p.cached > 0) parts.push(`缓存读取 ${p.cached} × ${prices.cacheReadRatio}`);
  if (p.write > 0) parts.push(`缓存写入 ${p.write} × ${prices.cacheWriteRatio}`);
  if (p.write1h > 0) parts.push(`长时缓存写入 ${p.write1h} × ${prices.cacheWrite1hRatio}`);
  parts.push(`输出 ${p.output}`);
  if (p.reasoning > 0) parts.push(`推理 ${p.reasoning} × ${prices.reasoningRatio}`);
  if (p.audioIn > 0) parts.push(`音频输入 ${p.audioIn} × ${prices.audioRatio}`);
  if (p.imageIn > 0) parts.push(`图片输入 ${p.imageIn} × ${prices.imageRatio}`);
  if (p.audioOut > 0) parts.push(`音频输出 ${p.audioOut} × ${prices.audioRatio} × ${prices.audioCompletionRatio}`);
  if (p.imageOut > 0) parts.push(`图片输出 ${p.imageOut} × ${prices.imageCompletionRatio}`);
  if (p.images > 0) parts.push(usage.image_size_ratio && usage.image_size_ratio !== 1 ? `图片 ${usage.images} 张 × ${usage.image_size_ratio}` : `图片 ${p.images} 张`);
  const searches = p.searches > 0 ? ` + 联网搜索 ${p.searches} 次 × ${roundQuota(prices.webSearchQuota)} 额度` : '';
  const tools = usage.tool_calls ? describeToolCalls(usage.tool_calls, (key) => toolCallQuota(prices, key)) : '';
  const long = longContextOf(usage, prices);
  const tiers = [
    ...(long ? [`长上下文（输入超过 ${long.above}）输入 × ${long.input}、输出 × ${long.output}`] : []),
    ...(usage.fast_mode ? [`快速模式 × ${prices.fastModeRatio}`] : []),
    ...(usage.regional_inference && prices.regionalRatio !== 1 ? [`指定地域推理 × ${prices.regionalRatio}`] : []),
  ];
  const tier = tiers.length > 0 ? `，${tiers.join('，')}` : '';
  return `模型倍率 ${prices.modelRatio}${unknown}，补全倍率 ${prices.completionRatio}，分组倍率 ${prices.groupRatio}${tier}；${parts.join(' + ')} tokens${searches}${tools}，共计 ${cost} 额度`;
}

const roundQuota = (quota: number) => Math.round(quota * 100) / 100;
