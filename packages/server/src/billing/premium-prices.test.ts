import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../options/defaults.js';
import type { OptionStore } from '../options/option-store.js';
import { anthropicDialect } from '../relay/dialects/anthropic/index.js';
import { openAiChatDialect } from '../relay/dialects/openai-chat/index.js';
import { openAiResponsesDialect } from '../relay/dialects/openai-responses/index.js';
import { planReservation } from './plan-reservation.js';
import { costOf, describePrice, pricesFor } from './pricing.js';

/** Prices above the standard: long-context prices and fast mode (docs/ledger.md, units and prices). */
const DEFAULTS: Record<string, Record<string, number>> = { ModelRatio: DEFAULT_MODEL_RATIO, CompletionRatio: DEFAULT_COMPLETION_RATIO };
const store = (own: Record<string, Record<string, number>> = {}) => ({ ratios: (key: string) => own[key] ?? DEFAULTS[key] ?? {}, number: () => 500_000 }) as unknown as OptionStore;

describe('long-context prices', () => {
  it('Claude above 200K input tokens (cache reads and writes included): input prices x2, output x1.5', () => {
    const sonnet = pricesFor(store(), 'claude-sonnet-4-5-20250929', 'default');
    expect(sonnet.longContext).toEqual({ above: 200_000, input: 2, output: 1.5 });
    const at = (prompt: number) => ({ prompt_tokens: prompt, completion_tokens: 1_000, cached_tokens: 100_000 });
    expect(costOf(at(200_000), sonnet)).toBe(Math.ceil((100_000 + 100_000 * 0.1 + 1_000 * 5) * 1.5));
    expect(costOf(at(250_000), sonnet)).toBe(Math.ceil(((150_000 + 100_000 * 0.1) * 2 + 1_000 * 5 * 1.5) * 1.5));
    expect(describePrice(sonnet, at(250_000), 1)).toContain('长上下文（输入超过 200000）输入 × 2、输出 × 1.5');
    expect(describePrice(sonnet, at(200_000), 1)).not.toContain('长上下文');
  });

  it('Claude Haiku 5.5 above a 100K-token prompt: every price x5, output included; the rest of its family above 200K', () => {
    const haiku = pricesFor(store(), 'claude-haiku-5-5', 'default');
    expect(haiku).toMatchObject({ modelRatio: 0.05, completionRatio: 5, cacheReadRatio: 0.1, longContext: { above: 100_000, input: 5, output: 5 } });
    const at = (prompt: number) => ({ prompt_tokens: prompt, completion_tokens: 1_000, cached_tokens: 50_000 });
    // 100K: US$0.10 / 0.50 per 1M, cache hits US$0.01; one token more: US$0.50 / 2.50, cache hits US$0.05.
    expect(costOf(at(100_000), haiku)).toBe(Math.ceil((50_000 + 50_000 * 0.1 + 1_000 * 5) * 0.05));
    expect(costOf(at(100_001), haiku)).toBe(Math.ceil(((50_001 + 50_000 * 0.1) * 5 + 1_000 * 5 * 5) * 0.05));
    expect(pricesFor(store(), 'claude-opus-5-5', 'default').longContext).toEqual({ above: 200_000, input: 2, output: 1.5 });
  });

  it('OpenAI GPT-5.4 and later above 272K input tokens (cache reads included): input prices x2, output x1.5; GPT-5.2 has none', () => {
    const gpt55 = pricesFor(store(), 'gpt-5.5', 'default');
    expect(gpt55).toMatchObject({ modelRatio: 2.5, completionRatio: 6, cacheReadRatio: 0.1, unknownModel: false, longContext: { above: 272_000, input: 2, output: 1.5 } });
    const at = (prompt: number) => ({ prompt_tokens: prompt, completion_tokens: 1_000, cached_tokens: 100_000 });
    // 272,000 input tokens: US$5 / 30 per 1M, cache hits US$0.50: 172,000 x 5 + 100,000 x 0.50 + 1,000 x 30 = US$0.94,
    // 470,000 quota units at 500,000 a US$. One token more: US$10 / 45, cache hits US$1: US$1.86501, 932,505 units.
    expect(costOf(at(272_000), gpt55)).toBe(470_000);
    expect(costOf(at(272_001), gpt55)).toBe(932_505);
    expect(costOf(at(272_001), gpt55)).toBe(Math.ceil(((172_001 + 100_000 * 0.1) * 2 + 1_000 * 6 * 1.5) * 2.5));
    expect(describePrice(gpt55, at(272_001), 1)).toContain('长上下文（输入超过 272000）输入 × 2、输出 × 1.5');
    // GPT-5.6 Terra (US$2 / 0.20 / 12) in Fast mode above 272K: OpenAI's Fast mode page lists US$8 / 0.80 / 36 per 1M,
    // and cache writes are 1.25 times the input price: 150,001 x 8 + 100,000 x 0.80 + 50,000 x 2.50 x 4 + 2,000 x 36
    // = US$1.200008 + 0.08 + 0.50 + 0.072 = 1.852008, 926,004 units.
    const terra = pricesFor(store(), 'gpt-5.6-terra', 'default');
    const fastLong = { prompt_tokens: 300_001, completion_tokens: 2_000, cached_tokens: 100_000, cache_write_tokens: 50_000, fast_mode: true };
    expect(costOf(fastLong, terra)).toBe(926_004);
    expect(pricesFor(store(), 'gpt-5.4-pro', 'default').longContext).toEqual({ above: 272_000, input: 2, output: 1.5 });
    expect(pricesFor(store(), 'gpt-5.6-sol', 'default').longContext).toEqual({ above: 272_000, input: 2, output: 1.5 });
    expect(pricesFor(store(), 'gpt-5.2', 'default').longContext).toBeUndefined();
  });

  it('Gemini 2.5 Pro above 200K, 1.5 Pro above 128K; Flash has none', () => {
    expect(pricesFor(store(), 'gemini-2.5-pro', 'default').longContext).toEqual({ above: 200_000, input: 2, output: 1.5 });
    expect(pricesFor(store(), 'gemini-1.5-pro', 'default').longContext).toEqual({ above: 128_000, input: 2, output: 2 });
    expect(pricesFor(store(), 'gemini-2.5-flash', 'default').longContext).toBeUndefined();
    // Grounding stays per grounded prompt on 2.5 Pro.
    expect(pricesFor(store(), 'gemini-2.5-pro', 'default').webSearchQuota).toBe(17_500);
  });
});

describe('fast mode', () => {
  it('is read from each report: Anthropic usage.speed, OpenAI service_tier priority or fast (Chat and Responses)', () => {
    const claude = anthropicDialect.parseResponse({ id: 'm', type: 'message', role: 'assistant', content: [], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 5, speed: 'fast' } }).usage;
    expect(claude?.fast_mode).toBe(true);
    const chat = (tier: string) => openAiChatDialect.parseResponse({ model: 'gpt-5', service_tier: tier, choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5 } }).usage;
    expect(chat('priority')?.fast_mode).toBe(true);
    expect(chat('fast')?.fast_mode).toBe(true);
    expect(chat('default')?.fast_mode).toBeUndefined();
    expect(chat('flex')?.fast_mode).toBeUndefined();
    const responses = openAiResponsesDialect.parseResponse({ id: 'r', object: 'response', status: 'completed', model: 'gpt-5', service_tier: 'priority', output: [], usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } }).usage;
    expect(responses?.fast_mode).toBe(true);
  });

  it("is priced at the model's FastModeRatio (the admin's first), stacked on long-context prices", () => {
    const opus = pricesFor(store({ ModelRatio: { 'claude-opus-4-6': 2.5 }, CompletionRatio: { 'claude-opus-4-6': 5 } }), 'claude-opus-4-6', 'default');
    expect(opus.fastModeRatio).toBe(6);
    const usage = { prompt_tokens: 1_000, completion_tokens: 100, fast_mode: true };
    expect(costOf(usage, opus)).toBe(Math.ceil((1_000 + 100 * 5) * 2.5 * 6));
    // Opus 4.6 fast above 200K: US$60 / 225 per 1M, 12 and 9 times US$5 / 25.
    expect(costOf({ prompt_tokens: 300_000, completion_tokens: 1_000, fast_mode: true }, opus)).toBe(Math.ceil((300_000 * 12 + 1_000 * 5 * 9) * 2.5));
    expect(pricesFor(store({ FastModeRatio: { 'claude-opus-4-6': 2 } }), 'claude-opus-4-6', 'default').fastModeRatio).toBe(2);
    expect(pricesFor(store(), 'gpt-4.1-nano', 'default').fastModeRatio).toBe(2);
    expect(pricesFor(store(), 'gpt-4.1', 'default').fastModeRatio).toBe(1.75);
    expect(pricesFor(store(), 'deepseek-chat', 'default').fastModeRatio).toBe(1);
  });

  it('US-only inference (Anthropic usage.inference_geo "us") is 1.1 times every token price, read from the report', () => {
    const usage = anthropicDialect.parseResponse({ id: 'm', type: 'message', role: 'assistant', content: [], stop_reason: 'end_turn', usage: { input_tokens: 1_000, output_tokens: 100, inference_geo: 'us' } }).usage!;
    expect(usage.regional_inference).toBe(true);
    const opus = pricesFor(store(), 'claude-opus-4-6', 'default');
    expect(opus.regionalRatio).toBe(1.1);
    expect(costOf(usage, opus)).toBe(Math.ceil((1_000 + 100 * 5) * 2.5 * 1.1));
    expect(pricesFor(store(), 'gpt-5', 'default').regionalRatio).toBe(1);
  });

  it('a request that asks for it reserves at its price', () => {
    const prices = pricesFor(store(), 'gpt-5', 'default');
    const plan = (fastMode: boolean) => planReservation({ model: 'gpt-5', promptBound: 100, generates: true, maxTokens: 1_000, choices: 1, floor: 0, fastMode }, prices);
    expect(plan(true).amount).toBe(costOf({ prompt_tokens: 100, completion_tokens: 1_000, fast_mode: true }, prices));
    expect(plan(true).outputTokenCost).toBeCloseTo(plan(false).outputTokenCost * 2);
  });
});
