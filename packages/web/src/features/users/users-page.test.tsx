import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes, useParams } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import UsersPage from './users-page';

const rows = [
  { id: 3, username: 'averyveryverylongname', display_name: '', email: '', role: 1, status: 1, group: '', quota: 1_000_000, used_quota: 500_000, request_count: 7 },
  { id: 2, username: 'boss', display_name: 'Big Boss', email: 'boss@example.com', role: 10, status: 2, group: 'vip,svip', quota: 10, used_quota: 0, request_count: 0 },
  { id: 1, username: 'root', display_name: 'Root User', email: '', role: 100, status: 1, group: 'default', quota: 5, used_quota: 0, request_count: 0 },
];

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

async function renderPage(handlers: Parameters<typeof mockApi>[0] = {}) {
  const calls = mockApi({ 'GET /api/user/': () => ({ success: true, message: '', data: rows }), ...handlers });
  renderWith(<UsersPage />, { user: users.root, path: '/user' });
  await screen.findByText('boss');
  return calls;
}
const rowOf = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;

describe('管理用户', () => {
  // covers S2-USERS-01, S2-USERS-04, S2-USERS-05, S2-USERS-06, S2-USERS-07, S2-USERS-08, S2-USERS-09, S2-USERS-10, S2-USERS-16, S2-USERS-17, S3-ENTITY-04, S3-ENTITY-05, S3-ENTITY-06, S3-ENTITY-08, S3-ENTITY-09
  it('shows the heading, every column, group tags ("default" when empty), roles and statuses', async () => {
    await renderPage();
    expect(screen.getByText('管理用户')).toBeTruthy();
    for (const title of ['ID', '用户名', '分组', '统计信息', '用户角色', '状态', '操作']) expect(screen.getAllByText(title).length).toBeGreaterThan(0);
    expect(within(rowOf('boss')).getByText('vip')).toBeTruthy();
    expect(within(rowOf('boss')).getByText('svip')).toBeTruthy();
    expect(within(rowOf('averyveryver...')).getByText('default')).toBeTruthy();
    expect(within(rowOf('boss')).getByText('管理员')).toBeTruthy();
    expect(within(rowOf('root')).getByText('超级管理员')).toBeTruthy();
    expect(within(rowOf('averyveryver...')).getByText('普通用户')).toBeTruthy();
    expect(within(rowOf('boss')).getByText('已封禁')).toBeTruthy();
    expect(within(rowOf('root')).getByText('已激活')).toBeTruthy();
  });

  // covers S2-USERS-13, S2-USERS-18, S2-USERS-19
  it('truncates long usernames and shows remaining and used quota and request count', async () => {
    await renderPage();
    const row = rowOf('averyveryver...');
    expect(within(row).getByText('$2.00')).toBeTruthy();
    expect(within(row).getByText('$1.00')).toBeTruthy();
    expect(within(row).getByText('7')).toBeTruthy();
  });

  // covers S4-STATES-06, S6-ROLES-16
  it('disables promote, demote, delete and disable for the super admin row', async () => {
    await renderPage();
    const root = rowOf('root');
    for (const name of ['提升', '降级', '删除', '禁用']) expect((within(root).getByRole('button', { name }) as HTMLButtonElement).disabled).toBe(true);
    expect((within(root).getByRole('button', { name: '编辑' }) as HTMLButtonElement).disabled).toBe(false);
  });

  // covers S2-USERS-03, S7-API-04
  it('searches with the trimmed keyword', async () => {
    const calls = await renderPage({ 'GET /api/user/search': () => ({ success: true, message: '', data: [rows[1]] }) });
    const box = screen.getByPlaceholderText(/搜索用户的 ID/);
    fireEvent.change(box, { target: { value: '  boss  ' } });
    fireEvent.keyDown(box, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(calls.some((c) => c.url === '/api/user/search?keyword=boss')).toBe(true));
  });

  // covers S4-STATES-01, S7-API-05
  it('an action sends username and action and the row takes the returned role and status', async () => {
    const calls = await renderPage({ 'POST /api/user/manage': () => ({ success: true, message: '', data: { role: 10, status: 1 } }) });
    fireEvent.click(within(rowOf('averyveryver...')).getByRole('button', { name: '提升' }));
    await waitFor(() => expect(within(rowOf('averyveryver...')).getByText('管理员')).toBeTruthy());
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ username: 'averyveryverylongname', action: 'promote' });
  });

  // covers S2-USERS-11, S2-USERS-12
  it('a click anywhere on a header cell sorts locally without a request, with the sort indicator; a second click reverses', async () => {
    const calls = await renderPage();
    const before = calls.length;
    const ids = () => screen.getAllByRole('row').slice(1).map((r) => r.querySelector('td')?.textContent);
    const header = (label: string) => screen.getAllByRole('columnheader').find((th) => th.textContent?.startsWith(label)) as HTMLElement;
    const indicator = (label: string) => ({
      sort: header(label).getAttribute('aria-sort'),
      up: Boolean(header(label).querySelector('.ant-table-column-sorter-up.active')),
      down: Boolean(header(label).querySelector('.ant-table-column-sorter-down.active')),
    });
    fireEvent.click(header('ID'));
    expect(ids()).toEqual(['1', '2', '3']);
    expect(indicator('ID')).toEqual({ sort: 'ascending', up: true, down: false });
    fireEvent.click(header('ID'));
    expect(ids()).toEqual(['3', '2', '1']);
    expect(indicator('ID')).toEqual({ sort: 'descending', up: false, down: true });
    // A third click goes back to ascending (no unsorted state in between).
    fireEvent.click(header('ID'));
    expect(ids()).toEqual(['1', '2', '3']);
    // Every sortable header: username, group, statistics (remaining quota), role, status.
    fireEvent.click(header('统计信息'));
    expect(ids()).toEqual(['1', '2', '3']);
    fireEvent.click(header('统计信息'));
    expect(ids()).toEqual(['3', '2', '1']);
    fireEvent.click(header('用户角色'));
    expect(ids()).toEqual(['3', '2', '1']);
    fireEvent.click(header('用户名'));
    expect(ids()).toEqual(['3', '2', '1']);
    fireEvent.click(header('用户名'));
    expect(ids()).toEqual(['1', '2', '3']);
    fireEvent.click(header('分组'));
    expect(ids()).toEqual(['3', '1', '2']);
    fireEvent.click(header('状态'));
    expect(ids()[2]).toBe('2');
    expect(calls.length).toBe(before);
  });

  // covers S8-ERRORS-13
  it('a transport failure on the first load shows an error', async () => {
    globalThis.fetch = (async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof fetch;
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    renderWith(<UsersPage />, { user: users.root, path: '/user' });
    expect(await screen.findByText('错误：Failed to fetch')).toBeTruthy();
    spy.mockRestore();
  });

  // covers S2-USERS-26
  it('has the add button and the sort dropdown in the footer', async () => {
    await renderPage();
    expect(screen.getByRole('button', { name: '添加新的用户' }).closest('a')?.getAttribute('href')).toBe('/user/add');
    expect(screen.getByText('默认排序')).toBeTruthy();
  });

  // covers S2-USERS-14, S2-USERS-15, S2-USERS-20
  it('the username popup shows the display name (else the username) and the e-mail (else 无邮箱); statistics have hover labels', async () => {
    await renderPage();
    const popupWith = (text: string) =>
      waitFor(() => {
        const found = [...document.querySelectorAll('.ant-popover-content')].find((p) => p.textContent?.includes(text));
        expect(found).toBeTruthy();
        return found as HTMLElement;
      });
    fireEvent.mouseEnter(screen.getByText('boss'));
    expect((await popupWith('Big Boss')).textContent).toBe('Big Bossboss@example.com');
    fireEvent.mouseEnter(screen.getByText('averyveryver...'));
    expect((await popupWith('averyveryverylongname')).textContent).toBe('averyveryverylongname无邮箱');
    fireEvent.mouseEnter(within(rowOf('averyveryver...')).getByText('7'));
    expect(await screen.findByText('请求次数')).toBeTruthy();
  });

  // covers S2-USERS-25
  it('edit leads to /user/edit/{id}', async () => {
    mockApi({ 'GET /api/user/': () => ({ success: true, message: '', data: rows }) });
    function Probe() {
      return <p>editing user {useParams().id}</p>;
    }
    renderWith(
      <Routes>
        <Route path="/user" element={<UsersPage />} />
        <Route path="/user/edit/:id" element={<Probe />} />
      </Routes>,
      { user: users.root, path: '/user' },
    );
    fireEvent.click(within((await screen.findByText('boss')).closest('tr') as HTMLElement).getByRole('button', { name: '编辑' }));
    expect(await screen.findByText('editing user 2')).toBeTruthy();
  });

  // covers S2-USERS-27, S2-USERS-28, S2-USERS-02
  it('the sort dropdown offers default, remaining quota, used quota and request count and reloads page 0 in that order; the list pages', async () => {
    const calls = await renderPage();
    expect(screen.getByPlaceholderText('搜索用户的 ID，用户名，显示名称，以及邮箱地址 ...')).toBeTruthy();
    expect(screen.getByRole('list').querySelector('.ant-pagination-item-1')).toBeTruthy();
    fireEvent.mouseDown(screen.getByRole('combobox', { name: '排序方式' }));
    await waitFor(() => expect(document.querySelectorAll('.ant-select-item-option').length).toBe(4));
    expect([...document.querySelectorAll('.ant-select-item-option')].map((o) => o.textContent)).toEqual(['默认排序', '按剩余额度排序', '按已用额度排序', '按请求次数排序']);
    fireEvent.click(document.querySelector('.ant-select-item-option[title="按请求次数排序"]') as HTMLElement);
    await waitFor(() => expect(calls.at(-1)?.url).toBe('/api/user/?p=0&order=request_count'));
  });

  // covers S3-ENTITY-07, S3-ENTITY-10, S3-ENTITY-01, S3-ENTITY-02, S3-ENTITY-03
  it('an unknown role shows 未知身份 and an unknown status 未知状态', async () => {
    mockApi({ 'GET /api/user/': () => ({ success: true, message: '', data: [{ ...rows[0], id: 9, username: 'odd', role: 5, status: 7 }] }) });
    renderWith(<UsersPage />, { user: users.root, path: '/user' });
    const row = (await screen.findByText('odd')).closest('tr') as HTMLElement;
    expect(within(row).getByText('未知身份')).toBeTruthy();
    expect(within(row).getByText('未知状态')).toBeTruthy();
  });
});
