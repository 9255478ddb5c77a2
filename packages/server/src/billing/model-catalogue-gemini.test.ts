import { describe, expect, it } from 'vitest';
import { DEFAULT_CACHE_READ_RATIO, DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../options/defaults.js';
import type { OptionStore } from '../options/option-store.js';
import { defaultRatios, modelFacts } from './model-catalogue.js';
import { costOf, pricesFor } from './pricing.js';

/**
 * Gemini 3 and later in the catalogue (billing/model-catalogue/anthropic-google.ts, the Google Gemini family). Ratio 1 =
 * US$2 per 1M input tokens; at 500,000 quota units a US$, a token at ratio 1 costs one unit.
 */
const DEFAULTS: Record<string, Record<string, number>> = { ModelRatio: DEFAULT_MODEL_RATIO, CompletionRatio: DEFAULT_COMPLETION_RATIO, CacheReadRatio: DEFAULT_CACHE_READ_RATIO };
const store = (own: Record<string, Record<string, number>> = {}) => ({ ratios: (key: string) => own[key] ?? DEFAULTS[key] ?? {}, number: () => 500_000 }) as unknown as OptionStore;

const prices = (model: string) => [defaultRatios('ratio')[model], defaultRatios('completion')[model], defaultRatios('cacheRead')[model]];

describe('Gemini 3 and later', () => {
  it('their prices (input, output over input, cache hits over input) and 65,536-token output limit', () => {
    // US$ per 1M input / output / cache hit: 3.1 Pro 2 / 12 / 0.20, 3 Flash Preview 0.50 / 3 / 0.05, 3.1 Flash-Lite
    // 0.25 / 1.50 / 0.025, 3.5 Flash 1.50 / 9 / 0.15, 3.5 Flash-Lite 0.30 / 2.50 / 0.03, 3.6 to 3.8 Flash (list price)
    // 1.50 / 7.50 / 0.15, Gemini 4 Argon and Carbon 4 / 20 / 0.20, Neon 3 / 15 / 0.15, Hydrogen 1.50 / 7.50 / 0.075.
    const expected: Record<string, [number, number, number]> = {
      'gemini-3.1-pro-preview': [1, 6, 0.1],
      'gemini-3-flash-preview': [0.25, 6, 0.1],
      'gemini-3.1-flash-lite': [0.125, 6, 0.1],
      'gemini-3.5-flash': [0.75, 6, 0.1],
      'gemini-3.5-flash-lite': [0.15, 8.333, 0.1],
      'gemini-3.6-flash': [0.75, 5, 0.1],
      'gemini-3.7-flash': [0.75, 5, 0.1],
      'gemini-3.8-flash': [0.75, 5, 0.1],
      'gemini-4-argon': [2, 5, 0.05],
      'gemini-4-carbon': [2, 5, 0.05],
      'gemini-4-neon': [1.5, 5, 0.05],
      'gemini-4-hydrogen': [0.75, 5, 0.05],
    };
    for (const [model, [ratio, completion, cacheRead]] of Object.entries(expected)) {
      expect(prices(model), model).toEqual([ratio, completion, cacheRead]);
      expect(modelFacts(model).outputLimit, model).toBe(65_536);
      expect(modelFacts(`models/${model}`).outputLimit, model).toBe(65_536);
    }
    // Other names of the same models: 3.1 Pro's agent endpoint, 3 Pro Preview (shut down, routed to 3.1 Pro), the
    // Flash-Lite preview.
    for (const [alias, model] of [['gemini-3.1-pro-preview-customtools', 'gemini-3.1-pro-preview'], ['gemini-3-pro-preview', 'gemini-3.1-pro-preview'], ['gemini-3.1-flash-lite-preview', 'gemini-3.1-flash-lite']]) {
      expect(prices(alias), alias).toEqual(prices(model));
      expect(modelFacts(alias).outputLimit, alias).toBe(65_536);
    }
  });

  it('priced, not at the unknown-model ratio, under the names the Gemini API and an aggregator give them; grounding US$14 a query on Gemini 3', () => {
    for (const model of ['gemini-3.1-pro-preview', 'models/gemini-3.8-flash', 'google/gemini-3-flash-preview', 'gemini-4-argon']) {
      expect(pricesFor(store(), model, 'default').unknownModel, model).toBe(false);
    }
    // US$14 per 1,000 queries: 14 / 1,000 x 500,000 units.
    for (const model of ['gemini-3.1-pro-preview', 'gemini-3-flash-preview', 'gemini-3.8-flash']) expect(pricesFor(store(), model, 'default').webSearchQuota, model).toBe(7_000);
  });

  it('Gemini 3.1 Pro above a 200K-token prompt (cache hits included): input and cache prices x2, output x1.5', () => {
    const pro = pricesFor(store(), 'gemini-3.1-pro-preview', 'default');
    expect(pro).toMatchObject({ modelRatio: 1, completionRatio: 6, cacheReadRatio: 0.1, longContext: { above: 200_000, input: 2, output: 1.5 } });
    const at = (prompt: number) => ({ prompt_tokens: prompt, completion_tokens: 2_000, cached_tokens: 100_000 });
    // 200,000: 100,000 x US$2 + 100,000 x 0.20 + 2,000 x 12 per 1M = US$0.20 + 0.02 + 0.024 = 0.244, 122,000 units.
    expect(costOf(at(200_000), pro)).toBe(122_000);
    // 200,001: 100,001 x US$4 + 100,000 x 0.40 + 2,000 x 18 = US$0.400004 + 0.04 + 0.036 = 0.476004, 238,002 units.
    expect(costOf(at(200_001), pro)).toBe(238_002);
    expect(costOf(at(200_001), pricesFor(store(), 'gemini-3-pro-preview', 'default'))).toBe(238_002);
    // The Flash, Flash-Lite and Gemini 4 models: one price at any prompt size.
    for (const model of ['gemini-3-flash-preview', 'gemini-3.1-flash-lite', 'gemini-3.5-flash', 'gemini-3.8-flash', 'gemini-4-argon', 'gemini-4-hydrogen']) {
      expect(pricesFor(store(), model, 'default').longContext, model).toBeUndefined();
    }
  });

  it("Gemini 3 Flash Preview and 3.1 Flash-Lite price audio input at twice the text; the later Flash models as text", () => {
    const flash = pricesFor(store(), 'gemini-3-flash-preview', 'default');
    expect(flash.audioRatio).toBe(2);
    // 10 text tokens x US$0.50 + 1,000 audio x 1.00 + 5 output x 3 per 1M = US$0.00102, 510 units.
    expect(costOf({ prompt_tokens: 1_010, completion_tokens: 5, audio_prompt_tokens: 1_000 }, flash)).toBe(510);
    for (const model of ['gemini-3.1-flash-lite', 'gemini-3.1-flash-lite-preview']) expect(pricesFor(store(), model, 'default').audioRatio, model).toBe(2);
    for (const model of ['gemini-3.5-flash', 'gemini-3.5-flash-lite', 'gemini-3.8-flash', 'gemini-3.1-pro-preview', 'gemini-4-hydrogen']) {
      expect(pricesFor(store(), model, 'default').audioRatio, model).toBe(1);
    }
  });

  it('the first gemini-pro keeps 8,192 output tokens; gemini-pro-latest, an alias of the newest Pro, the family\'s 65,536', () => {
    expect(['gemini-pro', 'gemini-pro-vision', 'gemini-1.5-pro', 'gemini-2.0-flash'].map((m) => modelFacts(m).outputLimit)).toEqual([8_192, 8_192, 8_192, 8_192]);
    expect(modelFacts('gemini-pro-latest').outputLimit).toBe(65_536);
  });

  it('Gemini 4 cache hits at 5 % of the input price', () => {
    const argon = pricesFor(store(), 'gemini-4-argon', 'default');
    // 40,000 x US$4 + 60,000 x 0.20 + 1,000 x 20 per 1M = US$0.16 + 0.012 + 0.02 = 0.192, 96,000 units.
    expect(costOf({ prompt_tokens: 100_000, completion_tokens: 1_000, cached_tokens: 60_000 }, argon)).toBe(96_000);
    // Hydrogen: 40,000 x US$1.50 + 60,000 x 0.075 + 1,000 x 7.50 = US$0.06 + 0.0045 + 0.0075 = 0.072, 36,000 units.
    expect(costOf({ prompt_tokens: 100_000, completion_tokens: 1_000, cached_tokens: 60_000 }, pricesFor(store(), 'gemini-4-hydrogen', 'default'))).toBe(36_000);
  });
});
