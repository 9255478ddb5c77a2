import { describe, expect, it } from 'vitest';
import type { OptionStore } from '../options/option-store.js';
import { outputLimitOf } from './model-limits.js';
import { pricesFor } from './pricing.js';

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
