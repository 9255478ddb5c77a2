import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../billing/pricing.js';
import { MOCK_AUDIO_TOKENS, MOCK_TRANSCRIPT, startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { settledToken } from '../test-support/settled-token.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';

/**
 * Audio tokens are priced apart from text (docs/ledger.md, units and prices): gpt-4o-audio-preview reads audio at
 * US$40 and writes it at US$80 per 1M tokens, against US$2.50 / 10 for its text. The mock answers a chat with
 * `modalities: ["text", "audio"]` in audio, its usage splitting out each side's audio tokens, as OpenAI's does.
 */
let t: TestApp;
let mock: MockUpstream;
let url: string;

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp();
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await t.close();
  await mock.close();
});

describe('an audio chat', () => {
  it('is billed its audio in and out at the audio prices, its text at the text prices', async () => {
    await seedChannel(t.ctx.storage, { name: 'openai', type: 1, key: 'ok', baseUrl: mock.url, models: 'gpt-4o-audio-preview' });
    const userId = await seedUser(t.ctx.storage, 'listener', 10_000_000, 'AUDIO1');
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 10_000_000 });
    const client = new OpenAI({ apiKey: `sk-${token.key}`, baseURL: `${url}/v1`, maxRetries: 0 });
    const clip = Buffer.from('RIFF----WAVEfmt ').toString('base64');
    const answer = await client.chat.completions.create({
      model: 'gpt-4o-audio-preview',
      modalities: ['text', 'audio'],
      audio: { voice: 'alloy', format: 'wav' },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is in this recording?' }, { type: 'input_audio', input_audio: { data: clip, format: 'wav' } }] }],
    });
    expect(answer.choices[0].message.audio?.transcript).toBe(MOCK_TRANSCRIPT);
    const after = await settledToken(t.ctx.storage, token.id, 1);
    const [log] = after.logs;
    const usage = {
      prompt_tokens: answer.usage!.prompt_tokens,
      completion_tokens: answer.usage!.completion_tokens,
      audio_prompt_tokens: MOCK_AUDIO_TOKENS.perInputClip,
      audio_completion_tokens: MOCK_AUDIO_TOKENS.output,
    };
    const prices = pricesFor(t.ctx.options, 'gpt-4o-audio-preview', 'default');
    expect([prices.modelRatio, prices.audioRatio, prices.audioCompletionRatio]).toEqual([1.25, 16, 2]);
    expect(log.quota).toBe(costOf(usage, prices));
    // Text in at 1.25, audio in at 1.25 x 16 = 20 (US$40 per 1M), the transcript at 1.25 x 4, audio out at 1.25 x 32 (US$80).
    const textIn = usage.prompt_tokens - MOCK_AUDIO_TOKENS.perInputClip;
    expect(log.quota).toBe(Math.ceil(textIn * 1.25 + MOCK_AUDIO_TOKENS.perInputClip * 20 + MOCK_AUDIO_TOKENS.transcript * 5 + MOCK_AUDIO_TOKENS.output * 40));
    expect(log.content).toContain(`音频输入 ${MOCK_AUDIO_TOKENS.perInputClip} × 16`);
    expect(log.content).toContain(`音频输出 ${MOCK_AUDIO_TOKENS.output} × 16 × 2`);
    expect(log.content).not.toContain('用量异常');
    expect(after.token.remain_quota).toBe(10_000_000 - log.quota);
  });
});
