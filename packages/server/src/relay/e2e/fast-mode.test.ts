import { describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import { startMockUpstream } from '../../test-support/mock-openai.js';
import { seedChannel } from '../../test-support/seed.js';
import { startMockAnthropic } from '../../test-support/upstreams/anthropic.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * A request the upstream runs in its fast mode costs a multiple of every token price (docs/ledger.md, units and
 * prices): Anthropic's `speed: "fast"` (Claude Code's /fast) 6 times the standard prices of Opus 4.6, OpenAI's Fast
 * mode (`service_tier` "priority" or "fast", Codex's service_tier setting) about twice. Passed through, such a
 * request was billed at the standard price. The mocks say what the real services say: Anthropic's usage carries
 * `speed: "fast"`, OpenAI's answer `service_tier: "priority"`.
 */
const CLAUDE = 'claude-opus-4-6';
const gw = vendorGateway({ mock: startMockAnthropic, others: { openai: startMockUpstream }, modelRatio: { [CLAUDE]: 2.5, 'gpt-5': 0.625 }, completionRatio: { [CLAUDE]: 5, 'gpt-5': 8 } });

describe('fast mode', () => {
  it('Anthropic speed "fast": billed 6 times the standard price, whole and streamed; the same request without it at the standard price', async () => {
    await seedChannel(gw.t.ctx.storage, { name: 'claude', type: 14, key: 'ok', baseUrl: gw.mock.url, models: CLAUDE });
    const token = await gw.seedKey();
    const claude = gw.anthropic(token.key);
    const request = { model: CLAUDE, max_tokens: 256, messages: [{ role: 'user' as const, content: 'Hello' }] };
    const fast = { ...request, speed: 'fast' } as typeof request;
    const whole = await claude.messages.create(fast);
    expect((whole.usage as unknown as { speed?: string }).speed).toBe('fast');
    const stream = claude.messages.stream(fast);
    await stream.finalMessage();
    await claude.messages.create(request);
    const logs = (await gw.settled(token.id, 3)).logs;
    const prices = pricesFor(gw.t.ctx.options, CLAUDE, 'default');
    expect(prices.fastModeRatio).toBe(6);
    for (const log of logs) {
      const standard = costOf({ prompt_tokens: log.prompt_tokens, completion_tokens: log.completion_tokens }, prices);
      expect(log.quota).toBe(log.id === logs[2].id ? standard : costOf({ prompt_tokens: log.prompt_tokens, completion_tokens: log.completion_tokens, fast_mode: true }, prices));
      if (log.id !== logs[2].id) expect(log.quota).toBeGreaterThanOrEqual(6 * standard - 6);
    }
    expect(logs[0].content).toContain('快速模式 × 6');
    expect(logs[1].content).toContain('快速模式 × 6');
    expect(logs[2].content).not.toContain('快速模式');
  });

  it('Anthropic inference_geo "us" (US-only inference): 1.1 times every token price, stacked on fast mode', async () => {
    await seedChannel(gw.t.ctx.storage, { name: 'claude', type: 14, key: 'ok', baseUrl: gw.mock.url, models: CLAUDE });
    const token = await gw.seedKey();
    const request = { model: CLAUDE, max_tokens: 256, messages: [{ role: 'user' as const, content: 'Hello' }], inference_geo: 'us', speed: 'fast' } as never;
    const message = await gw.anthropic(token.key).messages.create(request);
    expect(message.usage).toMatchObject({ inference_geo: 'us', speed: 'fast' });
    const [log] = (await gw.settled(token.id, 1)).logs;
    const prices = pricesFor(gw.t.ctx.options, CLAUDE, 'default');
    expect(prices.regionalRatio).toBe(1.1);
    expect(log.quota).toBe(Math.ceil((log.prompt_tokens + log.completion_tokens * 5) * 2.5 * 6 * 1.1 - 1e-9));
    expect(log.content).toContain('快速模式 × 6，指定地域推理 × 1.1');
  });

  it('OpenAI service_tier "priority": billed at the model\'s Fast mode ratio (gpt-5: 2)', async () => {
    await seedChannel(gw.t.ctx.storage, { name: 'openai', type: 1, key: 'ok', baseUrl: gw.others.openai.url, models: 'gpt-5' });
    const token = await gw.seedKey();
    const answer = await gw.openai(token.key).chat.completions.create({ model: 'gpt-5', service_tier: 'priority', messages: [{ role: 'user', content: 'Hello' }] });
    expect(answer.service_tier).toBe('priority');
    const [log] = (await gw.settled(token.id, 1)).logs;
    const prices = pricesFor(gw.t.ctx.options, 'gpt-5', 'default');
    expect(log.quota).toBe(costOf({ prompt_tokens: log.prompt_tokens, completion_tokens: log.completion_tokens, fast_mode: true }, prices));
    expect(log.quota).toBe(Math.ceil((log.prompt_tokens + log.completion_tokens * 8) * 0.625 * 2 - 1e-9));
    expect(log.content).toContain('快速模式 × 2');
  });

  it('a service tier the gateway cannot price (GPT-6 ultrafast) is refused before anything is reserved or sent, in Chat Completions and Responses', async () => {
    await seedChannel(gw.t.ctx.storage, { name: 'openai', type: 1, key: 'ok', baseUrl: gw.others.openai.url, models: 'gpt-6.1-sol' });
    const token = await gw.seedKey();
    const sent = gw.others.openai.requests.length;
    const openai = gw.openai(token.key);
    const chat = openai.chat.completions.create({ model: 'gpt-6.1-sol', service_tier: 'ultrafast' as never, messages: [{ role: 'user', content: 'Hello' }] });
    await expect(chat).rejects.toMatchObject({ status: 400, message: expect.stringContaining('service_tier「ultrafast」') });
    const responses = openai.responses.create({ model: 'gpt-6.1-sol', service_tier: 'ultrafast' as never, input: 'Hello' });
    await expect(responses).rejects.toMatchObject({ status: 400 });
    expect(gw.others.openai.requests.length).toBe(sent);
    const after = await gw.settled(token.id, 0);
    expect(after.logs).toEqual([]);
    // flex (half price at OpenAI) is served and billed at the standard price, never below.
    await openai.chat.completions.create({ model: 'gpt-6.1-sol', service_tier: 'flex', messages: [{ role: 'user', content: 'Hello' }] });
    expect((await gw.settled(token.id, 1)).logs).toHaveLength(1);
  });
});
