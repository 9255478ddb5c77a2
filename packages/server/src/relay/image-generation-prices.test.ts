import { describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../billing/pricing.js';
import { startMockUpstream } from '../test-support/mock-openai.js';
import { seedChannel } from '../test-support/seed.js';
import { vendorGateway } from '../test-support/vendor-gateway.js';

/**
 * The images endpoint is billed at what the image costs (docs/ledger.md, units and prices): dall-e by the size and
 * quality asked (an HD 1792 x 1024 dall-e-3 image is US$0.12, three times a standard square one, which is all it was
 * billed before), GPT Image by the tokens it reports (image output US$40 per 1M for gpt-image-1: a high-quality
 * 1536 x 1024 image is 6,208 tokens, US$0.25; it was billed as an unknown model, one image at the default ratio).
 */
const gw = vendorGateway({ mock: startMockUpstream });

/** A key of 10,000,000 and the openai SDK on it, the image models served by the mock. */
async function painter() {
  await seedChannel(gw.t.ctx.storage, { name: 'openai', type: 1, key: 'ok', baseUrl: gw.mock.url, models: 'dall-e-2,dall-e-3,gpt-image-1' });
  const token = await gw.seedKey();
  return { token, client: gw.openai(token.key) };
}

describe('the images endpoint', () => {
  it('dall-e-3: an HD 1792 x 1024 image costs three standard squares (US$0.12)', async () => {
    const { token, client } = await painter();
    const image = await client.images.generate({ model: 'dall-e-3', prompt: 'a lighthouse at dusk', size: '1792x1024', quality: 'hd' });
    expect(image.data).toHaveLength(1);
    const [log] = (await gw.settled(token.id, 1)).logs;
    // Ratio 20: 20,000 units (US$0.04) a standard square image.
    expect(log.quota).toBe(60_000);
    expect(log.content).toContain('图片 1 张 × 3');
  });

  it('dall-e-2: two images at its default 1024 x 1024 (US$0.02 each)', async () => {
    const { token, client } = await painter();
    const image = await client.images.generate({ model: 'dall-e-2', prompt: 'a red square', n: 2 });
    expect(image.data).toHaveLength(2);
    const [log] = (await gw.settled(token.id, 1)).logs;
    expect(log.quota).toBe(2 * 8_000 * 1.25);
  });

  it('gpt-image-1: billed by its reported tokens, the image output at US$40 per 1M', async () => {
    const { token, client } = await painter();
    const image = await client.images.generate({ model: 'gpt-image-1', prompt: 'a banana on a white plate', size: '1536x1024', quality: 'high' });
    expect(image.usage?.output_tokens).toBe(6_208);
    const [log] = (await gw.settled(token.id, 1)).logs;
    const prices = pricesFor(gw.t.ctx.options, 'gpt-image-1', 'default');
    expect([prices.modelRatio, prices.imageRatio, prices.imageCompletionRatio]).toEqual([2.5, 2, 8]);
    expect([log.prompt_tokens, log.completion_tokens]).toEqual([image.usage!.input_tokens, 6_208]);
    expect(log.quota).toBe(costOf({ prompt_tokens: image.usage!.input_tokens, completion_tokens: 6_208, image_completion_tokens: 6_208 }, prices));
    // 6,208 x 8 x 2.5 = 124,160 units for the image: US$0.248.
    expect(log.quota).toBe(Math.ceil(image.usage!.input_tokens * 2.5 + 6_208 * 8 * 2.5));
    expect(log.content).toContain('图片输出 6208 × 8');
    expect(log.content).not.toContain('用量异常');
  });

  it('a size the model does not make is refused by the upstream, nothing billed', async () => {
    const { token, client } = await painter();
    await expect(client.images.generate({ model: 'dall-e-3', prompt: 'x', size: '256x256' })).rejects.toMatchObject({ status: 400 });
    const after = await gw.settled(token.id, 0);
    expect(after.token.remain_quota).toBe(10_000_000);
  });
});
