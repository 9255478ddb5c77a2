import { describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import { startMockUpstream } from '../../test-support/mock-openai.js';
import { seedChannel } from '../../test-support/seed.js';
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

  it('asked by an Anthropic client without a search tool: still one search, as the model searched anyway', async () => {
    await channel();
    const token = await gw.seedKey();
    const message = await gw.anthropic(token.key).messages.create({ model: 'gpt-4o-mini-search-preview', max_tokens: 200, messages: [{ role: 'user', content: 'News about Paris today?' }] });
    expect(message.content[0]).toMatchObject({ type: 'text' });
    await expectOneSearch(token.id, 'gpt-4o-mini-search-preview', 12_500);
  });
});
