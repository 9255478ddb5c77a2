import { describe, expect, it } from 'vitest';
import { readOpenAiUsage } from './response.js';

/** The usage reports of the vendors that speak OpenAI's format, each as its own documentation gives it. */
describe('readOpenAiUsage', () => {
  it('OpenAI: the reasoning is part of completion_tokens (the total is prompt + completion)', () => {
    expect(readOpenAiUsage({ prompt_tokens: 9, completion_tokens: 2_004, total_tokens: 2_013, completion_tokens_details: { reasoning_tokens: 2_000 }, prompt_tokens_details: { cached_tokens: 0 } })).toEqual({
      prompt_tokens: 9,
      completion_tokens: 2_004,
      reasoning_tokens: 2_000,
    });
  });

  it('xAI: the reasoning is counted apart from completion_tokens but in the total, and is added to the completion', () => {
    // The figures of a real grok-3-mini answer (docs.x.ai, consumption and rate limits: reasoning outside completion_tokens).
    expect(readOpenAiUsage({ prompt_tokens: 10_120, completion_tokens: 1_499, total_tokens: 14_428, completion_tokens_details: { reasoning_tokens: 2_809 } })).toEqual({
      prompt_tokens: 10_120,
      completion_tokens: 4_308,
      reasoning_tokens: 2_809,
    });
    // A one-token answer after 386 tokens of thought is billed 387 output tokens, not 1.
    expect(readOpenAiUsage({ prompt_tokens: 20, completion_tokens: 1, total_tokens: 407, completion_tokens_details: { reasoning_tokens: 386 } })).toMatchObject({ completion_tokens: 387, reasoning_tokens: 386 });
  });

  it('cache reads in each vendor\'s place: prompt_tokens_details (OpenAI), prompt_cache_hit_tokens (DeepSeek), cached_tokens (Moonshot)', () => {
    expect(readOpenAiUsage({ prompt_tokens: 1_000, completion_tokens: 10, total_tokens: 1_010, prompt_tokens_details: { cached_tokens: 768 } })).toMatchObject({ cached_tokens: 768 });
    expect(readOpenAiUsage({ prompt_tokens: 1_000, completion_tokens: 10, total_tokens: 1_010, prompt_cache_hit_tokens: 640, prompt_cache_miss_tokens: 360 })).toMatchObject({ cached_tokens: 640 });
    expect(readOpenAiUsage({ prompt_tokens: 1_000, completion_tokens: 10, total_tokens: 1_010, cached_tokens: 512 })).toMatchObject({ cached_tokens: 512 });
  });

  it("OpenAI's own cache writes (GPT-5.6 and later): prompt_tokens_details.cache_write_tokens, one number for both lifetimes", () => {
    expect(readOpenAiUsage({ prompt_tokens: 2_000, completion_tokens: 40, total_tokens: 2_040, prompt_tokens_details: { cached_tokens: 300, cache_write_tokens: 1_200 } })).toEqual({
      prompt_tokens: 2_000,
      completion_tokens: 40,
      cached_tokens: 300,
      cache_write_tokens: 1_200,
      // For 30 minutes or 12 hours: settled by what the request asked (billing/usage.ts writesAsAsked).
      cache_writes_unsplit: true,
    });
  });

  it('DashScope\'s explicit cache: the tokens written are cache writes, the tokens read cache reads', () => {
    expect(readOpenAiUsage({ prompt_tokens: 3_019, completion_tokens: 104, total_tokens: 3_123, prompt_tokens_details: { cached_tokens: 0, cache_creation_input_tokens: 1_500, cache_type: 'ephemeral' } })).toEqual({
      prompt_tokens: 3_019,
      completion_tokens: 104,
      cache_write_tokens: 1_500,
    });
  });
});
