import { describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import { seedChannel, seedToken } from '../../test-support/seed.js';
import { startMockAnthropic } from '../../test-support/upstreams/anthropic.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * Searches a provider runs for an answer are billed apart, per search (docs/ledger.md, units and prices): Claude's
 * web search tool costs US$10 per 1,000 searches besides the tokens its results add to the input. Claude Code's
 * WebSearch is this tool. The mock answers the documented scenario (providers/anthropic/__fixtures__/web-search.*):
 * one search, 2,150 input and 96 output tokens, `usage.server_tool_use.web_search_requests: 1`.
 */
const MODEL = 'claude-sonnet-4-5-20250929';
const gw = vendorGateway({ mock: startMockAnthropic });
const { seedKey, anthropic } = gw;

const request = {
  model: MODEL,
  max_tokens: 1024,
  tools: [{ type: 'web_search_20250305' as const, name: 'web_search' as const, max_uses: 3 }],
  messages: [{ role: 'user' as const, content: 'When was Claude Shannon born?' }],
};
const usage = { prompt_tokens: 2_150, completion_tokens: 96, web_searches: 1 };

async function expectSearchBilled(tokenId: number) {
  const [log] = await gw.expectCharged(tokenId, MODEL, usage);
  const prices = pricesFor(gw.t.ctx.options, MODEL, 'default');
  // US$10 per 1,000 searches at 500,000 quota units a dollar: 5,000 units a search, on top of the tokens.
  expect(prices.webSearchQuota).toBe(5_000);
  expect(log.quota).toBe(costOf({ prompt_tokens: 2_150, completion_tokens: 96 }, prices) + 5_000);
  expect(log.content).toContain('联网搜索 1 次 × 5000 额度');
  expect(log.content).not.toContain('用量异常');
}

describe('a web search Claude runs', () => {
  it('whole: the answer carries the search, and the request is billed its tokens and the search', async () => {
    await seedChannel(gw.t.ctx.storage, { name: 'claude', type: 14, key: 'ok', baseUrl: gw.mock.url, models: MODEL });
    const token = await seedKey();
    const message = await anthropic(token.key).messages.create(request);
    expect(message.content.map((block) => block.type)).toEqual(['text', 'server_tool_use', 'web_search_tool_result', 'text']);
    expect(message.usage.server_tool_use?.web_search_requests).toBe(1);
    await expectSearchBilled(token.id);
  });

  it('streamed, as Claude Code asks: the same', async () => {
    await seedChannel(gw.t.ctx.storage, { name: 'claude', type: 14, key: 'ok', baseUrl: gw.mock.url, models: MODEL });
    const token = await seedKey();
    const message = await anthropic(token.key).messages.stream(request).finalMessage();
    expect(message.content.at(-1)).toMatchObject({ type: 'text', text: 'Claude Shannon was born on April 30, 1916, in Petoskey, Michigan.' });
    expect(message.usage.server_tool_use?.web_search_requests).toBe(1);
    await expectSearchBilled(token.id);
  });

  it('an admin\'s WebSearchPrice for the model wins over the catalogue\'s', async () => {
    await seedChannel(gw.t.ctx.storage, { name: 'claude', type: 14, key: 'ok', baseUrl: gw.mock.url, models: MODEL });
    await gw.t.ctx.options.set('WebSearchPrice', JSON.stringify({ [MODEL]: 20 }));
    try {
      const token = await seedKey();
      await anthropic(token.key).messages.create(request);
      const [log] = await gw.expectCharged(token.id, MODEL, usage);
      expect(log.content).toContain('联网搜索 1 次 × 10000 额度');
    } finally {
      await gw.t.ctx.options.set('WebSearchPrice', '{}');
    }
  });

  it("the searches the tool's max_uses allows are reserved with the tokens: a key that cannot pay for them is refused before the upstream is called", async () => {
    await seedChannel(gw.t.ctx.storage, { name: 'claude', type: 14, key: 'ok', baseUrl: gw.mock.url, models: MODEL });
    // The prompt and 1,024 output tokens are ~8,000 quota; three searches 15,000 more. 12,000 covers the tokens only.
    const poor = await seedToken(gw.t.ctx.storage, gw.userId, { remain_quota: 12_000 });
    await expect(anthropic(poor.key).messages.create(request)).rejects.toMatchObject({ status: 429 });
    expect(gw.mock.requests).toEqual([]);
    const refused = await gw.settled(poor.id, 0);
    expect([refused.logs, refused.open, refused.token.remain_quota]).toEqual([[], [], 12_000]);
    // Without max_uses the searches are unbounded (at most 100 are billed): they are not reserved, and the same key is served.
    const { max_uses: _bound, ...unbounded } = request.tools[0];
    const message = await anthropic(poor.key).messages.create({ ...request, tools: [unbounded] });
    expect(message.usage.server_tool_use?.web_search_requests).toBe(1);
    const [log] = (await gw.settled(poor.id, 1)).logs;
    expect(log.quota).toBe(costOf({ prompt_tokens: 2_150, completion_tokens: 96 }, pricesFor(gw.t.ctx.options, MODEL, 'default')) + 5_000);
  });
});
