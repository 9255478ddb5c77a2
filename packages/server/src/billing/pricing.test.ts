import { describe, expect, it } from 'vitest';
import type { OptionStore } from '../options/option-store.js';
import { outputLimitOf } from './model-limits.js';
import { PROVIDER_CATALOGUE } from '@model-relay/contract';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../options/defaults.js';
import { priceNames, pricesFor } from './pricing.js';

/** No ratio configured: the family defaults decide. */
const options = { ratios: () => ({}) } as unknown as OptionStore;

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
  } as unknown as OptionStore;

  it('a model a cloud or an aggregator renames is priced as the provider names it; an exact entry wins', () => {
    expect(priceNames('us.anthropic.claude-sonnet-4-20250514-v1:0')).toContain('claude-sonnet-4-20250514');
    expect(priceNames('claude-3-5-sonnet-v2@20241022')).toContain('claude-3-5-sonnet-20241022');
    expect(priceNames('claude-sonnet-4-5@20250929')).toContain('claude-sonnet-4-5-20250929');
    expect(priceNames('openai/gpt-4o')).toContain('gpt-4o');
    expect(priceNames('eu.amazon.nova-lite-v1:0')).toContain('amazon.nova-lite-v1:0');
    expect(pricesFor(defaults, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'default')).toMatchObject({ modelRatio: 1.5, completionRatio: 5, unknownModel: false });
    expect(pricesFor(defaults, 'claude-opus-4-1@20250805', 'default')).toMatchObject({ modelRatio: 7.5, completionRatio: 5 });
    const own = { ratios: (key: string) => (key === 'ModelRatio' ? { 'claude-sonnet-4@20250514': 2, 'claude-sonnet-4-20250514': 1.5 } : {}) } as unknown as OptionStore;
    expect(pricesFor(own, 'claude-sonnet-4@20250514', 'default').modelRatio).toBe(2);
    expect(pricesFor(own, '__proto__', 'default').unknownModel).toBe(true);
  });

  it("every default model of the major providers' channel types has a price (none falls to the unknown-model ratio)", () => {
    // OpenAI, Azure, Anthropic, Gemini, AWS Bedrock, Vertex AI, Moonshot, Mistral, Groq, DeepSeek.
    const priced = [1, 3, 14, 24, 33, 42, 25, 28, 29, 36];
    const unpriced = PROVIDER_CATALOGUE.filter((p) => priced.includes(p.value))
      .flatMap((p) => p.models.map((model) => ({ type: p.value, model })))
      .filter(({ model }) => !/embedding-004$/.test(model) && pricesFor(defaults, model, 'default').unknownModel);
    expect(unpriced).toEqual([]);
  });
});
