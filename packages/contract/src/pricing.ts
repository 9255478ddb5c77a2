import { abbreviateQuota, DEFAULT_QUOTA_PER_UNIT, type QuotaDisplay } from './money.js';

/**
 * One model of GET /api/pricing, in the shape chat clients that support new-api read (model_name, quota_type,
 * model_ratio, model_price, completion_ratio, enable_groups, cache_ratio, create_cache_ratio), plus the ratios
 * only this gateway has. Every ratio is the one billing applies (billing/pricing.ts pricesFor), family cache
 * defaults included, so the page and a client price a request exactly as it is charged.
 */
export interface PricingModel {
  model_name: string;
  /** 0: priced by ratios (the only kind here); 1 would be a fixed price per request */
  quota_type: 0 | 1;
  model_ratio: number;
  /** fixed price per request in US$ (quota_type 1); always 0 here */
  model_price: number;
  owner_by: string;
  completion_ratio: number;
  /** cache reads, relative to the input price */
  cache_ratio: number;
  /** cache writes (5-minute or unstated lifetime), relative to the input price */
  create_cache_ratio: number;
  /** Anthropic's 1-hour cache writes, relative to the input price */
  create_cache_1h_ratio: number;
  /** reasoning tokens, relative to the input price */
  reasoning_ratio: number;
  /** false when ModelRatio has no entry for the model and the expensive default ratio applies */
  ratio_configured: boolean;
  /**
   * Prices by prompt length: above `above` input tokens (cache reads and writes included) every input-side price is
   * `input` times its standard price and every output-side price `output` times; of several steps, the largest one
   * the prompt passes applies. Absent when the model has one price whatever the prompt's length.
   */
  long_context?: LongContextBand[];
  /** the caller's usable groups that serve the model */
  enable_groups: string[];
  supported_endpoint_types: string[];
}

/** One long-context band of a model (PricingModel.long_context). */
export interface LongContextBand {
  above: number;
  input: number;
  output: number;
}

/** GET /api/pricing: the models and, beside data as new-api has them, the group ratios and usable groups. */
export interface PricingResponse {
  success: boolean;
  message: string;
  data: PricingModel[];
  /** ratio of each usable group */
  group_ratio: Record<string, number>;
  /** usable group -> its description */
  usable_group: Record<string, string>;
}

/** Tokens a price on the pricing page is given for. */
export const PRICE_TOKENS = 1_000_000;

/** Quota units that PRICE_TOKENS tokens of each kind cost in `group` (ratio x model ratio x group ratio per token). */
export function pricesPerMillion(model: PricingModel, groupRatio: number) {
  const base = PRICE_TOKENS * model.model_ratio * groupRatio;
  return {
    input: base,
    output: base * model.completion_ratio,
    cacheRead: base * model.cache_ratio,
    cacheWrite: base * model.create_cache_ratio,
    cacheWrite1h: base * model.create_cache_1h_ratio,
    reasoning: base * model.reasoning_ratio,
  };
}

/**
 * A unit price in the display currency: with currency display on, dollars with up to six decimals (prices are
 * exact figures, not rounded to cents: $0.075, $2.50, $15); off, quota units abbreviated like every amount.
 */
export function formatPrice(quota: number, display: QuotaDisplay): string {
  if (!display.displayInCurrency) return abbreviateQuota(Math.round(quota));
  const perUnit = display.quotaPerUnit > 0 ? display.quotaPerUnit : DEFAULT_QUOTA_PER_UNIT;
  const amount = Math.round((quota / perUnit) * 1e6) / 1e6;
  const [whole, fraction = ''] = amount.toFixed(6).split('.');
  const trimmed = fraction.replace(/0+$/, '').padEnd(2, '0');
  return `$${Number(whole).toLocaleString('en-US')}.${trimmed}`;
}
