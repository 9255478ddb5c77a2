import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../options/defaults.js';
import type { OptionStore } from '../options/option-store.js';
import { geminiDialect } from '../relay/dialects/gemini/index.js';
import { openAiChatDialect } from '../relay/dialects/openai-chat/index.js';
import { planReservation } from './plan-reservation.js';
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

  it('a prompt with audio reserves its audio at the audio price (the chat dialect measures its share of the bound)', () => {
    const body = { model: 'gpt-4o-audio-preview', messages: [{ role: 'user', content: [{ type: 'text', text: 'What is said?' }, { type: 'input_audio', input_audio: { data: Buffer.alloc(3_000).toString('base64'), format: 'wav' } }] }] };
    const facts = openAiChatDialect.inspect!(body, () => ({ image: () => 0, audio: (bytes?: number) => Math.ceil((bytes ?? 0) / 10), video: () => 0, document: () => 0 }) as never);
    expect(facts.audioBound).toBe(300);
    const prices = pricesFor(store(), 'gpt-4o-audio-preview', 'default');
    const plan = (audioTokens: number) => planReservation({ model: 'gpt-4o-audio-preview', promptBound: facts.promptBound, generates: true, maxTokens: 10, choices: 1, floor: 0, audioTokens }, prices);
    // The audio's 300 tokens at 16 times the text price: 300 x 15 more input units than as text.
    expect(plan(300).promptCost - plan(0).promptCost).toBeCloseTo(300 * 15 * prices.modelRatio);
  });
});
