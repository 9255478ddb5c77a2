import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes, useParams } from 'react-router';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import RedemptionsPage from './redemptions-page';

const code = (id: number, fields: Record<string, unknown>) => ({
  id, user_id: 1, name: `batch-${id}`, key: `${'0'.repeat(30)}${id}${id}`.slice(-32), status: 1, quota: 100_000, created_time: 1_700_000_000, redeemed_time: 0, used_user_id: 0, ...fields,
});
const rows = [code(3, { name: 'fresh' }), code(2, { name: 'paused', status: 2 }), code(1, { name: 'spent', status: 3, redeemed_time: 1_700_000_500, used_user_id: 9, quota: 1_250_000 })];

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

function Probe({ label }: { label: string }) {
  return <p>{label} {useParams().id ?? ''}</p>;
}

async function renderPage(handlers: Parameters<typeof mockApi>[0] = {}) {
  const calls = mockApi({ 'GET /api/redemption/': () => ({ success: true, message: '', data: rows }), ...handlers });
  renderWith(
    <Routes>
      <Route path="/redemption" element={<RedemptionsPage />} />
      <Route path="/redemption/add" element={<Probe label="add form" />} />
      <Route path="/redemption/edit/:id" element={<Probe label="edit form" />} />
    </Routes>,
    { user: users.admin, path: '/redemption' },
  );
  await screen.findByText('fresh');
  return calls;
}
const rowOf = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;
const popconfirm = (title: string) => screen.getByText(title).closest('.ant-popconfirm') as HTMLElement;

describe('redemption list', () => {
  // covers S2-REDEMPTIONS-01, S2-REDEMPTIONS-02, S2-REDEMPTIONS-03, S2-REDEMPTIONS-04, S2-REDEMPTIONS-05, S2-REDEMPTIONS-06, S4-STATES-19, S4-STATES-20, S4-STATES-21, S7-API-62
  it('shows ID, name, status, quota, created and redeemed time; statuses unused, disabled, used', async () => {
    const calls = await renderPage();
    expect(calls[0].url).toBe('/api/redemption/?p=0');
    expect(screen.getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['ID', '名称', '状态', '额度', '创建时间', '兑换时间', '操作']);
    const fresh = rowOf('fresh');
    expect(within(fresh).getByText('3')).toBeTruthy();
    expect(within(fresh).getByText('未使用')).toBeTruthy();
    expect(within(fresh).getByText('$0.20')).toBeTruthy();
    expect(within(fresh).getByText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)).toBeTruthy();
    expect(within(fresh).getByText('尚未兑换')).toBeTruthy();
    expect(within(rowOf('paused')).getByText('已禁用')).toBeTruthy();
    const spent = rowOf('spent');
    expect(within(spent).getByText('已使用')).toBeTruthy();
    expect(within(spent).getByText('$2.50')).toBeTruthy();
    expect(within(spent).getAllByText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)).toHaveLength(2);
  });

  // covers S2-REDEMPTIONS-09, S4-STATES-22, S4-STATES-23, S7-API-68
  it('the toggle moves 1 <-> 2 with the status-only update and is disabled once the code is used', async () => {
    const calls = await renderPage({
      'PUT /api/redemption/': (body) => ({ success: true, message: '', data: { ...rows.find((r) => r.id === (body as { id: number }).id), ...(body as object) } }),
    });
    expect((within(rowOf('spent')).getByRole('button', { name: '启用' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(within(rowOf('fresh')).getByRole('button', { name: '禁用' }));
    await waitFor(() => expect(within(rowOf('fresh')).getByText('已禁用')).toBeTruthy());
    fireEvent.click(within(rowOf('paused')).getByRole('button', { name: '启用' }));
    await waitFor(() => expect(within(rowOf('paused')).getByText('未使用')).toBeTruthy());
    const puts = calls.filter((c) => c.method === 'PUT');
    expect(puts.map((c) => c.url)).toEqual(['/api/redemption/?status_only=true', '/api/redemption/?status_only=true']);
    expect(puts.map((c) => c.body)).toEqual([{ id: 3, status: 2 }, { id: 2, status: 1 }]);
    expect(calls.filter((c) => c.url === '/api/redemption/?p=0')).toHaveLength(1);
  });

  // covers S2-REDEMPTIONS-07, S4-STATES-37, S4-STATES-38
  it('copy copies the code; when the clipboard refuses, the code goes into the search box', async () => {
    await renderPage();
    let copied = '';
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (text: string) => void (copied = text) } });
    fireEvent.click(within(rowOf('fresh')).getByRole('button', { name: '复制' }));
    await waitFor(() => expect(copied).toBe(rows[0].key));
    expect(await screen.findByText('已复制到剪贴板！')).toBeTruthy();
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: () => Promise.reject(new Error('denied')) } });
    fireEvent.click(within(rowOf('paused')).getByRole('button', { name: '复制' }));
    await waitFor(() => expect((screen.getByPlaceholderText('搜索兑换码的 ID 和名称 ...') as HTMLInputElement).value).toBe(rows[1].key));
  });

  // covers S2-REDEMPTIONS-08, S7-API-69
  it('delete asks first; only the confirmation sends DELETE /api/redemption/{id}/ and the row leaves', async () => {
    const calls = await renderPage({ 'DELETE /api/redemption/2/': () => ({ success: true, message: '' }) });
    fireEvent.click(within(rowOf('paused')).getByRole('button', { name: '删除' }));
    fireEvent.click(within(popconfirm('确定删除兑换码 paused（ID 2）？')).getByRole('button', { name: '取消' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    fireEvent.click(within(rowOf('paused')).getByRole('button', { name: '删除' }));
    fireEvent.click(within(popconfirm('确定删除兑换码 paused（ID 2）？')).getByRole('button', { name: '删除' }));
    await waitFor(() => expect(screen.queryByText('paused')).toBeNull());
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual(['/api/redemption/2/']);
  });

  // covers S2-REDEMPTIONS-11, S7-API-63
  it('searches by id or name', async () => {
    const calls = await renderPage({ 'GET /api/redemption/search': () => ({ success: true, message: '', data: [rows[2]] }) });
    const box = screen.getByPlaceholderText('搜索兑换码的 ID 和名称 ...');
    fireEvent.change(box, { target: { value: '1' } });
    fireEvent.keyDown(box, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(screen.queryByText('fresh')).toBeNull());
    expect(screen.getByText('spent')).toBeTruthy();
    expect(calls.at(-1)?.url).toBe('/api/redemption/search?keyword=1');
  });

  // covers S2-REDEMPTIONS-10, S2-REDEMPTIONS-12
  it('edit leads to /redemption/edit/{id} (not for a used code); the add button to /redemption/add', async () => {
    await renderPage();
    expect((within(rowOf('spent')).getByRole('button', { name: '编辑' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(within(rowOf('paused')).getByRole('button', { name: '编辑' }));
    expect(await screen.findByText('edit form 2')).toBeTruthy();
  });

  it('the footer\'s add button and the empty list\'s call to action both open the form', async () => {
    mockApi({ 'GET /api/redemption/': () => ({ success: true, message: '', data: [] }) });
    renderWith(
      <Routes>
        <Route path="/redemption" element={<RedemptionsPage />} />
        <Route path="/redemption/add" element={<Probe label="add form" />} />
      </Routes>,
      { user: users.admin, path: '/redemption' },
    );
    const empty = await screen.findByText('还没有兑换码');
    expect(screen.getByRole('button', { name: '添加新的兑换码' })).toBeTruthy();
    fireEvent.click(within(empty.closest('.ant-empty') as HTMLElement).getByRole('button', { name: '创建第一批兑换码' }));
    expect(await screen.findByText(/add form/)).toBeTruthy();
  });
});
