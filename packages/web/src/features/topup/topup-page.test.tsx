import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import TopUpPage from './topup-page';
import { topUpUrl } from './transaction-id';

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const account = (quota: number) => ({ id: 2, username: 'amy', display_name: 'Amy', role: 1, status: 1, email: '', github_id: '', wechat_id: '', lark_id: '', quota, used_quota: 750_000, request_count: 42, group: 'default', aff_code: 'AAAA', inviter_id: 0 });
const codeInput = () => screen.getByRole('textbox', { name: '兑换码' }) as HTMLInputElement;
const statistic = (title: string) => (screen.getByText(title).closest('.ant-statistic') as HTMLElement).querySelector('.ant-statistic-content')?.textContent;

describe('top-up screen', () => {
  // covers S2-TOPUP-01, S2-TOPUP-03, S2-TOPUP-04, S6-ROLES-06, S7-API-20, S8-ERRORS-33
  it('shows the remaining quota, redeems a code (trimmed) and shows the new balance', async () => {
    let balance = 0;
    const calls = mockApi({
      'GET /api/user/self': () => ({ success: true, message: '', data: account(balance) }),
      'POST /api/user/topup': () => {
        balance += 5_000_000;
        return { success: true, message: '', data: 5_000_000 };
      },
    });
    renderWith(<TopUpPage />, { user: users.common, path: '/topup' });
    await waitFor(() => expect(statistic('剩余额度')).toBe('$0.00'));
    expect(statistic('已用额度')).toBe('$1.50');
    expect(statistic('请求次数')).toBe('42');
    fireEvent.change(codeInput(), { target: { value: '  0123abcd  ' } });
    fireEvent.click(screen.getByRole('button', { name: '兑换' }));
    expect(await screen.findByText('充值成功！')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ key: '0123abcd' });
    expect(await screen.findByText('已成功兑换 $10.00')).toBeTruthy();
    // The balance is asked for again at once, and the code box is emptied.
    await waitFor(() => expect(statistic('剩余额度')).toBe('$10.00'));
    expect(codeInput().value).toBe('');
  });

  // covers S5-VALID-57
  it('an empty code says "请输入兑换码！" and sends nothing', async () => {
    const calls = mockApi({ 'GET /api/user/self': () => ({ success: true, message: '', data: account(0) }) });
    renderWith(<TopUpPage />, { user: users.common, path: '/topup' });
    fireEvent.change(codeInput(), { target: { value: '   ' } });
    fireEvent.click(screen.getByRole('button', { name: '兑换' }));
    expect(await screen.findByText('请输入兑换码！')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it('a refused code shows the server\'s reason; too many attempts show the rate-limit message', async () => {
    let status = 200;
    globalThis.fetch = (async (input: RequestInfo | URL) => {
      const url = String(input);
      if (url.startsWith('/api/user/self')) return new Response(JSON.stringify({ success: true, message: '', data: account(0) }), { status: 200 });
      if (status === 429) return new Response(JSON.stringify({ success: false, message: '兑换过于频繁，请稍后再试' }), { status: 429 });
      return new Response(JSON.stringify({ success: false, message: '该兑换码已被使用' }), { status: 200 });
    }) as typeof fetch;
    renderWith(<TopUpPage />, { user: users.common, path: '/topup' });
    fireEvent.change(codeInput(), { target: { value: 'used-code' } });
    fireEvent.click(screen.getByRole('button', { name: '兑换' }));
    expect(await screen.findByText('该兑换码已被使用')).toBeTruthy();
    status = 429;
    fireEvent.click(screen.getByRole('button', { name: '兑换' }));
    expect(await screen.findByText('错误：请求次数过多，请稍后再试！')).toBeTruthy();
    expect(screen.queryByText('请求失败')).toBeNull();
  });

  // covers S8-ERRORS-12
  it('an exception during the redemption shows "请求失败"', async () => {
    globalThis.fetch = (async (input: RequestInfo | URL) => {
      if (String(input).startsWith('/api/user/self')) return new Response(JSON.stringify({ success: true, message: '', data: account(0) }), { status: 200 });
      throw new TypeError('Failed to fetch');
    }) as typeof fetch;
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    renderWith(<TopUpPage />, { user: users.common, path: '/topup' });
    fireEvent.change(codeInput(), { target: { value: 'abc' } });
    fireEvent.click(screen.getByRole('button', { name: '兑换' }));
    expect(await screen.findByText('请求失败')).toBeTruthy();
  });

  // covers S2-TOPUP-02
  it('the top-up button opens the configured link with the user name, id and a fresh transaction id', async () => {
    mockApi({ 'GET /api/user/self': () => ({ success: true, message: '', data: account(0) }) });
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    renderWith(<TopUpPage />, { user: users.common, path: '/topup', status: { top_up_link: 'https://shop.example.com/buy?plan=basic' } });
    fireEvent.click(screen.getByRole('button', { name: '充值' }));
    fireEvent.click(screen.getByRole('button', { name: '充值' }));
    expect(open).toHaveBeenCalledTimes(2);
    const urls = open.mock.calls.map((call) => new URL(String(call[0])));
    for (const url of urls) {
      expect(`${url.origin}${url.pathname}`).toBe('https://shop.example.com/buy');
      expect(url.searchParams.get('plan')).toBe('basic');
      expect(url.searchParams.get('username')).toBe('amy');
      expect(url.searchParams.get('user_id')).toBe('2');
      expect(url.searchParams.get('transaction_id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    expect(urls[0].searchParams.get('transaction_id')).not.toBe(urls[1].searchParams.get('transaction_id'));
    expect(open.mock.calls[0][1]).toBe('_blank');
  });

  // covers S5-VALID-58
  it('without a configured link the button says "超级管理员未设置充值链接！" and opens nothing', async () => {
    mockApi({ 'GET /api/user/self': () => ({ success: true, message: '', data: account(0) }) });
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    renderWith(<TopUpPage />, { user: users.common, path: '/topup', status: { top_up_link: '' } });
    fireEvent.click(screen.getByRole('button', { name: '充值' }));
    expect(await screen.findByText('超级管理员未设置充值链接！')).toBeTruthy();
    expect(open).not.toHaveBeenCalled();
  });
});

describe('topUpUrl', () => {
  it('adds the query to links with or without one, before a fragment', () => {
    const user = { username: 'a b', id: 7 };
    expect(topUpUrl('https://x.test/pay', user, 't')).toBe('https://x.test/pay?username=a+b&user_id=7&transaction_id=t');
    expect(topUpUrl('https://x.test/pay?', user, 't')).toBe('https://x.test/pay?username=a+b&user_id=7&transaction_id=t');
    expect(topUpUrl('https://x.test/pay?a=1#top', user, 't')).toBe('https://x.test/pay?a=1&username=a+b&user_id=7&transaction_id=t#top');
  });
});
