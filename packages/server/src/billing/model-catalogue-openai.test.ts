import { describe, expect, it } from 'vitest';
import { DEFAULT_CACHE_READ_RATIO, DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../options/defaults.js';
import type { OptionStore } from '../options/option-store.js';
import { contextWindowOf } from './media-bounds.js';
import { defaultRatios, modelFacts } from './model-catalogue.js';
import { outputLimitOf } from './model-limits.js';
import { costOf, pricesFor } from './pricing.js';

/**
 * GPT-6 and the GPT-5.1 and 5.2 chat models in the catalogue (billing/model-catalogue/openai.ts). Ratio 1 = US$2 per 1M
 * input tokens; at 500,000 quota units a US$, a token at ratio 1 costs one unit.
 */
const DEFAULTS: Record<string, Record<string, number>> = { ModelRatio: DEFAULT_MODEL_RATIO, CompletionRatio: DEFAULT_COMPLETION_RATIO, CacheReadRatio: DEFAULT_CACHE_READ_RATIO };
const store = (own: Record<string, Record<string, number>> = {}) => ({ ratios: (key: string) => own[key] ?? DEFAULTS[key] ?? {}, number: () => 500_000 }) as unknown as OptionStore;
const UNITS_PER_USD = 500_000;

/** List prices, US$ per 1M input / cached input / output tokens, and the published output limit. */
const LIST: Record<string, { input: number; cached: number; output: number; outputLimit: number }> = {
  'gpt-6-astra': { input: 10, cached: 1, output: 50, outputLimit: 128_000 },
  'gpt-6-sol': { input: 2, cached: 0.2, output: 10, outputLimit: 128_000 },
  'gpt-6-luna': { input: 0.1, cached: 0.01, output: 0.5, outputLimit: 128_000 },
  'gpt-6.1-sol': { input: 2, cached: 0.1, output: 10, outputLimit: 128_000 },
  'gpt-6.1-terra': { input: 1, cached: 0.05, output: 5, outputLimit: 128_000 },
  'gpt-6.2-astra': { input: 8, cached: 0.4, output: 40, outputLimit: 128_000 },
  'gpt-6.2-sol': { input: 2, cached: 0.1, output: 10, outputLimit: 128_000 },
  'gpt-5.1-chat-latest': { input: 1.25, cached: 0.125, output: 10, outputLimit: 16_384 },
  'gpt-5.2-chat-latest': { input: 1.75, cached: 0.175, output: 14, outputLimit: 16_384 },
};

describe('OpenAI GPT-6 and the GPT-5.1 / 5.2 chat models', () => {
  it('a usage costs its list price (within rounding): 60,000 uncached and 40,000 cached input tokens, 10,000 output', () => {
    const usage = { prompt_tokens: 100_000, cached_tokens: 40_000, completion_tokens: 10_000 };
    for (const [model, list] of Object.entries(LIST)) {
      const prices = pricesFor(store(), model, 'default');
      expect(prices.unknownModel, model).toBe(false);
      const usd = (60_000 * list.input + 40_000 * list.cached + 10_000 * list.output) / 1_000_000;
      expect(Math.abs(costOf(usage, prices) - usd * UNITS_PER_USD), model).toBeLessThanOrEqual(1);
    }
  });

  it('their ratios: input / 2, output over input, cache hits over input', () => {
    for (const [model, list] of Object.entries(LIST)) {
      const prices = pricesFor(store(), model, 'default');
      expect(prices.modelRatio, model).toBeCloseTo(list.input / 2, 9);
      expect(prices.completionRatio, model).toBeCloseTo(list.output / list.input, 9);
      expect(prices.cacheReadRatio, model).toBeCloseTo(list.cached / list.input, 9);
    }
    // GPT-6.1 and later set their 5 % cache hits as a default option; GPT-6 Astra, Sol and Luna take the family's 10 %.
    expect(['gpt-6.1-sol', 'gpt-6.1-terra', 'gpt-6.2-astra', 'gpt-6.2-sol'].map((m) => defaultRatios('cacheRead')[m])).toEqual([0.05, 0.05, 0.05, 0.05]);
    expect(defaultRatios('cacheRead')['gpt-6-astra']).toBeUndefined();
  });

  it('output limits: 128,000 for GPT-6, 16,384 for the chat models, under the names an aggregator gives them', () => {
    for (const [model, list] of Object.entries(LIST)) {
      expect(outputLimitOf(model), model).toBe(list.outputLimit);
      expect(modelFacts(model).outputLimit, model).toBe(list.outputLimit);
      expect(modelFacts(`openai/${model}`).outputLimit, model).toBe(list.outputLimit);
    }
    // GPT-6's 1,050,000-token window bounds what a prior response can add.
    for (const model of ['gpt-6-astra', 'gpt-6-luna', 'gpt-6.1-terra', 'gpt-6.2-sol']) expect(contextWindowOf(model), model).toBe(1_050_000);
  });

  it('snapshot gpt-6.1-sol-2026-09-29 carries 6.1 Sol\'s prices; ids absent from OpenAI\'s docs are not priced', () => {
    for (const key of ['ratio', 'completion', 'cacheRead'] as const) expect(defaultRatios(key)['gpt-6.1-sol-2026-09-29'], key).toBe(defaultRatios(key)['gpt-6.1-sol']);
    expect(pricesFor(store(), 'gpt-6.1-sol-2026-09-29', 'default').unknownModel).toBe(false);
    for (const model of ['gpt-6', 'gpt-6-mini', 'gpt-6-nano', 'gpt-6-pro', 'gpt-6-codex']) expect(defaultRatios('ratio')[model], model).toBeUndefined();
  });

  it('GPT-6 cache writes at 1.25 times the input price; GPT-6.1 Terra and 6.2 Sol price 12-hour writes at 2.5 times', () => {
    expect(modelFacts('gpt-6-astra').cache).toEqual({ read: 0.1, write: 1.25, write1h: 1.25 });
    expect(modelFacts('gpt-6-luna').cache).toEqual({ read: 0.1, write: 1.25, write1h: 1.25 });
    expect(modelFacts('gpt-6.1-sol').cache).toEqual({ read: 0.05, write: 1.25, write1h: 1.25 });
    expect(modelFacts('gpt-6.2-astra').cache).toEqual({ read: 0.05, write: 1.25, write1h: 1.25 });
    expect(modelFacts('gpt-6.1-terra').cache).toEqual({ read: 0.05, write: 1.25, write1h: 2.5 });
    expect(modelFacts('gpt-6.2-sol').cache).toEqual({ read: 0.05, write: 1.25, write1h: 2.5 });
    // GPT-6 Luna: 50,000 uncached x US$0.10 + 50,000 written x 0.125 per 1M = US$0.01125, 5,625 units.
    const luna = pricesFor(store(), 'gpt-6-luna', 'default');
    expect(costOf({ prompt_tokens: 100_000, cache_write_tokens: 50_000, completion_tokens: 0 }, luna)).toBe(5_625);
    // GPT-6.2 Sol: 50,000 x US$2 + 50,000 written for 12 hours x 5 per 1M = US$0.35, 175,000 units.
    const sol = pricesFor(store(), 'gpt-6.2-sol', 'default');
    expect(costOf({ prompt_tokens: 100_000, cache_write_1h_tokens: 50_000, completion_tokens: 0 }, sol)).toBe(175_000);
  });

  it('GPT-6 above 272K input tokens (cache reads included): input prices x2, output x1.5; the chat models have none', () => {
    const sol = pricesFor(store(), 'gpt-6.1-sol', 'default');
    expect(sol.longContext).toEqual({ above: 272_000, input: 2, output: 1.5 });
    const at = (prompt: number) => ({ prompt_tokens: prompt, completion_tokens: 1_000, cached_tokens: 100_000 });
    // 272,000: 172,000 x US$2 + 100,000 x 0.10 + 1,000 x 10 per 1M = US$0.364, 182,000 units.
    expect(costOf(at(272_000), sol)).toBe(182_000);
    // 272,001: 172,001 x US$4 + 100,000 x 0.20 + 1,000 x 15 = US$0.723004, 361,502 units.
    expect(costOf(at(272_001), sol)).toBe(361_502);
    for (const model of ['gpt-6-astra', 'gpt-6-luna', 'gpt-6.1-terra', 'gpt-6.2-astra', 'gpt-6.2-sol']) {
      expect(pricesFor(store(), model, 'default').longContext, model).toEqual({ above: 272_000, input: 2, output: 1.5 });
    }
    for (const model of ['gpt-5.1-chat-latest', 'gpt-5.2-chat-latest']) expect(pricesFor(store(), model, 'default').longContext, model).toBeUndefined();
  });

  it('GPT-6 in Fast mode twice every price; the Responses web search US$10 per 1,000 calls', () => {
    const astra = pricesFor(store(), 'gpt-6-astra', 'default');
    expect(astra.fastModeRatio).toBe(2);
    // 10,000 x US$20 + 1,000 x 100 per 1M = US$0.30, 150,000 units.
    expect(costOf({ prompt_tokens: 10_000, completion_tokens: 1_000, fast_mode: true }, astra)).toBe(150_000);
    for (const model of ['gpt-6-sol', 'gpt-6.1-terra', 'gpt-6.2-astra']) expect(pricesFor(store(), model, 'default').fastModeRatio, model).toBe(2);
    // US$10 per 1,000: 10 / 1,000 x 500,000 units.
    for (const model of ['gpt-6-astra', 'gpt-6.2-sol']) expect(pricesFor(store(), model, 'default').webSearchQuota, model).toBe(5_000);
  });
});
