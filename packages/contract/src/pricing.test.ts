import { describe, expect, it } from 'vitest';
import { formatPrice, pricesPerMillion, type PricingModel } from './pricing.js';

const model: PricingModel = {
  model_name: 'gpt-4o', quota_type: 0, model_ratio: 1.25, model_price: 0, owner_by: '', completion_ratio: 4, cache_ratio: 0.5,
  create_cache_ratio: 1, create_cache_1h_ratio: 1, reasoning_ratio: 4, ratio_configured: true, enable_groups: ['default'], supported_endpoint_types: [],
};
const dollars = { quotaPerUnit: 500000, displayInCurrency: true };

describe('prices per million tokens', () => {
  it('ratio x model ratio x group ratio per token, as billing charges them', () => {
    // model ratio 1 = $0.002 / 1K tokens = $2 / 1M: 1.25 -> $2.50 input, x4 -> $10 output, x0.5 -> $1.25 cache reads
    const prices = pricesPerMillion(model, 1);
    expect(prices).toMatchObject({ input: 1_250_000, output: 5_000_000, cacheRead: 625_000, cacheWrite: 1_250_000 });
    expect(formatPrice(prices.input, dollars)).toBe('$2.50');
    expect(formatPrice(prices.output, dollars)).toBe('$10.00');
    expect(formatPrice(pricesPerMillion(model, 0.5).cacheRead, dollars)).toBe('$0.625');
  });

  it('prices are exact figures, never rounded to cents; off currency display they are quota units', () => {
    expect(formatPrice(37_500, dollars)).toBe('$0.075');
    expect(formatPrice(1, dollars)).toBe('$0.000002');
    expect(formatPrice(2_500_000_000, dollars)).toBe('$5,000.00');
    expect(formatPrice(0, dollars)).toBe('$0.00');
    expect(formatPrice(1_250_000, { quotaPerUnit: 500000, displayInCurrency: false })).toBe('1.3M');
  });
});
