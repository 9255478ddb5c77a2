import { describe, expect, it } from 'vitest';
import { DEFAULT_CACHE_READ_RATIO, DEFAULT_CACHE_WRITE_1H_RATIO, DEFAULT_CACHE_WRITE_RATIO, DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../options/defaults.js';
import type { OptionStore } from '../options/option-store.js';
import { defaultRatios, modelFacts } from './model-catalogue.js';
import { costOf, describePrice, pricesFor } from './pricing.js';

/**
 * The Chinese vendors' newer models (billing/model-catalogue/chinese-vendors.ts, where each price's page is named):
 * ratio 1 = US$2 per 1M input tokens, completion = output / input, cacheRead = cache hit / input; CNY at 7 per US$.
 * They were billed at the unknown-model ratio (30, US$60 per 1M input) before.
 */
const DEFAULTS: Record<string, Record<string, number>> = {
  ModelRatio: DEFAULT_MODEL_RATIO,
  CompletionRatio: DEFAULT_COMPLETION_RATIO,
  CacheReadRatio: DEFAULT_CACHE_READ_RATIO,
  CacheWriteRatio: DEFAULT_CACHE_WRITE_RATIO,
  CacheWrite1hRatio: DEFAULT_CACHE_WRITE_1H_RATIO,
};
const store = (own: Record<string, Record<string, number>> = {}) => ({ ratios: (key: string) => own[key] ?? DEFAULTS[key] ?? {}, number: () => 500_000 }) as unknown as OptionStore;

/** [ratio, completion, cacheRead] of each model, and every alias that must carry its model's prices. */
const expectPrices = (prices: Record<string, [number, number | undefined, number | undefined]>) => {
  for (const [model, [ratio, completion, cacheRead]] of Object.entries(prices)) {
    expect([defaultRatios('ratio')[model], defaultRatios('completion')[model], defaultRatios('cacheRead')[model]], model).toEqual([ratio, completion, cacheRead]);
    expect(pricesFor(store(), model, 'default').unknownModel, model).toBe(false);
  }
};

describe('DeepSeek V4 (api-docs.deepseek.com Models & Pricing, US$ at the peak rate)', () => {
  it('deepseek-flash and its legacy names, deepseek-v4-pro: prices and the 384K output limit', () => {
    // Flash US$0.30 / 1.20 per 1M, cache hits 0.006; Pro 1.32 / 3.96, cache hits 0.044 (0.0334 of 1.32 rounds 0.03333 up).
    expectPrices({
      'deepseek-flash': [0.15, 4, 0.02],
      'deepseek-v4-flash': [0.15, 4, 0.02],
      'deepseek-v4-flash-vision-exp': [0.15, 4, 0.02],
      'deepseek-v4-pro': [0.66, 3, 0.0334],
    });
    for (const model of ['deepseek-flash', 'deepseek-v4-flash', 'deepseek-v4-pro']) expect(modelFacts(model).outputLimit, model).toBe(384_000);
    // The retired V3 names keep theirs.
    expect(modelFacts('deepseek-reasoner').outputLimit).toBe(64_000);
    expect(modelFacts('deepseek-chat').outputLimit).toBe(8_192);
  });

  it('a request costs what DeepSeek bills at peak', () => {
    // 100,000 prompt tokens of which 60,000 cache hits, 10,000 output tokens. Flash: 40,000 x 0.30 + 60,000 x 0.006 +
    // 10,000 x 1.20 = US$0.02436, 12,180 quota units at 500,000 a US$. Pro: 40,000 x 1.32 + 60,000 x 0.044 + 10,000 x
    // 3.96 = US$0.09504, 47,520 units; billed 47,523 (cache hits at 0.0334, not 0.03333).
    const usage = { prompt_tokens: 100_000, completion_tokens: 10_000, cached_tokens: 60_000 };
    expect(costOf(usage, pricesFor(store(), 'deepseek-flash', 'default'))).toBe(12_180);
    expect(costOf(usage, pricesFor(store(), 'deepseek-v4-pro', 'default'))).toBe(47_523);
  });
});

describe('Moonshot Kimi (platform.moonshot.ai price page, US$)', () => {
  it('kimi-k2.5 and kimi-k2-0905-preview at the US$ list', () => {
    // kimi-k2.5 US$0.60 / 3.00, cache hits 0.10; kimi-k2-0905-preview 0.60 / 2.50, cache hits 0.15.
    expectPrices({
      'kimi-k2.5': [0.3, 5, 0.1667],
      'kimi-k2-0905-preview': [0.3, 4.1667, 0.25],
    });
  });

  it('Kimi K2.6, K2.7 Code (and HighSpeed), K3 and K3.1 Pro (and HighSpeed) at the US$ list', () => {
    // US$ per 1M input / cache hit / output: K2.6 0.95 / 0.16 / 4.00 (4 / 0.95 = 4.21053 and 0.16 / 0.95 = 0.16842,
    // rounded up), K2.7 Code 0.95 / 0.19 / 4.00, HighSpeed 1.90 / 0.38 / 8.00, K3 3 / 0.30 / 15, K3.1 Pro 2 / 0.20 / 10,
    // HighSpeed 4 / 0.20 / 20; K3.1 Pro writes its cache at the input price (5 minutes) and twice it (1 hour).
    expectPrices({
      'kimi-k2.6': [0.475, 4.2106, 0.1685],
      'kimi-k2.7-code': [0.475, 4.2106, 0.2],
      'kimi-k2.7-code-highspeed': [0.95, 4.2106, 0.2],
      'kimi-k3': [1.5, 5, 0.1],
      'kimi-k3.1-pro': [1, 5, 0.1],
      'kimi-k3.1-pro-highspeed': [2, 5, 0.05],
    });
    for (const model of ['kimi-k3.1-pro', 'kimi-k3.1-pro-highspeed']) expect(pricesFor(store(), model, 'default'), model).toMatchObject({ cacheWriteRatio: 1, cacheWrite1hRatio: 2 });
    // The other Kimi models have no paid cache write: written tokens cost as input.
    expect(pricesFor(store(), 'kimi-k3', 'default')).toMatchObject({ cacheWriteRatio: 1, cacheWrite1hRatio: 1 });
  });

  it('a request costs what Moonshot lists, within rounding', () => {
    // 100,000 prompt tokens of which 60,000 cache hits, 10,000 output tokens. K2.6: 40,000 x 0.95 + 60,000 x 0.16 +
    // 10,000 x 4.00 = US$0.0876, 43,800 units at 500,000 a US$; billed (40,000 + 60,000 x 0.1685 + 10,000 x 4.2106) x
    // 0.475 = 43,802.6 -> 43,803. K3: 40,000 x 3 + 60,000 x 0.30 + 10,000 x 15 = US$0.288, 144,000 units exactly.
    const usage = { prompt_tokens: 100_000, completion_tokens: 10_000, cached_tokens: 60_000 };
    expect(costOf(usage, pricesFor(store(), 'kimi-k2.6', 'default'))).toBe(43_803);
    expect(costOf(usage, pricesFor(store(), 'kimi-k3', 'default'))).toBe(144_000);
    // [US$ per 1M input, cache hit, output, 5-minute cache write, 1-hour cache write] (a write at the input price where
    // the list has none); 30,000 uncached, 60,000 cache hits, 5,000 and 5,000 written, 10,000 output.
    const list: Record<string, [number, number, number, number, number]> = {
      'kimi-k2.6': [0.95, 0.16, 4, 0.95, 0.95],
      'kimi-k2.7-code': [0.95, 0.19, 4, 0.95, 0.95],
      'kimi-k2.7-code-highspeed': [1.9, 0.38, 8, 1.9, 1.9],
      'kimi-k3': [3, 0.3, 15, 3, 3],
      'kimi-k3.1-pro': [2, 0.2, 10, 2, 4],
      'kimi-k3.1-pro-highspeed': [4, 0.2, 20, 4, 8],
    };
    const written = { ...usage, cache_write_tokens: 5_000, cache_write_1h_tokens: 5_000 };
    for (const [model, [input, hit, output, write, write1h]] of Object.entries(list)) {
      const billedUsd = costOf(written, pricesFor(store(), model, 'default')) / 500_000;
      const listUsd = (30_000 * input + 60_000 * hit + 5_000 * write + 5_000 * write1h + 10_000 * output) / 1_000_000;
      expect(billedUsd, model).toBeGreaterThanOrEqual(listUsd);
      expect(billedUsd, model).toBeLessThan(listUsd * 1.001);
    }
    // K3.1 Pro: 30,000 x 2 + 60,000 x 0.20 + 5,000 x 2 + 5,000 x 4 + 10,000 x 10 = US$0.202, 101,000 units exactly.
    expect(costOf(written, pricesFor(store(), 'kimi-k3.1-pro', 'default'))).toBe(101_000);
  });
});

describe('Zhipu GLM (docs.z.ai price list in US$; docs.bigmodel.cn for GLM-5.3 in CNY)', () => {
  it('GLM-4.5 to GLM-5.3: input, output and cache-hit prices', () => {
    // US$ per 1M input / cached / output: GLM-5 1 / 0.2 / 3.2, GLM-5-Turbo 1.2 / 0.24 / 4.0, GLM-5-Code 1.2 / 0.3 / 5,
    // GLM-4.7, 4.6, 4.5 0.6 / 0.11 / 2.2, GLM-4.5-X 2.2 / 0.45 / 8.9, GLM-4.5-Air 0.2 / 0.03 / 1.1, GLM-4.5-AirX 1.1 /
    // 0.22 / 4.5, GLM-4.7-FlashX 0.07 / 0.01 / 0.4, GLM-4-32B-0414-128K 0.1 / 0.1; CNY per 1M: GLM-5.3 8 / 2 / 28,
    // GLM-5.3-Flash 0.8 / 0.23 / 2.8. Quotients are rounded up at the fourth decimal.
    expectPrices({
      'glm-5': [0.5, 3.2, 0.2],
      'glm-5-turbo': [0.6, 3.3334, 0.2],
      'glm-5-code': [0.6, 4.1667, 0.25],
      'glm-4.7': [0.3, 3.6667, 0.1834],
      'glm-4.6': [0.3, 3.6667, 0.1834],
      'glm-4.5': [0.3, 3.6667, 0.1834],
      'glm-4.5-x': [1.1, 4.0455, 0.2046],
      'glm-4.5-air': [0.1, 5.5, 0.15],
      'glm-4.5-airx': [0.55, 4.091, 0.2],
      'glm-4.7-flashx': [0.035, 5.7143, 0.1429],
      'glm-4-32b-0414-128k': [0.05, undefined, undefined],
      'glm-5.3': [0.5715, 3.5, 0.25],
      'glm-5.3-flash': [0.0572, 3.5, 0.2875],
    });
    // Free on Z.AI's list: priced at 0, not at the unknown-model ratio.
    for (const model of ['glm-4.7-flash', 'glm-4.5-flash']) expect(pricesFor(store(), model, 'default'), model).toMatchObject({ modelRatio: 0, unknownModel: false });
  });

  it('GLM-5.1 and GLM-5.2 at Z.AI\'s US$ list (third-party copies), a request within rounding', () => {
    // US$1.40 / 0.26 / 4.40 per 1M input / cached / output: 4.4 / 1.4 = 3.142857 and 0.26 / 1.4 = 0.185714, rounded up.
    expectPrices({
      'glm-5.1': [0.7, 3.1429, 0.1858],
      'glm-5.2': [0.7, 3.1429, 0.1858],
    });
    // 100,000 prompt tokens of which 60,000 cached, 10,000 output: 40,000 x 1.40 + 60,000 x 0.26 + 10,000 x 4.40 =
    // US$0.1156, 57,800 units; billed (40,000 + 60,000 x 0.1858 + 10,000 x 3.1429) x 0.7 = 57,803.9 -> 57,804.
    const usage = { prompt_tokens: 100_000, completion_tokens: 10_000, cached_tokens: 60_000 };
    for (const model of ['glm-5.1', 'glm-5.2']) expect(costOf(usage, pricesFor(store(), model, 'default')), model).toBe(57_804);
  });
});

describe('Alibaba Qwen3-Coder (help.aliyun.com Qwen-Coder page, mainland CNY, four prompt-length tiers)', () => {
  it('prices, snapshots, output limit, cache and the three long-context steps', () => {
    // The 0-32K tier: qwen3-coder-plus 4 / 16 CNY per 1M (4 / 7 / 2 = 0.28571, rounded up), qwen3-coder-flash 1 / 4.
    expectPrices({
      'qwen3-coder-plus': [0.2858, 4, undefined],
      'qwen3-coder-plus-2025-09-23': [0.2858, 4, undefined],
      'qwen3-coder-plus-2025-07-22': [0.2858, 4, undefined],
      'qwen3-coder-flash': [0.0715, 4, undefined],
      'qwen3-coder-flash-2025-07-28': [0.0715, 4, undefined],
    });
    for (const model of ['qwen3-coder-plus', 'qwen3-coder-plus-2025-09-23', 'qwen3-coder-flash']) expect(modelFacts(model).outputLimit, model).toBe(65_536);
    expect(pricesFor(store(), 'qwen3-coder-plus', 'default')).toMatchObject({ cacheReadRatio: 0.2, cacheWriteRatio: 1.25 });
    expect(pricesFor(store(), 'qwen3-coder-flash-2025-07-28', 'default').longContext).toEqual([
      { above: 32_000, input: 1.5, output: 1.5 },
      { above: 128_000, input: 2.5, output: 2.5 },
      { above: 256_000, input: 5, output: 6.25 },
    ]);
    // The older Qwen models have no step.
    expect(pricesFor(store(), 'qwen-plus', 'default').longContext).toBeUndefined();
  });

  it('qwen3-coder-plus at the 128,000-token boundary and one token above', () => {
    const plus = pricesFor(store(), 'qwen3-coder-plus', 'default');
    const at = (prompt: number) => ({ prompt_tokens: prompt, completion_tokens: 1_000, cached_tokens: 28_000 });
    // 128,000 input tokens (28,000 cache hits at 20 %), 1,000 output, at the 32K-128K step (x1.5):
    // (100,000 + 28,000 x 0.2) x 1.5 + 1,000 x 4 x 1.5 = 164,400 x 0.2858 = 46,985.52 -> 46,986 units = US$0.093972 =
    // 0.6578 CNY; Alibaba: 100,000 x 6 + 28,000 x 1.2 + 1,000 x 24 = 0.6576 CNY.
    expect(costOf(at(128_000), plus)).toBe(46_986);
    // One token more, at the 128K-256K step (x2.5): (105,601 x 2.5 + 4,000 x 2.5) x 0.2858 = 78,309.91 -> 78,310 units =
    // 1.09634 CNY; Alibaba: 100,001 x 10 + 28,000 x 2 + 1,000 x 40 = 1.09601 CNY.
    expect(costOf(at(128_001), plus)).toBe(78_310);
    expect(describePrice(plus, at(128_001), 78_310)).toContain('长上下文（输入超过 128000）输入 × 2.5、输出 × 2.5');
  });

  it('every prompt length is billed its own tier: at least Alibaba\'s price, and within 0.2 % of it', () => {
    // [input tokens, CNY per 1M input, CNY per 1M output] inside and at the edges of each of Alibaba's four tiers;
    // 2,000 output tokens, no cache. Billed US$ (quota / 500,000) x 7 against Alibaba's CNY (the ratio rounded up).
    const tiers: Record<string, Array<[number, number, number]>> = {
      'qwen3-coder-plus': [[10_000, 4, 16], [32_000, 4, 16], [32_001, 6, 24], [100_000, 6, 24], [128_000, 6, 24], [200_000, 10, 40], [256_000, 10, 40], [256_001, 20, 200], [900_000, 20, 200]],
      'qwen3-coder-flash': [[10_000, 1, 4], [100_000, 1.5, 6], [200_000, 2.5, 10], [900_000, 5, 25]],
    };
    for (const [model, rows] of Object.entries(tiers)) {
      const prices = pricesFor(store(), model, 'default');
      for (const [prompt, input, output] of rows) {
        const billedCny = (costOf({ prompt_tokens: prompt, completion_tokens: 2_000 }, prices) / 500_000) * 7;
        const alibabaCny = (prompt * input + 2_000 * output) / 1_000_000;
        expect(billedCny, `${model} ${prompt}`).toBeGreaterThanOrEqual(alibabaCny);
        expect(billedCny, `${model} ${prompt}`).toBeLessThan(alibabaCny * 1.002);
      }
    }
  });
});

describe('Alibaba Qwen3-Max and Qwen3.5 to Qwen3.8 (mainland CNY as third-party catalogues copy it, prompt-length tiers)', () => {
  it('prices, cache, output limits and long-context steps', () => {
    // The first tier, CNY per 1M input / output, ratio = CNY / 14 rounded up: qwen3-max 2.5 / 10, qwen3.5-plus 0.8 / 4.8,
    // qwen3.5-flash 0.2 / 2, qwen3.6-plus 2 / 12, qwen3.6-flash 1.2 / 7.2, qwen3.6-max-preview 9 / 54, qwen3.7-plus 2 / 8,
    // qwen3.7-flash 0.2 / 0.8, qwen3.7-max 12 / 48 (the dearer of two copies), qwen3.8-max 12 / 36, qwen3.8-flash 0.8 / 2.7.
    expectPrices({
      'qwen3-max': [0.1786, 4, undefined],
      'qwen3.5-plus': [0.0572, 6, undefined],
      'qwen3.5-flash': [0.0143, 10, undefined],
      'qwen3.6-plus': [0.1429, 6, undefined],
      'qwen3.6-flash': [0.0858, 6, undefined],
      'qwen3.6-max-preview': [0.6429, 6, undefined],
      'qwen3.7-plus': [0.1429, 4, undefined],
      'qwen3.7-flash': [0.0143, 4, undefined],
      'qwen3.7-max': [0.8572, 4, undefined],
      'qwen3.8-max': [0.8572, 3, undefined],
      'qwen3.8-flash': [0.0572, 3.375, undefined],
    });
    // Cache hits at 20 % (implicit), writes at 125 %, as for Qwen3-Coder; an aggregator's name is the same model.
    for (const model of ['qwen3-max', 'qwen3.5-plus', 'qwen3.8-flash', 'dashscope/qwen3.7-max']) {
      expect(pricesFor(store(), model, 'default'), model).toMatchObject({ cacheReadRatio: 0.2, cacheWriteRatio: 1.25, unknownModel: false });
    }
    expect(['qwen3-max', 'qwen3.7-flash', 'qwen3.8-flash', 'qwen3.8-max', 'qwen3.5-plus', 'qwen3.7-max'].map((model) => modelFacts(model).outputLimit)).toEqual([65_536, 65_536, 131_072, 131_072, undefined, undefined]);
    expect(pricesFor(store(), 'qwen3-max', 'default').longContext).toEqual([
      { above: 32_000, input: 1.6, output: 1.6 },
      { above: 128_000, input: 2.8, output: 2.8 },
    ]);
    // One price at any length: no step; the coders keep theirs; a model the family does not name gets none of its facts.
    for (const model of ['qwen3.7-plus', 'qwen3.7-max', 'qwen3.8-max', 'qwen3.8-flash']) expect(pricesFor(store(), model, 'default').longContext, model).toBeUndefined();
    expect(modelFacts('qwen3-coder-plus').outputLimit).toBe(65_536);
    expect(modelFacts('qwen3-max-preview')).toEqual(modelFacts('no-such-model'));
  });

  it('a cached request on qwen3-max in its 32K-128K tier', () => {
    // 100,000 input tokens (50,000 cache hits at 20 %), 2,000 output, at the 32K-128K step (x1.6): (50,000 + 50,000 x 0.2
    // + 2,000 x 4) x 1.6 x 0.1786 = 19,431.68 -> 19,432 units = 0.272048 CNY; Alibaba: 50,000 x 4 + 50,000 x 0.8 + 2,000
    // x 16 = 0.272 CNY.
    expect(costOf({ prompt_tokens: 100_000, completion_tokens: 2_000, cached_tokens: 50_000 }, pricesFor(store(), 'qwen3-max', 'default'))).toBe(19_432);
  });

  it("every prompt length is billed its own tier: at least Alibaba's price, and within 0.2 % of it", () => {
    // [input tokens, CNY per 1M input, CNY per 1M output] inside and at the edges of each tier; 2,000 output tokens, no
    // cache. Billed US$ (quota / 500,000) x 7 against Alibaba's CNY.
    const tiers: Record<string, Array<[number, number, number]>> = {
      'qwen3-max': [[10_000, 2.5, 10], [32_000, 2.5, 10], [32_001, 4, 16], [128_000, 4, 16], [128_001, 7, 28], [250_000, 7, 28]],
      'qwen3.5-plus': [[100_000, 0.8, 4.8], [128_000, 0.8, 4.8], [128_001, 2, 12], [256_000, 2, 12], [256_001, 4, 24], [900_000, 4, 24]],
      'qwen3.5-flash': [[100_000, 0.2, 2], [128_000, 0.2, 2], [128_001, 0.8, 8], [256_000, 0.8, 8], [256_001, 1.2, 12], [900_000, 1.2, 12]],
      'qwen3.6-plus': [[100_000, 2, 12], [256_000, 2, 12], [256_001, 8, 48], [900_000, 8, 48]],
      'qwen3.6-flash': [[100_000, 1.2, 7.2], [256_000, 1.2, 7.2], [256_001, 4.8, 28.8], [900_000, 4.8, 28.8]],
      'qwen3.6-max-preview': [[100_000, 9, 54], [128_000, 9, 54], [128_001, 15, 90], [250_000, 15, 90]],
      'qwen3.7-plus': [[100_000, 2, 8], [900_000, 2, 8]],
      'qwen3.7-flash': [[32_000, 0.2, 0.8], [32_001, 0.6, 2.4], [256_000, 0.6, 2.4], [256_001, 1.2, 4.8], [900_000, 1.2, 4.8]],
      'qwen3.7-max': [[100_000, 12, 48], [900_000, 12, 48]],
      'qwen3.8-max': [[100_000, 12, 36], [900_000, 12, 36]],
      'qwen3.8-flash': [[100_000, 0.8, 2.7], [900_000, 0.8, 2.7]],
    };
    for (const [model, rows] of Object.entries(tiers)) {
      const prices = pricesFor(store(), model, 'default');
      for (const [prompt, input, output] of rows) {
        const billedCny = (costOf({ prompt_tokens: prompt, completion_tokens: 2_000 }, prices) / 500_000) * 7;
        const alibabaCny = (prompt * input + 2_000 * output) / 1_000_000;
        expect(billedCny, `${model} ${prompt}`).toBeGreaterThanOrEqual(alibabaCny);
        expect(billedCny, `${model} ${prompt}`).toBeLessThan(alibabaCny * 1.002);
      }
    }
  });
});
