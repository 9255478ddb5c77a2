import { describe, expect, it } from 'vitest';
import { OptionStore } from '../options/option-store.js';
import { outputLimitOf } from './model-limits.js';
import { PROVIDER_CATALOGUE } from '@model-relay/contract';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../options/defaults.js';
import { costOf, priceNames, pricesFor } from './pricing.js';

/** No ratio configured: the family defaults decide. */
const options = { ratios: () => ({}), number: () => 500_000 } as unknown as OptionStore;

describe('model families behind provider prefixes', () => {
  it("Bedrock's Claude ids (base, inference profile, ARN) get Claude's cache prices and output limits", () => {
    for (const model of ['anthropic.claude-3-7-sonnet-20250219-v1:0', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-20250514-v1:0']) {
      expect(pricesFor(options, model, 'default')).toMatchObject({ cacheReadRatio: 0.1, cacheWriteRatio: 1.25, cacheWrite1hRatio: 2 });
      expect(outputLimitOf(model)).toBe(64_000);
    }
    expect(outputLimitOf('anthropic.claude-3-haiku-20240307-v1:0')).toBe(4_096);
  });

  it('other Bedrock families keep the neutral defaults', () => {
    expect(pricesFor(options, 'amazon.nova-lite-v1:0', 'default')).toMatchObject({ cacheReadRatio: 1, cacheWriteRatio: 1, cacheWrite1hRatio: 1 });
  });
});

describe('default prices', () => {
  const defaults = {
    ratios: (key: string) => ({ ModelRatio: DEFAULT_MODEL_RATIO, CompletionRatio: DEFAULT_COMPLETION_RATIO })[key] ?? {},
    number: () => 500_000,
  } as unknown as OptionStore;

  it('a model a cloud or an aggregator renames is priced as the provider names it; an exact entry wins', () => {
    expect(priceNames('us.anthropic.claude-sonnet-4-20250514-v1:0')).toContain('claude-sonnet-4-20250514');
    expect(priceNames('claude-3-5-sonnet-v2@20241022')).toContain('claude-3-5-sonnet-20241022');
    expect(priceNames('claude-sonnet-4-5@20250929')).toContain('claude-sonnet-4-5-20250929');
    expect(priceNames('openai/gpt-4o')).toContain('gpt-4o');
    expect(priceNames('eu.amazon.nova-lite-v1:0')).toContain('amazon.nova-lite-v1:0');
    expect(pricesFor(defaults, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'default')).toMatchObject({ modelRatio: 1.5, completionRatio: 5, unknownModel: false });
    expect(pricesFor(defaults, 'claude-opus-4-1@20250805', 'default')).toMatchObject({ modelRatio: 7.5, completionRatio: 5 });
    const own = { ratios: (key: string) => (key === 'ModelRatio' ? { 'claude-sonnet-4@20250514': 2, 'claude-sonnet-4-20250514': 1.5 } : {}), number: () => 500_000 } as unknown as OptionStore;
    expect(pricesFor(own, 'claude-sonnet-4@20250514', 'default').modelRatio).toBe(2);
    expect(pricesFor(own, '__proto__', 'default').unknownModel).toBe(true);
  });

  /**
   * Catalogue default models deliberately left without a default price, each group with its reason. Every other default
   * model of every channel type must have one, so a model added to the catalogue without a price fails the test below.
   * A model priced later must leave this list (the second test says so).
   */
  const UNPRICED_DEFAULTS: Array<[reason: string, models: string[]]> = [
    ['app pseudo-models: the app or knowledge base decides what a call costs', ['fastgpt-app']],
    ['Ollama runs local models: there is no list price', ['llama3.1', 'qwen2.5', 'mistral', 'nomic-embed-text']],
    ['no published per-token price found', ['PaLM-2']],
  ];
  const deliberatelyUnpriced = new Set(UNPRICED_DEFAULTS.flatMap(([, models]) => models));

  it('every default model of every channel type has a price (none falls to the unknown-model ratio) unless listed as deliberately unpriced', () => {
    const unpriced = PROVIDER_CATALOGUE.flatMap((p) => p.models.map((model) => ({ type: p.value, model })))
      .filter(({ model }) => !deliberatelyUnpriced.has(model) && pricesFor(defaults, model, 'default').unknownModel);
    expect(unpriced).toEqual([]);
  });

  it('the deliberately unpriced list names only catalogue models that still have no price', () => {
    const catalogue = new Set(PROVIDER_CATALOGUE.flatMap((p) => p.models));
    const stale = [...deliberatelyUnpriced].filter((model) => !catalogue.has(model) || !pricesFor(defaults, model, 'default').unknownModel);
    expect(stale).toEqual([]);
  });

  it('a model its vendor gives away is priced at zero, not unknown; aggregator and Workers AI ids are priced as listed', () => {
    const usage = { prompt_tokens: 1000, completion_tokens: 1000 };
    for (const model of ['glm-4-flash', 'Spark-Lite']) {
      const prices = pricesFor(defaults, model, 'default');
      expect(prices).toMatchObject({ modelRatio: 0, unknownModel: false });
      expect(costOf(usage, prices)).toBe(0);
    }
    expect(pricesFor(defaults, 'anthropic/claude-3.5-sonnet', 'default')).toMatchObject({ modelRatio: 1.5, completionRatio: 5, cacheReadRatio: 0.1 });
    expect(pricesFor(defaults, '@cf/meta/llama-3.1-8b-instruct', 'default')).toMatchObject({ modelRatio: 0.141, completionRatio: 2.933 });
  });

  it("one-api's Spark names cost what Spark's own names cost; one open model is priced per host, not by its bare name", () => {
    expect(pricesFor(defaults, 'SparkDesk-v3.5', 'default')).toEqual(pricesFor(defaults, 'Spark-Max', 'default'));
    expect(pricesFor(defaults, 'SparkDesk-v4.0', 'default')).toEqual(pricesFor(defaults, 'Spark-4.0-Ultra', 'default'));
    expect(pricesFor(defaults, 'Spark-Max', 'default')).toMatchObject({ modelRatio: 4.2857, unknownModel: false });
    // Novita's and Workers AI's Llama 3.1 8B share a bare name but not a price.
    expect(pricesFor(defaults, 'meta-llama/llama-3.1-8b-instruct', 'default')).toMatchObject({ modelRatio: 0.01, completionRatio: 2.5 });
    expect(pricesFor(defaults, '@cf/meta/llama-3.1-8b-instruct', 'default')).toMatchObject({ modelRatio: 0.141, completionRatio: 2.933 });
  });
});

describe('prices are remembered until an option changes', () => {
  it('a changed ratio prices the next request', async () => {
    const repository = { all: async () => new Map(), set: async () => {} } as unknown as ConstructorParameters<typeof OptionStore>[0];
    const store = new OptionStore(repository);
    await store.set('ModelRatio', JSON.stringify({ 'my-model': 2 }));
    expect(pricesFor(store, 'my-model', 'vip')).toMatchObject({ modelRatio: 2, groupRatio: 1 });
    expect(pricesFor(store, 'my-model', 'vip')).toBe(pricesFor(store, 'my-model', 'vip'));
    await store.set('ModelRatio', JSON.stringify({ 'my-model': 3 }));
    await store.set('GroupRatio', JSON.stringify({ vip: 0.5 }));
    expect(pricesFor(store, 'my-model', 'vip')).toMatchObject({ modelRatio: 3, groupRatio: 0.5 });
    await store.set('CacheReadRatio', JSON.stringify({ 'my-model': 0.25 }));
    expect(pricesFor(store, 'my-model', 'vip').cacheReadRatio).toBe(0.25);
  });
});
