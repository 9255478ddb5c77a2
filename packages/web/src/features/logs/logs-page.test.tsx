import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import { defaultLogFilters, logQuery } from './log-query';
import LogsPage from './logs-page';

const row = { id: 1, created_at: 1_700_000_000, type: 2, content: '模型倍率 0.075', username: 'amy', token_name: 'shop-key', model_name: 'gpt-4o-mini', quota: 4, prompt_tokens: 12, completion_tokens: 10, channel: 3, elapsed_time: 120, is_stream: false };

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

describe('log screen', () => {
  // covers S7-API-74
  it('the default window runs from epoch 0 to now plus one hour', () => {
    const now = Math.floor(Date.now() / 1000);
    const filters = defaultLogFilters();
    expect(filters.start.unix()).toBe(0);
    expect(Math.abs(filters.end.unix() - (now + 3600))).toBeLessThan(5);
    expect(logQuery(filters, false, 0)).not.toContain('username');
    expect(logQuery(filters, true, 0)).toContain('username=');
  });

  // covers S2-LOGS-01, S2-LOGS-02, S2-LOGS-03, S2-LOGS-04, S2-LOGS-05, S2-LOGS-07, S2-LOGS-08, S2-LOGS-09, S2-LOGS-10, S2-LOGS-11, S2-LOGS-12, S2-LOGS-13, S2-LOGS-14, S2-LOGS-15, S2-LOGS-16, S6-ROLES-16, S6-ROLES-17
  it('admins get every filter and column, including channel and user', async () => {
    const calls = mockApi({ 'GET /api/log/': () => ({ success: true, message: '', data: [row] }) });
    renderWith(<LogsPage />, { user: users.admin, path: '/log' });
    await screen.findByText('shop-key');
    for (const label of ['令牌名称', '模型名称', '起始时间', '结束时间', '日志类型', '渠道 ID', '用户名称']) expect(screen.getAllByText(label).length).toBeGreaterThan(0);
    for (const title of ['时间', '渠道', '用户', '令牌', '类型', '模型', '提示', '补全', '额度', '详情']) expect(screen.getAllByText(title).length).toBeGreaterThan(0);
    expect(screen.getByText('amy')).toBeTruthy();
    expect(screen.getByText('消费')).toBeTruthy();
    expect(screen.getByText('模型倍率 0.075')).toBeTruthy();
    expect(screen.getByText('12')).toBeTruthy();
    expect(calls[0].url.startsWith('/api/log/?p=0&type=0')).toBe(true);
  });

  // covers S2-LOGS-06, S6-ROLES-07, S7-API-73
  it('ordinary users use the self endpoints, have no channel/user filter, and see the total only after a click', async () => {
    const calls = mockApi({
      'GET /api/log/self/': () => ({ success: true, message: '', data: [row] }),
      'GET /api/log/self/stat': () => ({ success: true, message: '', data: { quota: 1_000_000 } }),
    });
    renderWith(<LogsPage />, { user: users.common, path: '/log' });
    await screen.findByText('shop-key');
    expect(screen.queryByText('渠道 ID')).toBeNull();
    expect(screen.queryByText('用户名称')).toBeNull();
    expect(calls.some((c) => c.url.includes('/stat'))).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: '点击查看总消耗额度' }));
    await waitFor(() => expect(screen.getByText('总消耗额度：$2.00')).toBeTruthy());
  });

  // covers S4-STATES-24, S4-STATES-25, S4-STATES-26, S4-STATES-27, S4-STATES-28
  it('log types: the filter offers 0 all, 1 top-up, 2 consumption, 3 management, 4 system, 5 error, and rows carry their labels', async () => {
    const logs = [
      { ...row, id: 11, type: 1, token_name: 't-topup', content: '通过兑换码充值' },
      { ...row, id: 12, type: 2, token_name: 't-consume' },
      { ...row, id: 13, type: 3, token_name: 't-manage', content: '管理员修改额度' },
      { ...row, id: 14, type: 4, token_name: 't-system', content: '新用户注册赠送' },
      { ...row, id: 15, type: 5, token_name: 't-error', content: '' },
    ];
    const calls = mockApi({ 'GET /api/log/': () => ({ success: true, message: '', data: logs }) });
    renderWith(<LogsPage />, { user: users.admin, path: '/log' });
    await screen.findByText('t-topup');
    // (the first cell of a row is its expand button)
    const typeOf = (token: string) => (screen.getByText(token).closest('tr') as HTMLElement).querySelectorAll('td')[5].textContent;
    expect(['t-topup', 't-consume', 't-manage', 't-system', 't-error'].map(typeOf)).toEqual(['充值', '消费', '管理', '系统', '错误']);
    const select = screen.getByRole('combobox', { name: '日志类型' });
    expect((select.closest('.ant-select') as HTMLElement).textContent).toBe('全部');
    expect(new URL(calls[0].url, 'http://x').searchParams.get('type')).toBe('0');
    fireEvent.mouseDown(select);
    await waitFor(() => expect(document.querySelectorAll('.ant-select-item-option').length).toBe(6));
    expect([...document.querySelectorAll('.ant-select-item-option')].map((o) => o.textContent)).toEqual(['全部', '充值', '消费', '管理', '系统', '错误']);
    for (const [label, type] of [['充值', '1'], ['消费', '2'], ['管理', '3'], ['系统', '4'], ['错误', '5'], ['全部', '0']] as const) {
      if (!document.querySelector('.ant-select-dropdown:not(.ant-select-dropdown-hidden)')) fireEvent.mouseDown(select);
      fireEvent.click(document.querySelector(`.ant-select-item-option[title="${label}"]`) as HTMLElement);
      fireEvent.click(screen.getByRole('button', { name: '查询' }));
      await waitFor(() => expect(new URL(calls[calls.length - 1].url, 'http://x').searchParams.get('type')).toBe(type));
    }
  });
});
