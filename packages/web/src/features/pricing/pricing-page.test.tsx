import type { PricingModel } from '@model-relay/contract';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import PricingPage from './pricing-page';

const model = (fields: Partial<PricingModel> & { model_name: string }): PricingModel => ({
  quota_type: 0, model_ratio: 1, model_price: 0, owner_by: '', completion_ratio: 1, cache_ratio: 1, create_cache_ratio: 1, create_cache_1h_ratio: 1, reasoning_ratio: 1,
  ratio_configured: true, enable_groups: ['default'], supported_endpoint_types: [], ...fields,
});
const list = {
  success: true,
  message: '',
  data: [
    model({ model_name: 'gpt-4o', model_ratio: 1.25, completion_ratio: 4, cache_ratio: 0.5, reasoning_ratio: 4 }),
    model({ model_name: 'claude-sonnet-4-5', model_ratio: 1.5, completion_ratio: 5, cache_ratio: 0.1, create_cache_ratio: 1.25, create_cache_1h_ratio: 2, reasoning_ratio: 5 }),
    model({ model_name: 'mystery-model', model_ratio: 30, ratio_configured: false }),
  ],
  group_ratio: { default: 1 },
  usable_group: { default: '默认分组' },
};
/** A model priced in bands by prompt length (Gemini 2.5 Pro above 200K; a Qwen coder in tiers). */
const banded = {
  ...list,
  data: [
    model({ model_name: 'gemini-2.5-pro', model_ratio: 0.625, completion_ratio: 8, reasoning_ratio: 8, cache_ratio: 0.25, long_context: [{ above: 200_000, input: 2, output: 1.5 }] }),
    model({ model_name: 'qwen3-coder-plus', model_ratio: 1, completion_ratio: 4, reasoning_ratio: 4, long_context: [{ above: 32_000, input: 1.5, output: 1.5 }, { above: 1_000_000, input: 3, output: 3 }] }),
  ],
};

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

const rows = () => [...document.querySelectorAll('.ant-table-tbody tr.ant-table-row')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));

describe('pricing page', () => {
  it('lists every model with input, output, cache-read and cache-write prices per million tokens in dollars', async () => {
    mockApi({ 'GET /api/pricing': () => list });
    renderWith(<PricingPage />, { path: '/pricing' });
    await screen.findByText('gpt-4o');
    expect(rows()).toEqual([
      ['gpt-4o', '$2.50', '$10.00', '$1.25', '$2.50'],
      ['claude-sonnet-4-5', '$3.00', '$15.00', '$0.30', '$3.751 小时：$6.00'],
      ['mystery-model默认倍率', '$60.00', '$60.00', '$60.00', '$60.00'],
    ]);
    expect(screen.getByText(/价格单位：美元 \/ 每百万 tokens；默认分组 default，分组倍率 1/)).toBeTruthy();
  });

  it("a group's ratio scales every price; currency display off shows quota units", async () => {
    mockApi({ 'GET /api/pricing': () => ({ ...list, group_ratio: { vip: 0.5 }, usable_group: { vip: 'vip 分组' } }) });
    renderWith(<PricingPage />, { path: '/pricing', user: users.common, status: { display_in_currency: false } });
    await screen.findByText('gpt-4o');
    expect(rows()[0]).toEqual(['gpt-4o', '625.0k', '2.5M', '312.5k', '625.0k']);
    expect(screen.getByText(/价格单位：额度 \/ 每百万 tokens；你的分组 vip，分组倍率 0.5/)).toBeTruthy();
  });

  it('shows the long-context bands under the standard input and output prices', async () => {
    mockApi({ 'GET /api/pricing': () => banded });
    renderWith(<PricingPage />, { path: '/pricing' });
    await screen.findByText('gemini-2.5-pro');
    expect(rows()).toEqual([
      ['gemini-2.5-pro', '$1.25提示超过 200K：$2.50', '$10.00提示超过 200K：$15.00', '$0.3125', '$1.25'],
      ['qwen3-coder-plus', '$2.00提示超过 32K：$3.00提示超过 1M：$6.00', '$8.00提示超过 32K：$12.00提示超过 1M：$24.00', '$2.00', '$2.00'],
    ]);
    expect(screen.getByText(/按提示长度分档计价/)).toBeTruthy();
  });

  it('the search box narrows the list by model name', async () => {
    mockApi({ 'GET /api/pricing': () => list });
    renderWith(<PricingPage />, { path: '/pricing' });
    await screen.findByText('gpt-4o');
    fireEvent.change(screen.getByPlaceholderText('搜索模型名称'), { target: { value: 'CLAUDE' } });
    await waitFor(() => expect(rows().map((r) => r[0])).toEqual(['claude-sonnet-4-5']));
  });

  it('closed to visitors: says so and offers to sign in, without an error toast', async () => {
    mockApi({ 'GET /api/pricing': () => ({ success: false, message: '管理员未开放定价页面，请登录后查看' }) });
    renderWith(<PricingPage />, { path: '/pricing' });
    expect(await screen.findByText('定价页面未开放')).toBeTruthy();
    expect(screen.getByText('管理员未开放定价页面，请登录后查看')).toBeTruthy();
    expect(screen.getByRole('button', { name: '登录' })).toBeTruthy();
  });
});
