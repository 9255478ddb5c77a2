import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
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
  const key = `sk-${token.key}`;
  return {
    token,
    client: new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway } }),
    openai: new OpenAI({ apiKey: key, baseURL: `${gateway}/v1`, maxRetries: 0 }),
    anthropic: new Anthropic({ apiKey: key, baseURL: gateway, maxRetries: 0 }),
  };
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

describe('an image drawn by a Gemini image model, asked through another dialect', () => {
  // The image model draws by default; the image goes to each client in the shape its dialect gives generated images.
  const image = recorded.candidates[0].content.parts[1].inlineData;
  const dataUrl = `data:${image.mimeType};base64,${image.data}`;
  type WithImages = { images?: Array<{ type: string; image_url: { url: string } }> };

  it('OpenAI Chat Completions: in message.images (and delta.images when streamed) as a data URL, billed the same', async () => {
    const { token, openai } = await drawer('chatpainter');
    const answer = await openai.chat.completions.create({ model: 'gemini-2.5-flash-image', messages: [{ role: 'user', content: 'Draw a small banana on a white plate.' }] });
    expect(answer.choices[0].message.content).toContain('banana');
    expect((answer.choices[0].message as WithImages).images).toEqual([{ type: 'image_url', image_url: { url: dataUrl } }]);
    expectImageBilled((await settledToken(t.ctx.storage, token.id, 1)).logs[0]);
    const stream = await openai.chat.completions.create({ model: 'gemini-2.5-flash-image', stream: true, messages: [{ role: 'user', content: 'Draw a small banana on a white plate.' }] });
    const streamed: unknown[] = [];
    for await (const chunk of stream) streamed.push(...((chunk.choices[0]?.delta as WithImages | undefined)?.images ?? []));
    expect(streamed).toEqual([{ type: 'image_url', image_url: { url: dataUrl } }]);
  });

  it('OpenAI Responses: an image_generation_call item; Anthropic Messages (no image in its answers): the text, billed the same', async () => {
    const { token, openai, anthropic } = await drawer('itempainter');
    const response = await openai.responses.create({ model: 'gemini-2.5-flash-image', input: 'Draw a small banana on a white plate.' });
    const item = response.output.find((o) => o.type === 'image_generation_call');
    expect(item).toMatchObject({ type: 'image_generation_call', status: 'completed', result: image.data });
    // The next turn sends the item back: it is accepted (the model does not read its own image back).
    const next = await openai.responses.create({ model: 'gemini-2.5-flash-image', input: [...(response.output as never[]), { role: 'user', content: 'Now a pear.' }] });
    expect(next.status).toBe('completed');
    const message = await anthropic.messages.create({ model: 'gemini-2.5-flash-image', max_tokens: 2048, messages: [{ role: 'user', content: 'Draw a small banana on a white plate.' }] });
    expect(message.content.map((block) => block.type)).toEqual(['text']);
    const logs = (await settledToken(t.ctx.storage, token.id, 3)).logs;
    expectImageBilled(logs[0]);
    expectImageBilled(logs[2]);
  });
});
