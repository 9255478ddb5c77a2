import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../options/defaults.js';
import type { OptionStore } from '../options/option-store.js';
import { geminiDialect } from '../relay/dialects/gemini/index.js';
import { openAiChatDialect } from '../relay/dialects/openai-chat/index.js';
import { SseDecoder } from '../relay/transport/frame-decoders.js';
import { collectStream } from '../relay/canonical.js';
import { fixtures } from '../test-support/upstreams/fixtures.js';
import { planReservation } from './plan-reservation.js';
import { costOf, describePrice, pricesFor } from './pricing.js';

/** Image tokens drawn in an answer, read from each report and priced apart from text (docs/ledger.md, units and prices). */
const DEFAULTS: Record<string, Record<string, number>> = { ModelRatio: DEFAULT_MODEL_RATIO, CompletionRatio: DEFAULT_COMPLETION_RATIO };
const store = (own: Record<string, Record<string, number>> = {}) => ({ ratios: (key: string) => own[key] ?? DEFAULTS[key] ?? {}, number: () => 500_000 }) as unknown as OptionStore;
const gemini = fixtures('gemini');

describe('image output tokens', () => {
  it("Gemini: the IMAGE modality of candidatesTokensDetails, whole and streamed; OpenAI-style: completion_tokens_details.image_tokens", () => {
    const whole = geminiDialect.parseResponse(gemini.json('draw.response.json')).usage;
    expect(whole).toMatchObject({ prompt_tokens: 9, completion_tokens: 1_301, image_completion_tokens: 1_290 });
    const reader = geminiDialect.createStreamReader();
    const frames = new SseDecoder().push(Buffer.from(gemini.text('draw.stream.txt')));
    expect(collectStream(frames.flatMap((f) => reader.read(f))).usage).toMatchObject({ completion_tokens: 1_301, image_completion_tokens: 1_290 });
    // Thinking is outside candidatesTokenCount: the image stays a part of the candidates, not of the thoughts.
    const thought = geminiDialect.parseResponse({
      candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 1_120, thoughtsTokenCount: 200, candidatesTokensDetails: [{ modality: 'IMAGE', tokenCount: 5_000 }] },
    }).usage;
    expect(thought).toMatchObject({ completion_tokens: 1_320, reasoning_tokens: 200, image_completion_tokens: 1_120 });
    const openai = openAiChatDialect.parseResponse({
      choices: [{ index: 0, message: { role: 'assistant', content: 'Here it is.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 9, completion_tokens: 1_301, total_tokens: 1_310, completion_tokens_details: { reasoning_tokens: 0, image_tokens: 1_290 } },
    }).usage;
    expect(openai).toMatchObject({ completion_tokens: 1_301, image_completion_tokens: 1_290 });
    // Written back to an OpenAI client as it came.
    expect(openAiChatDialect.parseResponse(openAiChatDialect.writeResponse({ ...collectStream([]), usage: openai }, { id: 'x', model: 'm', created: 1, includeUsage: true })).usage).toMatchObject({ image_completion_tokens: 1_290 });
  });

  it("priced as the catalogue says, an admin's ImageCompletionRatio first, else as text output", () => {
    const usage = { prompt_tokens: 9, completion_tokens: 1_301, image_completion_tokens: 1_290 };
    const flash = pricesFor(store(), 'gemini-2.5-flash-image', 'default');
    expect(flash).toMatchObject({ modelRatio: 0.15, completionRatio: 8.333, imageCompletionRatio: 100 });
    // US$0.039 an image at the default QuotaPerUnit (500,000 a dollar): 19,350 units for the image.
    expect(costOf(usage, flash)).toBe(Math.ceil((9 + 11 * 8.333 + 1_290 * 100) * 0.15));
    expect(describePrice(flash, usage, costOf(usage, flash))).toContain('图片输出 1290 × 100');
    expect(pricesFor(store(), 'gemini-3-pro-image-preview', 'default')).toMatchObject({ modelRatio: 1, completionRatio: 6, imageCompletionRatio: 60 });
    expect(pricesFor(store(), 'gemini-2.5-flash-image-preview', 'default')).toMatchObject({ modelRatio: 0.15, imageCompletionRatio: 100 });
    // A model of no image price: its image tokens cost what its text output does.
    const plain = pricesFor(store(), 'gemini-2.5-flash', 'default');
    expect(plain.imageCompletionRatio).toBe(plain.completionRatio);
    expect(costOf(usage, plain)).toBe(costOf({ prompt_tokens: 9, completion_tokens: 1_301 }, plain));
    const own = pricesFor(store({ ImageCompletionRatio: { 'gemini-2.5-flash-image': 120 } }), 'gemini-2.5-flash-image', 'default');
    expect(own.imageCompletionRatio).toBe(120);
    // A report whose image part exceeds its completion is held to the completion.
    expect(costOf({ prompt_tokens: 9, completion_tokens: 100, image_completion_tokens: 5_000 }, flash)).toBe(Math.ceil((9 + 100 * 100) * 0.15));
  });

  it('a reservation holds the output at the image price, so a drawn answer never costs more than was held', () => {
    const flash = pricesFor(store(), 'gemini-2.5-flash-image', 'default');
    const plan = planReservation({ model: 'gemini-2.5-flash-image', promptBound: 20, generates: true, maxTokens: 2_000, choices: 1, floor: 0 }, flash);
    expect(plan.amount).toBeGreaterThanOrEqual(costOf({ prompt_tokens: 20, completion_tokens: 2_000, image_completion_tokens: 2_000 }, flash));
    expect(plan.outputTokenCost).toBeCloseTo(100 * 0.15);
    // A text model's reservation is unchanged.
    const text = pricesFor(store(), 'gemini-2.5-flash', 'default');
    expect(planReservation({ model: 'gemini-2.5-flash', promptBound: 20, generates: true, maxTokens: 2_000, choices: 1, floor: 0 }, text).outputTokenCost).toBeCloseTo(8.333 * 0.15);
  });
});
