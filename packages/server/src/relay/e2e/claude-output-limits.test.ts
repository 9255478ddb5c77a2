import { describe, expect, it } from 'vitest';
import { pricesFor } from '../../billing/pricing.js';
import { seedChannel } from '../../test-support/seed.js';
import { startMockAnthropic } from '../../test-support/upstreams/anthropic.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * Claude's output limits and the lineup after Opus 4.6, from each model's page on platform.claude.com. An OpenAI
 * client that sets no max_tokens is translated to a Messages request with the model's own limit (Anthropic requires
 * one, and refuses one above the model's): Opus 5.5 and the 5 generation take 128K, where the catalogue gave them
 * Claude's default 8,192 and cut their answers there. Their prices come from the catalogue, not the unknown-model
 * ratio (30, US$60 per 1M input tokens). The mock refuses a max_tokens above each model's limit, as the API does.
 */
const gw = vendorGateway({ mock: startMockAnthropic });

async function claudeChannel(models: string) {
  await seedChannel(gw.t.ctx.storage, { name: 'claude', type: 14, key: 'ok', baseUrl: gw.mock.url, models });
}

const sentMaxTokens = () => gw.mock.requests.map((r) => (r.body as { max_tokens?: number }).max_tokens);

describe("Claude's output limits and newer models", () => {
  it('an OpenAI client with no max_tokens: Opus 5.5 is asked for 128K, Claude 3.5 Haiku for 8,192; each billed at its catalogue price', async () => {
    await claudeChannel('claude-opus-5-5,claude-3-5-haiku-20241022');
    const token = await gw.seedKey();
    const openai = gw.openai(token.key);
    for (const model of ['claude-opus-5-5', 'claude-3-5-haiku-20241022']) {
      const answer = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hello' }] });
      expect(answer.choices[0].message.content).toBeTruthy();
    }
    expect(sentMaxTokens()).toEqual([128_000, 8_192]);
    const opus = pricesFor(gw.t.ctx.options, 'claude-opus-5-5', 'default');
    expect(opus).toMatchObject({ modelRatio: 2, completionRatio: 5, unknownModel: false });
    const [first] = (await gw.settled(token.id, 2)).logs;
    expect(first.model_name).toBe('claude-opus-5-5');
    expect(first.quota).toBe(Math.ceil((first.prompt_tokens + first.completion_tokens * 5) * 2 - 1e-9));
  });

  it("a Claude client's max_tokens above the model's limit is refused by the upstream, passed on as a 400, nothing billed nor held", async () => {
    await claudeChannel('claude-3-5-haiku-20241022');
    const token = await gw.seedKey();
    const refused = gw.anthropic(token.key).messages.create({ model: 'claude-3-5-haiku-20241022', max_tokens: 8_193, messages: [{ role: 'user', content: 'Hello' }] });
    await expect(refused).rejects.toMatchObject({ status: 400, error: { error: { message: 'max_tokens: 8193 > 8192, which is the maximum allowed number of output tokens for claude-3-5-haiku-20241022' } } });
    const after = await gw.settled(token.id, 0);
    expect(after.logs).toEqual([]);
    expect(after.open).toEqual([]);
    expect(after.token.remain_quota).toBe(10_000_000);
  });
});
