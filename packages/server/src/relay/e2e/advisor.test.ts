import { describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import { seedChannel } from '../../test-support/seed.js';
import { startMockAnthropic } from '../../test-support/upstreams/anthropic.js';
import { MOCK_ADVICE_USAGE } from '../../test-support/upstreams/anthropic-replies.js';
import { vendorGateway } from '../../test-support/vendor-gateway.js';

/**
 * Anthropic's advisor tool (Claude Code's /advisor): the executor consults a stronger model mid-answer, and that
 * sub-inference is reported in `usage.iterations` (type `advisor_message`, with its model) apart from the totals,
 * which stay the executor's. It is billed at the advisor model's prices. Read from the totals alone, the advice was
 * free. The mock reports 823 input and 531 output tokens of claude-opus-4-6 beside the executor's own.
 */
const EXECUTOR = 'claude-sonnet-4-5-20250929';
const ADVISOR = 'claude-opus-4-6';
const gw = vendorGateway({ mock: startMockAnthropic });
const tools = [{ type: 'advisor_20260301', name: 'advisor', model: ADVISOR }] as never;

async function expectAdviceBilled(tokenId: number) {
  const after = await gw.settled(tokenId, 1);
  const [log] = after.logs;
  const own = costOf({ prompt_tokens: log.prompt_tokens, completion_tokens: log.completion_tokens }, pricesFor(gw.t.ctx.options, EXECUTOR, 'default'));
  const advisor = pricesFor(gw.t.ctx.options, ADVISOR, 'default');
  expect([advisor.modelRatio, advisor.completionRatio]).toEqual([2.5, 5]);
  const advice = costOf({ prompt_tokens: MOCK_ADVICE_USAGE.input_tokens, completion_tokens: MOCK_ADVICE_USAGE.output_tokens }, advisor);
  expect(advice).toBe(Math.ceil((823 + 531 * 5) * 2.5));
  expect(log.quota).toBe(own + advice);
  expect(log.content).toContain(`顾问模型 ${ADVISOR}：`);
  expect(log.content).toContain(`合计 ${own + advice} 额度`);
  expect(log.content).not.toContain('用量异常');
  expect(after.token.remain_quota).toBe(10_000_000 - log.quota);
}

describe('the advisor tool', () => {
  it('its advice is billed at the advisor model\'s prices beside the executor\'s tokens, whole and streamed', async () => {
    await seedChannel(gw.t.ctx.storage, { name: 'claude', type: 14, key: 'ok', baseUrl: gw.mock.url, models: EXECUTOR });
    const request = { model: EXECUTOR, max_tokens: 512, tools, messages: [{ role: 'user' as const, content: 'Plan a refactor of the billing module.' }] };
    const options = { headers: { 'anthropic-beta': 'advisor-tool-2026-03-01' } };
    const first = await gw.seedKey();
    const message = await gw.anthropic(first.key).messages.create(request, options);
    expect((message.usage as unknown as { iterations: Array<{ type: string }> }).iterations.map((i) => i.type)).toEqual(['message', 'advisor_message']);
    await expectAdviceBilled(first.id);
    const second = await gw.seedKey();
    await gw.anthropic(second.key).messages.stream(request, options).finalMessage();
    await expectAdviceBilled(second.id);
  });
});
