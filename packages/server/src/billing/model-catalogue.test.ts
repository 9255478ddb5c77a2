import { describe, expect, it } from 'vitest';
import { canonicalModelName, defaultRatios, familyOf, MODEL_CATALOGUE, modelFacts } from './model-catalogue.js';

/** Every name the catalogue prices, with the entry that lists it. */
const listed = MODEL_CATALOGUE.flatMap((family) => Object.entries(family.models).flatMap(([model, prices]) => [model, ...(prices.aliases ?? [])].map((name) => ({ name, family }))));

describe('the model catalogue', () => {
  it("every entry's models and aliases resolve to it: a family claims its own, no family claims a vendor list's", () => {
    const strays = listed.filter(({ name, family }) => familyOf(canonicalModelName(name)) !== (family.match ? family : undefined));
    expect(strays.map(({ name, family }) => `${name} (${family.family})`)).toEqual([]);
  });

  it('no two entries claim one name', () => {
    const seen = new Map<string, string>();
    const twice = listed.filter(({ name, family }) => seen.has(name) || !seen.set(name, family.family));
    expect(twice.map(({ name }) => name)).toEqual([]);
    for (const { name } of listed) {
      const claimants = MODEL_CATALOGUE.filter((family) => family.match?.test(canonicalModelName(name)));
      expect(claimants.length, name).toBeLessThanOrEqual(1);
    }
  });

  it('family facts need a family: an entry without `match` has prices only', () => {
    const idle = MODEL_CATALOGUE.filter((family) => !family.match && (family.cache || family.outputLimit || family.media || family.variants));
    expect(idle.map((family) => family.family)).toEqual([]);
  });

  it("a model's facts come from its one entry, under every name a cloud or an aggregator gives it", () => {
    const deepseek = MODEL_CATALOGUE.find((family) => family.family === 'DeepSeek')!;
    for (const model of ['deepseek-reasoner', 'deepseek/deepseek-reasoner', 'us.deepseek.r1-v1:0']) expect(familyOf(canonicalModelName(model))).toBe(deepseek);
    expect(modelFacts('deepseek-reasoner')).toMatchObject({ cache: { read: 0.1 }, outputLimit: 64_000 });
    expect(modelFacts('deepseek-chat').outputLimit).toBe(8_192);
    expect(defaultRatios('ratio')['deepseek-reasoner']).toBe(deepseek.models['deepseek-reasoner'].ratio);
    expect(modelFacts('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toEqual(modelFacts('claude-sonnet-4-5@20250929'));
  });

  it("Claude's output limits: 128K from Opus 4.6, Sonnet 4.6 and the 5 generation, under every cloud's name; a model of no listed generation keeps the family's", () => {
    for (const model of ['claude-opus-4-6', 'claude-opus-4-7', 'anthropic.claude-opus-4-8', 'claude-sonnet-4-6', 'claude-opus-5', 'claude-opus-5-5', 'claude-sonnet-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-fable-5', 'claude-fable-5-2', 'claude-mythos-5-1']) {
      expect(modelFacts(model).outputLimit, model).toBe(128_000);
    }
    expect(modelFacts('claude-sonnet-4-5-20250929').outputLimit).toBe(64_000);
    expect(modelFacts('claude-opus-4-1-20250805').outputLimit).toBe(32_000);
    expect(modelFacts('claude-2.1').outputLimit).toBe(8_192);
    // Their prices, US$ per 1M input (ratio 1 = US$2) and output: Opus 5.5 4 / 20, Sonnet 5.5 2 / 10, Haiku 5.5 0.10 / 0.50, Fable 5.2 8 / 40.
    expect(['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-fable-5-2'].map((m) => [defaultRatios('ratio')[m], defaultRatios('completion')[m]])).toEqual([[2, 5], [1, 5], [0.05, 5], [4, 5]]);
  });

  it("OpenAI's GPT-5 generations after GPT-5: their prices, snapshots and output limits", () => {
    // US$ per 1M input (ratio 1 = US$2) and output: 5.1 1.25 / 10, 5.2 and 5.3 Codex 1.75 / 14, 5.4 2.50 / 15, 5.4 mini
    // 0.75 / 4.50, 5.4 nano 0.20 / 1.25, 5.5 5 / 30, 5.6 Sol 5 / 30, Terra 2 / 12, Luna 0.20 / 1.20, 5.2 Pro 21 / 168,
    // 5.4 and 5.5 Pro 30 / 180, 5.1 Codex Mini 0.25 / 2.
    const prices: Record<string, [number, number]> = {
      'gpt-5.1': [0.625, 8],
      'gpt-5.1-codex': [0.625, 8],
      'gpt-5.1-codex-max': [0.625, 8],
      'gpt-5.1-codex-mini': [0.125, 8],
      'gpt-5.2': [0.875, 8],
      'gpt-5.2-codex': [0.875, 8],
      'gpt-5.2-pro': [10.5, 8],
      'gpt-5.3-codex': [0.875, 8],
      'gpt-5.3-chat-latest': [0.875, 8],
      'gpt-5.4': [1.25, 6],
      'gpt-5.4-mini': [0.375, 6],
      'gpt-5.4-nano': [0.1, 6.25],
      'gpt-5.4-pro': [15, 6],
      'gpt-5.5': [2.5, 6],
      'gpt-5.5-pro': [15, 6],
      'gpt-5.6-sol': [2.5, 6],
      'gpt-5.6-terra': [1, 6],
      'gpt-5.6-luna': [0.1, 6],
    };
    for (const [model, [ratio, completion]] of Object.entries(prices)) {
      expect([defaultRatios('ratio')[model], defaultRatios('completion')[model]], model).toEqual([ratio, completion]);
      expect(modelFacts(model).outputLimit, model).toBe(model.includes('-chat') ? 16_384 : 128_000);
    }
    // Dated snapshots and the gpt-5.6 alias (Sol) carry their model's prices.
    for (const [alias, model] of [['gpt-5.1-2025-11-13', 'gpt-5.1'], ['gpt-5.4-nano-2026-03-17', 'gpt-5.4-nano'], ['gpt-5.5-2026-04-23', 'gpt-5.5'], ['gpt-5.6', 'gpt-5.6-sol']]) {
      expect(defaultRatios('ratio')[alias], alias).toBe(defaultRatios('ratio')[model]);
      expect(defaultRatios('completion')[alias], alias).toBe(defaultRatios('completion')[model]);
    }
    // Cached input: the family's 10 %, but the Pro models have no cached price (billed as input); GPT-5.6 writes its
    // cache at 1.25 times the input price.
    expect(['gpt-5.2-pro', 'gpt-5.4-pro', 'gpt-5.5-pro'].map((model) => defaultRatios('cacheRead')[model])).toEqual([1, 1, 1]);
    expect(defaultRatios('cacheRead')['gpt-5.5']).toBeUndefined();
    expect(modelFacts('gpt-5.6-terra').cache).toEqual({ read: 0.1, write: 1.25, write1h: 1.25 });
    expect(modelFacts('gpt-5.5').cache).toEqual({ read: 0.1, write: 1, write1h: 1 });
    // Fast mode: GPT-5.6 twice every price, GPT-5.5 2.5 times, the rest of the family twice.
    expect(['gpt-5.6-sol', 'gpt-5.6-luna', 'gpt-5.6', 'gpt-5.5', 'gpt-5.4', 'gpt-5.3-codex'].map((model) => modelFacts(model).fastMode)).toEqual([2, 2, 2, 2.5, 2, 2]);
    // The 1,050,000-token window of GPT-5.4 and later bounds what a prior response can add; 5.4 mini keeps its own.
    expect(['gpt-5.4', 'gpt-5.5-pro', 'gpt-5.6-luna', 'gpt-5.2'].map((model) => modelFacts(model).media?.context)).toEqual([1_050_000, 1_050_000, 1_050_000, 400_000]);
    expect(modelFacts('gpt-5.4-mini').media?.image).toEqual({ patches: 1.62 });
    expect(modelFacts('gpt-5.2-chat-latest').outputLimit).toBe(16_384);
  });

  it("an alias carries its model's default prices", () => {
    expect(defaultRatios('ratio')['gpt-4o-2024-08-06']).toBe(defaultRatios('ratio')['gpt-4o']);
    expect(defaultRatios('cacheRead')['gpt-4o-2024-08-06']).toBe(0.5);
    expect(defaultRatios('reasoning')).toEqual({});
  });
});
