import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import TokensPage from './tokens-page';

const FULL_KEY = `AbCd${'x'.repeat(40)}WxYz`;
// Lists carry the key masked (the server's maskTokenKey); the whole key only comes from POST /api/token/{id}/key.
const token = (id: number, fields: Record<string, unknown>) => ({
  id, user_id: 2, name: `k${id}`, key: 'AbCd****WxYz', status: 1, created_time: 1_700_000_000, accessed_time: 0, expired_time: -1, remain_quota: 500_000, unlimited_quota: false, used_quota: 250_000, models: '', subnet: '', ...fields,
});
const rows = [token(4, { name: 'live' }), token(3, { name: 'off', status: 2 }), token(2, { name: 'old', status: 3, expired_time: 1_700_000_500 }), token(1, { name: 'spent', status: 4, unlimited_quota: true })];

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

const account = (quota: number) => ({ id: 2, username: 'amy', display_name: 'Amy', role: 1, status: 1, email: '', github_id: '', wechat_id: '', lark_id: '', quota, used_quota: 0, request_count: 0, group: 'default', aff_code: 'AAAA', inviter_id: 0 });

async function renderPage(handlers: Parameters<typeof mockApi>[0] = {}) {
  const calls = mockApi({
    'GET /api/token/': () => ({ success: true, message: '', data: rows }),
    'GET /api/user/self': () => ({ success: true, message: '', data: account(10_000_000) }),
    'POST /api/token/4/key': () => ({ success: true, message: '', data: { key: FULL_KEY } }),
    ...handlers,
  });
  renderWith(<TokensPage />, { user: users.common, path: '/token' });
  await screen.findByText('live');
  return calls;
}
const rowOf = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;

describe('token list', () => {
  // covers S2-TOKENS-01, S2-TOKENS-02, S2-TOKENS-03, S2-TOKENS-04, S2-TOKENS-05, S2-TOKENS-06, S4-STATES-14, S4-STATES-15, S4-STATES-16, S4-STATES-17, S3-ENTITY-21
  it('shows name, status, used and remaining quota, created and expiry time', async () => {
    await renderPage();
    for (const title of ['名称', '状态', '已用额度', '剩余额度', '创建时间', '过期时间']) expect(screen.getAllByText(title).length).toBeGreaterThan(0);
    const live = rowOf('live');
    expect(within(live).getByText('已启用')).toBeTruthy();
    expect(within(live).getByText('$0.50')).toBeTruthy();
    expect(within(live).getByText('$1.00')).toBeTruthy();
    expect(within(live).getByText('永不过期')).toBeTruthy();
    expect(within(live).getByText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)).toBeTruthy();
    expect(within(rowOf('off')).getByText('已禁用')).toBeTruthy();
    expect(within(rowOf('old')).getByText('已过期')).toBeTruthy();
    expect(within(rowOf('spent')).getByText('已耗尽')).toBeTruthy();
    expect(within(rowOf('spent')).getByText('无限制')).toBeTruthy();
  });

  // covers S2-TOKENS-08
  it('chat opens the key in the web chat client', async () => {
    await renderPage();
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    fireEvent.click(within(rowOf('live')).getByRole('button', { name: '聊天' }));
    await waitFor(() => expect(open).toHaveBeenCalled());
    expect(open.mock.calls[0][0]).toContain(encodeURIComponent(`"key":"sk-${FULL_KEY}"`));
    open.mockRestore();
  });

  // covers S2-TOKENS-12, S2-TOKENS-13, S4-STATES-37, S4-STATES-38
  it('searches by name, offers the three sort choices, and puts the value in the search box when copying fails', async () => {
    const calls = await renderPage({ 'GET /api/token/search': () => ({ success: true, message: '', data: [rows[0]] }) });
    const box = screen.getByPlaceholderText('搜索令牌的名称 ...') as HTMLInputElement;
    fireEvent.change(box, { target: { value: 'li' } });
    fireEvent.keyDown(box, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(calls.some((c) => c.url === '/api/token/search?keyword=li')).toBe(true));
    expect(screen.getByText('默认排序')).toBeTruthy();
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: () => Promise.reject(new Error('denied')) } });
    fireEvent.click(within(rowOf('live')).getAllByRole('button', { name: '复制' })[0]);
    await waitFor(() => expect(box.value).toBe(`sk-${FULL_KEY}`));
    expect(await screen.findByText('无法复制到剪贴板，请手动复制')).toBeTruthy();
  });

  // covers S2-TOKENS-15
  it('shows each key masked with its sk- prefix; copy asks the server for the whole key at that moment', async () => {
    const calls = await renderPage();
    expect(within(rowOf('live')).getByText('sk-AbCd****WxYz')).toBeTruthy();
    expect(document.body.textContent).not.toContain(FULL_KEY);
    expect(calls.some((c) => c.url.includes('/key'))).toBe(false);
    let copied = '';
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text: string) => void (copied = text) } });
    fireEvent.click(within(rowOf('live')).getAllByRole('button', { name: '复制' })[0]);
    await waitFor(() => expect(copied).toBe(`sk-${FULL_KEY}`));
    expect(calls.filter((c) => c.url === '/api/token/4/key').map((c) => c.method)).toEqual(['POST']);
    expect(document.body.textContent).not.toContain(FULL_KEY);
  });

  it('a key\'s remaining quota is its own cap: when the owner\'s balance is lower, the row and the page say so', async () => {
    await renderPage({ 'GET /api/user/self': () => ({ success: true, message: '', data: account(0) }) });
    const live = rowOf('live');
    // The key's own quota is still shown as it is ...
    expect(within(live).getByText('$1.00')).toBeTruthy();
    // ... next to the balance that really limits it.
    expect(await within(live).findByText('账户余额仅 $0.00')).toBeTruthy();
    expect(within(rowOf('spent')).getByText('账户余额仅 $0.00')).toBeTruthy();
    expect(screen.getByText(/账户余额为 \$0\.00/)).toBeTruthy();
    expect(screen.getByRole('link', { name: '去充值' }).getAttribute('href')).toBe('/topup');
  });

  it('with enough balance nothing warns; an unlimited key always shows the balance it draws on', async () => {
    await renderPage();
    await waitFor(() => expect(within(rowOf('spent')).getByText('账户余额仅 $20.00')).toBeTruthy());
    expect(within(rowOf('live')).queryByText(/账户余额仅/)).toBeNull();
    expect(screen.queryByText(/账户余额为/)).toBeNull();
  });

  it('an empty list invites the user to add a key', async () => {
    mockApi({ 'GET /api/token/': () => ({ success: true, message: '', data: [] }), 'GET /api/user/self': () => ({ success: true, message: '', data: account(0) }) });
    renderWith(
      <Routes>
        <Route path="/token" element={<TokensPage />} />
        <Route path="/token/add" element={<p>token form</p>} />
      </Routes>,
      { user: users.common, path: '/token' },
    );
    const empty = await screen.findByText('还没有令牌');
    fireEvent.click(within(empty.closest('.ant-empty') as HTMLElement).getByRole('button', { name: '创建第一个令牌' }));
    expect(await screen.findByText('token form')).toBeTruthy();
  });

  // covers S4-STATES-18
  it('the toggle moves a key only between enabled (1) and disabled (2), with the status-only update', async () => {
    const calls = await renderPage({
      'PUT /api/token/': (body) => ({ success: true, message: '', data: { ...rows.find((r) => r.id === (body as { id: number }).id), ...(body as object) } }),
    });
    fireEvent.click(within(rowOf('live')).getByRole('button', { name: '禁用' }));
    await waitFor(() => expect(within(rowOf('live')).getByText('已禁用')).toBeTruthy());
    fireEvent.click(within(rowOf('off')).getByRole('button', { name: '启用' }));
    // An expired or exhausted key is offered "enable", never another state (the server decides whether it can be).
    fireEvent.click(within(rowOf('spent')).getByRole('button', { name: '启用' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(3));
    const puts = calls.filter((c) => c.method === 'PUT');
    expect(puts.every((c) => c.url === '/api/token/?status_only=true')).toBe(true);
    expect(puts.map((c) => c.body)).toEqual([{ id: 4, status: 2 }, { id: 3, status: 1 }, { id: 1, status: 1 }]);
    await waitFor(() => expect(within(rowOf('off')).getByText('已启用')).toBeTruthy());
  });
});
