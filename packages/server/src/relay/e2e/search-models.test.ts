import { describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import { startMockUpstream } from '../../test-support/mock-openai.js';
import { seedChannel, seedToken } from '../../test-support/seed.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * OpenAI's search models search the web before every answer in Chat Completions, and the search is billed beside
 * the tokens (docs/ledger.md, units and prices): gpt-4o-mini-search-preview US$25 per 1,000, gpt-5-search-api US$10.
 * They were billed their tokens only: a short answer went out at a hundredth of its price.
 */
const gw = vendorGateway({ mock: startMockUpstream });
const channel = () => seedChannel(gw.t.ctx.storage, { name: 'openai', type: 1, key: 'ok', baseUrl: gw.mock.url, models: 'gpt-4o-mini-search-preview,gpt-5-search-api' });

async function expectOneSearch(tokenId: number, model: string, searchQuota: number) {
  const [log] = (await gw.settled(tokenId, 1)).logs;
  const prices = pricesFor(gw.t.ctx.options, model, 'default');
  expect(prices.webSearchQuota).toBe(searchQuota);
  expect(log.quota).toBe(costOf({ prompt_tokens: log.prompt_tokens, completion_tokens: log.completion_tokens }, prices) + searchQuota);
  expect(log.content).toContain(`联网搜索 1 次 × ${searchQuota} 额度`);
  expect(log.content).not.toContain('用量异常');
}

describe('a search model of Chat Completions', () => {
  it('gpt-4o-mini-search-preview: its answer is billed one search at US$25 per 1,000, whole', async () => {
    await channel();
    const token = await gw.seedKey();
    const answer = await gw.openai(token.key).chat.completions.create({ model: 'gpt-4o-mini-search-preview', web_search_options: {}, messages: [{ role: 'user', content: 'News about Paris today?' }] });
    expect(answer.choices[0].message.content).toBeTruthy();
    await expectOneSearch(token.id, 'gpt-4o-mini-search-preview', 12_500);
  });

  it('gpt-5-search-api: one search at US$10 per 1,000, streamed', async () => {
    await channel();
    const token = await gw.seedKey();
    const stream = await gw.openai(token.key).chat.completions.create({ model: 'gpt-5-search-api', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'News about Paris today?' }] });
    for await (const chunk of stream) void chunk;
    await expectOneSearch(token.id, 'gpt-5-search-api', 5_000);
  });

  it("the search is reserved with the tokens: a key that cannot pay for it is refused before the upstream is called, one that can is served within its balance", async () => {
    await channel();
    const model = 'gpt-4o-mini-search-preview';
    const ask = (key: string) => gw.openai(key).chat.completions.create({ model, messages: [{ role: 'user', content: 'News about Paris today?' }] });
    // 5,000 quota covers the tokens (the whole allowance of 16,384 output tokens is ~4,900) but not the search (12,500):
    // served, it cost more than the key held.
    const poor = await seedToken(gw.t.ctx.storage, gw.userId, { remain_quota: 5_000 });
    await expect(ask(poor.key)).rejects.toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(gw.mock.requests).toEqual([]);
    const refused = await gw.settled(poor.id, 0);
    expect([refused.logs, refused.open, refused.token.remain_quota]).toEqual([[], [], 5_000]);
    // The search and a few hundred tokens: served, the output capped to what is left after the search.
    const enough = await seedToken(gw.t.ctx.storage, gw.userId, { remain_quota: 14_500 });
    expect((await ask(enough.key)).choices[0].message.content).toBeTruthy();
    const sent = gw.mock.requests[0].body as { max_tokens?: number; max_completion_tokens?: number };
    expect(sent.max_completion_tokens ?? sent.max_tokens).toBeLessThan(16_384);
    const [log] = (await gw.settled(enough.id, 1)).logs;
    expect(log.quota).toBeGreaterThan(12_500);
    expect((await gw.settled(enough.id, 1)).token.remain_quota).toBe(14_500 - log.quota);
  });

  it('asked by an Anthropic client without a search tool: still one search, as the model searched anyway', async () => {
    await channel();
    const token = await gw.seedKey();
    const message = await gw.anthropic(token.key).messages.create({ model: 'gpt-4o-mini-search-preview', max_tokens: 200, messages: [{ role: 'user', content: 'News about Paris today?' }] });
    expect(message.content[0]).toMatchObject({ type: 'text' });
    await expectOneSearch(token.id, 'gpt-4o-mini-search-preview', 12_500);
  });
});
