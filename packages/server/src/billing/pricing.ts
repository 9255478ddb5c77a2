import type { OptionStore } from '../options/option-store.js';
import type { Usage } from './usage.js';

/** Ratio used for a model missing from ModelRatio (US$0.06 / 1K tokens): expensive on purpose, so an unpriced model never runs free. */
export const UNKNOWN_MODEL_RATIO = 30;

export interface Prices {
  modelRatio: number;
  completionRatio: number;
  groupRatio: number;
  /** true when the model had no configured ratio and UNKNOWN_MODEL_RATIO applied */
  unknownModel: boolean;
}

/** The three ratios of ARCHITECTURE.md "Money" for one model and user group. */
export function pricesFor(options: OptionStore, model: string, group: string): Prices {
  const modelRatio = own(options.ratios('ModelRatio'), model);
  return {
    modelRatio: modelRatio ?? UNKNOWN_MODEL_RATIO,
    completionRatio: own(options.ratios('CompletionRatio'), model) ?? 1,
    groupRatio: own(options.ratios('GroupRatio'), group) ?? 1,
    unknownModel: modelRatio === undefined,
  };
}

/** A ratio the map itself holds: names such as "__proto__" or "constructor" must not reach Object.prototype. */
function own(map: Record<string, number>, key: string): number | undefined {
  return Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}

/**
 * cost = ceil((prompt + completion x CompletionRatio) x ModelRatio x GroupRatio), at least 1 when any tokens
 * were used and the price is not zero (ARCHITECTURE.md "Money").
 */
export function costOf(usage: Usage, prices: Prices): number {
  const raw = rawCostOf(usage, prices);
  if (raw <= 0) return 0;
  return Math.max(1, Math.ceil(raw - 1e-9));
}

/** The cost before rounding up. */
export function rawCostOf(usage: Usage, prices: Prices): number {
  return (usage.prompt_tokens + usage.completion_tokens * prices.completionRatio) * prices.modelRatio * prices.groupRatio;
}

/** The readable price breakdown written into consume logs. */
export function describePrice(prices: Prices, usage: Usage, cost: number): string {
  const unknown = prices.unknownModel ? '（未配置倍率，按默认倍率计费）' : '';
  return `模型倍率 ${prices.modelRatio}${unknown}，补全倍率 ${prices.completionRatio}，分组倍率 ${prices.groupRatio}；输入 ${usage.prompt_tokens} + 输出 ${usage.completion_tokens} tokens，共计 ${cost} 额度`;
}
