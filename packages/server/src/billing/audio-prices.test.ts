import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../options/defaults.js';
import type { OptionStore } from '../options/option-store.js';
import { geminiDialect } from '../relay/dialects/gemini/index.js';
import { openAiChatDialect } from '../relay/dialects/openai-chat/index.js';
import { costOf, pricesFor } from './pricing.js';

/** Audio tokens read from each dialect's usage, and priced apart from text (docs/ledger.md, units and prices). */
const DEFAULTS: Record<string, Record<string, number>> = { ModelRatio: DEFAULT_MODEL_RATIO, CompletionRatio: DEFAULT_COMPLETION_RATIO };
const store = (own: Record<string, Record<string, number>> = {}) => ({ ratios: (key: string) => own[key] ?? DEFAULTS[key] ?? {}, number: () => 500_000 }) as unknown as OptionStore;

describe('audio tokens', () => {
  it('OpenAI: each side\'s audio_tokens; Gemini: the prompt\'s AUDIO modality', () => {
    const openai = openAiChatDialect.parseResponse({
      choices: [{ index: 0, message: { role: 'assistant', content: null }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 140, completion_tokens: 270, total_tokens: 410, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 120 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 260 } },
    }).usage;
    expect(openai).toMatchObject({ prompt_tokens: 140, completion_tokens: 270, audio_prompt_tokens: 120, audio_completion_tokens: 260 });
    const gemini = geminiDialect.parseResponse({
      candidates: [{ content: { role: 'model', parts: [{ text: 'A dog barks.' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 1_010, candidatesTokenCount: 5, totalTokenCount: 1_015, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 10 }, { modality: 'AUDIO', tokenCount: 1_000 }] },
    }).usage;
    expect(gemini).toMatchObject({ prompt_tokens: 1_010, audio_prompt_tokens: 1_000 });
  });

  it('priced as the catalogue says, an admin\'s AudioRatio / AudioCompletionRatio first, else as text', () => {
    // gemini-2.5-flash: audio in US$1.00 against 0.30 for text; its audio out (none in generateContent) as text out.
    const flash = pricesFor(store(), 'gemini-2.5-flash', 'default');
    expect(flash.audioRatio).toBe(3.333);
    expect(flash.audioRatio * flash.audioCompletionRatio).toBeCloseTo(flash.completionRatio);
    const usage = { prompt_tokens: 1_010, completion_tokens: 5, audio_prompt_tokens: 1_000 };
    expect(costOf(usage, flash)).toBe(Math.ceil((10 + 1_000 * 3.333 + 5 * flash.completionRatio) * flash.modelRatio));
    // A model of no audio prices: its audio costs what its text does.
    const plain = pricesFor(store(), 'gpt-4o-mini', 'default');
    expect(costOf({ prompt_tokens: 100, completion_tokens: 50, audio_prompt_tokens: 60, audio_completion_tokens: 40 }, plain)).toBe(costOf({ prompt_tokens: 100, completion_tokens: 50 }, plain));
    const own = pricesFor(store({ AudioRatio: { 'gpt-4o-mini': 10 }, AudioCompletionRatio: { 'gpt-4o-mini': 3 } }), 'gpt-4o-mini', 'default');
    expect([own.audioRatio, own.audioCompletionRatio]).toEqual([10, 3]);
    // gpt-audio: US$32 / 64 per 1M of audio against US$2.50 of text input.
    expect(pricesFor(store(), 'gpt-audio', 'default')).toMatchObject({ modelRatio: 1.25, audioRatio: 12.8, audioCompletionRatio: 2 });
  });
});
