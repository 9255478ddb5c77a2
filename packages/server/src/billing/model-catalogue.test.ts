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

  it("Claude's output limits: 128K from Opus 4.6 and the 5 generation, under every cloud's name; a model of no listed generation keeps the family's", () => {
    for (const model of ['claude-opus-4-6', 'claude-opus-4-7', 'anthropic.claude-opus-4-8', 'claude-opus-5', 'claude-opus-5-5', 'claude-sonnet-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-fable-5', 'claude-fable-5-2', 'claude-mythos-5-1']) {
      expect(modelFacts(model).outputLimit, model).toBe(128_000);
    }
    expect(modelFacts('claude-sonnet-4-6').outputLimit).toBe(64_000);
    expect(modelFacts('claude-opus-4-1-20250805').outputLimit).toBe(32_000);
    expect(modelFacts('claude-2.1').outputLimit).toBe(8_192);
    // Their prices, US$ per 1M input (ratio 1 = US$2) and output: Opus 5.5 4 / 20, Sonnet 5.5 2 / 10, Haiku 5.5 0.10 / 0.50, Fable 5.2 8 / 40.
    expect(['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-fable-5-2'].map((m) => [defaultRatios('ratio')[m], defaultRatios('completion')[m]])).toEqual([[2, 5], [1, 5], [0.05, 5], [4, 5]]);
  });

  it("an alias carries its model's default prices", () => {
    expect(defaultRatios('ratio')['gpt-4o-2024-08-06']).toBe(defaultRatios('ratio')['gpt-4o']);
    expect(defaultRatios('cacheRead')['gpt-4o-2024-08-06']).toBe(0.5);
    expect(defaultRatios('reasoning')).toEqual({});
  });
});
