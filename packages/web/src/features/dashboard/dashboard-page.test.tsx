import type { DashboardReport, DashboardSummary } from '@model-relay/contract';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import DashboardPage from './dashboard-page';

const zero = { requests: 0, failures: 0, quota: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0, latency_ms: 0 };
const summary = (scope: 'self' | 'all'): DashboardSummary => ({
  scope, balance: 2_500_000, used_quota: 1_000_000, request_count: 1234,
  today: { ...zero, quota: 4, requests: 1, prompt_tokens: 12, completion_tokens: 10 },
  month: { ...zero, quota: 500_000, requests: 40, prompt_tokens: 3000, completion_tokens: 1000, failures: 2 },
});
const report = (everyone: boolean): DashboardReport => ({
  start: 0, end: 86400, granularity: 'day',
  totals: { ...zero, quota: 750_000, requests: 12, failures: 1, prompt_tokens: 900, completion_tokens: 300, latency_ms: 24_000 },
  series: [{ ...zero, time: 0, quota: 750_000, requests: 12 }],
  models: [
    { ...zero, model: 'gpt-4o', quota: 500_000, requests: 8 },
    { ...zero, model: 'claude-sonnet-4-5', quota: 250_000, requests: 4, failures: 1 },
  ],
  model_series: [{ time: 0, model: 'gpt-4o', quota: 500_000, requests: 8 }],
  tokens: [{ ...zero, token_id: 3, token_name: 'shop-key', user_id: 2, quota: 750_000, requests: 12 }],
  ...(everyone
    ? {
        users: [{ ...zero, user_id: 2, username: 'amy', quota: 700_000, requests: 10 }],
        channels: [{ ...zero, channel_id: 5, channel_name: 'openai-main', quota: 750_000, requests: 12 }],
      }
    : {}),
});

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const ok = (data: unknown) => () => ({ success: true, message: '', data });
const card = (title: string) => screen.getByText(title, { selector: '.ant-card-head-title' }).closest('.ant-card') as HTMLElement;
const rowsOf = (title: string) => [...card(title).querySelectorAll('.ant-table-tbody tr.ant-table-row')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));

describe('dashboard', () => {
  it('a user sees their balance, today and this month, the range totals, spending by model and their keys', async () => {
    const calls = mockApi({
      'GET /api/dashboard/self/summary': ok(summary('self')),
      'GET /api/dashboard/self/report': ok(report(false)),
      'GET /api/token/': ok([{ id: 3, name: 'shop-key', status: 1 }]),
    });
    renderWith(<DashboardPage />, { user: users.common, path: '/dashboard' });
    await waitFor(() => expect(screen.getByLabelText('当前余额').textContent).toContain('$5.00'));
    const balance = screen.getByLabelText('当前余额');
    expect(balance.textContent).toContain('累计消费 $2.00');
    expect(screen.getByLabelText('今日消费').textContent).toContain('$0.000008');
    expect(screen.getByLabelText('今日消费').textContent).toContain('请求 1 次 · 22 tokens');
    expect(screen.getByLabelText('本月消费').textContent).toContain('$1.00');
    expect(screen.getByLabelText('本月消费').textContent).toContain('失败 2 次');
    await screen.findByText('gpt-4o');
    expect(rowsOf('按模型')).toEqual([
      ['gpt-4o', '$1.00', '8', '0', '0', '0', '0', '0.00 秒'],
      ['claude-sonnet-4-5', '$0.50', '4', '1', '0', '0', '0', '0.00 秒'],
    ]);
    expect(rowsOf('令牌排行')[0]).toEqual(['shop-key', '$1.50', '12', '0', '0', '0', '0', '0.00 秒']);
    const totals = screen.getByLabelText('所选范围合计');
    expect(totals.textContent).toContain('$1.50');
    expect(totals.textContent).toContain('1.85 秒');
    // the user's own endpoints, the viewer's time zone, the last seven days by day; no users or channels
    const reportCall = new URL(calls.find((c) => c.url.startsWith('/api/dashboard/self/report'))!.url, 'http://x');
    expect(reportCall.searchParams.get('granularity')).toBe('day');
    expect(Number(reportCall.searchParams.get('end')) - Number(reportCall.searchParams.get('start'))).toBe(7 * 86400);
    expect(reportCall.searchParams.get('tz')).toBe(String(-new Date().getTimezoneOffset()));
    expect(screen.queryByText('用户排行')).toBeNull();
    expect(screen.queryByText('渠道排行')).toBeNull();
    expect(screen.queryByRole('radio', { name: '全站用量' })).toBeNull();
    expect(calls.some((c) => c.url.startsWith('/api/dashboard/report'))).toBe(false);
  });

  it('switching to hours and picking a model and key asks again with those filters', async () => {
    const calls = mockApi({
      'GET /api/dashboard/self/summary': ok(summary('self')),
      'GET /api/dashboard/self/report': ok(report(false)),
      'GET /api/token/': ok([{ id: 3, name: 'shop-key', status: 1 }]),
    });
    renderWith(<DashboardPage />, { user: users.common, path: '/dashboard' });
    await screen.findByText('gpt-4o');
    fireEvent.click(screen.getByText('按小时'));
    fireEvent.mouseDown(screen.getByRole('combobox', { name: '模型' }));
    fireEvent.click(await waitFor(() => document.querySelector('.ant-select-item-option[title="claude-sonnet-4-5"]') as HTMLElement));
    fireEvent.mouseDown(screen.getByRole('combobox', { name: '令牌' }));
    fireEvent.click(await waitFor(() => document.querySelector('.ant-select-item-option[title="shop-key"]') as HTMLElement));
    fireEvent.click(screen.getByRole('button', { name: '查询' }));
    await waitFor(() => {
      const last = new URL(calls.filter((c) => c.url.startsWith('/api/dashboard/self/report')).at(-1)!.url, 'http://x');
      expect(Object.fromEntries(last.searchParams)).toMatchObject({ granularity: 'hour', model: 'claude-sonnet-4-5', token_id: '3' });
    });
  });

  it('an admin sees everyone by default, with top users and channels, filters by user and channel, and exports a CSV', async () => {
    const calls = mockApi({
      'GET /api/dashboard/summary': ok(summary('all')),
      'GET /api/dashboard/report': ok(report(true)),
      'GET /api/dashboard/self/summary': ok(summary('self')),
      'GET /api/dashboard/self/report': ok(report(false)),
      'GET /api/token/': ok([]),
    });
    const json = globalThis.fetch;
    const csv = '\uFEFF时间,用户名\r\n2026-03-10,amy\r\n';
    globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input).startsWith('/api/dashboard/export')) {
        calls.push({ method: 'GET', url: String(input), body: undefined });
        return new Response(csv, { headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment; filename="usage-20260304-20260310.csv"' } });
      }
      return json(input, init);
    }) as typeof fetch;
    const created: Blob[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => (created.push(blob as Blob), 'blob:csv'));
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
    const clicks: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(this.download);
    });

    renderWith(<DashboardPage />, { user: users.admin, path: '/dashboard' });
    await waitFor(() => expect(screen.getByLabelText('用户余额合计').textContent).toContain('$5.00'));
    await screen.findByText('openai-main', { exact: false });
    expect(rowsOf('用户排行')[0]).toEqual(['amy', '$1.40', '10', '0', '0', '0', '0', '0.00 秒']);
    expect(rowsOf('渠道排行')[0][0]).toBe('#5 openai-main');
    expect(rowsOf('令牌排行')[0].slice(0, 2)).toEqual(['shop-key', '2']);
    fireEvent.change(screen.getByRole('textbox', { name: '用户名' }), { target: { value: ' amy ' } });
    fireEvent.change(screen.getByRole('spinbutton', { name: '渠道 ID' }), { target: { value: '5' } });
    fireEvent.click(screen.getByRole('button', { name: '查询' }));
    await waitFor(() => {
      const last = new URL(calls.filter((c) => c.url.startsWith('/api/dashboard/report')).at(-1)!.url, 'http://x');
      expect(Object.fromEntries(last.searchParams)).toMatchObject({ username: 'amy', channel_id: '5' });
    });
    fireEvent.click(screen.getByRole('button', { name: /导出 CSV/ }));
    await waitFor(() => expect(clicks).toEqual(['usage-20260304-20260310.csv']));
    expect(await created[0].text()).toBe(csv);
    const exported = new URL(calls.find((c) => c.url.startsWith('/api/dashboard/export'))!.url, 'http://x');
    expect(exported.searchParams.get('username')).toBe('amy');
    expect(await screen.findByText('已导出 usage-20260304-20260310.csv')).toBeTruthy();

    // 我的用量: the admin's own usage, from the self endpoints
    fireEvent.click(screen.getByText('我的用量'));
    await waitFor(() => expect(calls.some((c) => c.url.startsWith('/api/dashboard/self/report'))).toBe(true));
    await waitFor(() => expect(screen.queryByText('用户排行')).toBeNull());
    expect(within(card('仪表盘')).getByLabelText('当前余额')).toBeTruthy();
  });

  it('a refused export shows the server message', async () => {
    mockApi({
      'GET /api/dashboard/self/summary': ok(summary('self')),
      'GET /api/dashboard/self/report': ok(report(false)),
      'GET /api/dashboard/self/export': () => ({ success: false, message: '导出的数据超过 100000 行，请缩小时间范围或改为按天统计' }),
      'GET /api/token/': ok([]),
    });
    renderWith(<DashboardPage />, { user: users.common, path: '/dashboard' });
    await screen.findByText('gpt-4o');
    fireEvent.click(screen.getByRole('button', { name: /导出 CSV/ }));
    expect(await screen.findByText('导出的数据超过 100000 行，请缩小时间范围或改为按天统计')).toBeTruthy();
  });

  it('a range without any request says so (and how to make one) instead of drawing empty axes', async () => {
    const empty: DashboardReport = { start: 0, end: 86400, granularity: 'day', totals: zero, series: [{ ...zero, time: 0 }], models: [], model_series: [], tokens: [] };
    mockApi({
      'GET /api/dashboard/self/summary': ok({ ...summary('self'), today: zero, month: zero }),
      'GET /api/dashboard/self/report': ok(empty),
      'GET /api/token/': ok([]),
    });
    renderWith(<DashboardPage />, { user: users.common, path: '/dashboard' });
    const trend = await screen.findByLabelText('用量趋势：消费');
    await waitFor(() => expect(trend.textContent).toContain('所选范围内还没有请求：用令牌调用模型，或在操练场试一试'));
    expect(trend.querySelector('.recharts-responsive-container')).toBeNull();
  });
});
