import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../billing/pricing.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { settledToken } from '../test-support/settled-token.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { fixtures } from '../test-support/upstreams/fixtures.js';
import { startMockGemini, type MockGemini } from '../test-support/upstreams/gemini.js';

/**
 * The images a model draws in its answer are priced apart from its text (docs/ledger.md, units and prices):
 * gemini-2.5-flash-image writes text at US$2.50 and image tokens at US$30 per 1M (1,290 tokens an image, US$0.039),
 * against US$0.30 for its input. Billed as text, every image went out at a twelfth of its price. The mock answers
 * `responseModalities: ["TEXT", "IMAGE"]` with the documented `draw` fixture: text, an inline PNG, and
 * `candidatesTokensDetails` splitting TEXT (11) and IMAGE (1,290).
 */
let t: TestApp;
let gemini: MockGemini;
let gateway: string;
const recorded = fixtures('gemini').json('draw.response.json');
const IMAGE_TOKENS = 1_290;
const TEXT_TOKENS = 11;

beforeAll(async () => {
  gemini = await startMockGemini();
  t = await createTestApp();
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await seedChannel(t.ctx.storage, { name: 'gemini', type: 24, key: 'ok', baseUrl: gemini.url, models: 'gemini-2.5-flash-image' });
});
afterAll(async () => {
  await t.close();
  await gemini.close();
});

async function drawer(name: string) {
  const userId = await seedUser(t.ctx.storage, name, 10_000_000, name.toUpperCase());
  const token = await seedToken(t.ctx.storage, userId, { remain_quota: 10_000_000 });
  return { token, client: new GoogleGenAI({ apiKey: `sk-${token.key}`, httpOptions: { baseUrl: gateway } }) };
}

function expectImageBilled(log: { quota: number; prompt_tokens: number; completion_tokens: number; content: string }) {
  const prices = pricesFor(t.ctx.options, 'gemini-2.5-flash-image', 'default');
  expect([prices.modelRatio, prices.completionRatio, prices.imageCompletionRatio]).toEqual([0.15, 8.333, 100]);
  expect(log.completion_tokens).toBe(TEXT_TOKENS + IMAGE_TOKENS);
  // Input at 0.15 (US$0.30), the text at 0.15 x 8.333 (US$2.50), the image at 0.15 x 100 (US$30): US$0.039.
  expect(log.quota).toBe(Math.ceil((log.prompt_tokens + TEXT_TOKENS * 8.333 + IMAGE_TOKENS * 100) * 0.15 - 1e-9));
  expect(log.quota).toBe(costOf({ prompt_tokens: log.prompt_tokens, completion_tokens: log.completion_tokens, image_completion_tokens: IMAGE_TOKENS }, prices));
  expect(log.content).toContain(`图片输出 ${IMAGE_TOKENS} × 100`);
  expect(log.content).not.toContain('用量异常');
}

describe('an image drawn by a Gemini image model', () => {
  it('is billed at the image output price, whole', async () => {
    const { token, client } = await drawer('painter');
    const answer = await client.models.generateContent({ model: 'gemini-2.5-flash-image', contents: 'Draw a small banana on a white plate.', config: { responseModalities: ['TEXT', 'IMAGE'] } });
    const parts = answer.candidates?.[0]?.content?.parts ?? [];
    expect(parts.find((p) => p.inlineData)?.inlineData).toEqual(recorded.candidates[0].content.parts[1].inlineData);
    expect(answer.usageMetadata?.candidatesTokensDetails).toEqual(recorded.usageMetadata.candidatesTokensDetails);
    const after = await settledToken(t.ctx.storage, token.id, 1);
    expectImageBilled(after.logs[0]);
    expect(after.token.remain_quota).toBe(10_000_000 - after.logs[0].quota);
  });

  it('is billed at the image output price, streamed', async () => {
    const { token, client } = await drawer('sketcher');
    const stream = await client.models.generateContentStream({ model: 'gemini-2.5-flash-image', contents: 'Draw a small banana on a white plate.', config: { responseModalities: ['TEXT', 'IMAGE'] } });
    let image: unknown;
    for await (const chunk of stream) image ??= chunk.candidates?.[0]?.content?.parts?.find((p) => p.inlineData)?.inlineData;
    expect(image).toEqual(recorded.candidates[0].content.parts[1].inlineData);
    const after = await settledToken(t.ctx.storage, token.id, 1);
    expectImageBilled(after.logs[0]);
  });

  it('cannot be asked of a model that does not draw (the upstream refuses, nothing is billed)', async () => {
    await seedChannel(t.ctx.storage, { name: 'gemini-text', type: 24, key: 'ok', baseUrl: gemini.url, models: 'gemini-2.5-flash' });
    const { token, client } = await drawer('writer');
    const refused = await client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Draw a banana.', config: { responseModalities: ['TEXT', 'IMAGE'] } }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 400 });
    expect(String((refused as Error).message)).toContain('response modalities');
    const after = await settledToken(t.ctx.storage, token.id, 0);
    expect(after.token.remain_quota).toBe(10_000_000);
  });
});
