import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes, useLocation, useParams } from 'react-router';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findNewText, mockApi, renderWith, users } from '../../test-support';
import ChannelsPage from './channels-page';

const channel = (id: number, fields: Record<string, unknown>) => ({
  id, type: 1, name: `c${id}`, key: '', status: 1, weight: 0, priority: 0, created_time: 0, test_time: 0, response_time: 0, base_url: '', other: '',
  balance: 0, balance_updated_time: 0, models: 'gpt-4o,gpt-4o-mini', group: 'default', used_quota: 0, request_count: 0, model_mapping: '', config: '', system_prompt: '', ...fields,
});
const rows = [
  channel(2, { name: 'openai-main', response_time: 800, balance: 12.5, group: 'default,vip', priority: 5 }),
  channel(1, { name: 'claude', type: 14, status: 3, response_time: 6000 }),
];

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

function EditProbe() {
  return <p>editing channel {useParams().id}</p>;
}

async function renderPage(handlers: Parameters<typeof mockApi>[0] = {}, firstRow = 'openai-main') {
  const calls = mockApi({ 'GET /api/channel/': () => ({ success: true, message: '', data: rows }), ...handlers });
  renderWith(
    <Routes>
      <Route path="/channel" element={<ChannelsPage />} />
      <Route path="/channel/edit/:id" element={<EditProbe />} />
      <Route path="/setting" element={<SettingsProbe />} />
    </Routes>,
    { user: users.root, path: '/channel' },
  );
  await screen.findByText(firstRow);
  return calls;
}
const rowOf = (text: string) => screen.getByText(text).closest('tr') as HTMLElement;
const popconfirm = (title: string) => screen.getByText(title).closest('.ant-popconfirm') as HTMLElement;

describe('channel list', () => {
  // covers S2-CHANNELS-01, S2-CHANNELS-02, S2-CHANNELS-03, S2-CHANNELS-04, S2-CHANNELS-05, S2-CHANNELS-06, S2-CHANNELS-07, S2-CHANNELS-08, S2-CHANNELS-09, S2-CHANNELS-10, S2-CHANNELS-24, S4-STATES-07, S4-STATES-09
  it('shows every column with type text, status, response time, balance, priority and test model', async () => {
    await renderPage();
    for (const title of ['ID', '名称', '分组', '类型', '状态', '响应时间', '余额', '优先级', '测试模型', '操作']) expect(screen.getAllByText(title).length).toBeGreaterThan(0);
    const main = rowOf('openai-main');
    expect(within(main).getByText('OpenAI')).toBeTruthy();
    expect(within(main).getByText('vip')).toBeTruthy();
    expect(within(main).getByText('已启用')).toBeTruthy();
    expect(within(main).getByText('0.80 秒')).toBeTruthy();
    expect(within(main).getByText('$12.50')).toBeTruthy();
    expect((within(main).getByRole('spinbutton') as HTMLInputElement).value).toBe('5');
    expect(within(main).getByRole('combobox')).toBeTruthy();
    const claude = rowOf('claude');
    expect(within(claude).getByText('Anthropic Claude')).toBeTruthy();
    expect(within(claude).getByText('已被自动禁用')).toBeTruthy();
    expect(within(claude).getByText('不支持')).toBeTruthy();
  });

  // covers S2-CHANNELS-13, S2-CHANNELS-14, S2-CHANNELS-15, S2-CHANNELS-16, S2-CHANNELS-17, S2-CHANNELS-25
  it('has the add, test all, test disabled, delete disabled and refresh buttons, and the notice', async () => {
    const calls = await renderPage({
      'GET /api/channel/test': () => ({ success: true, message: '' }),
      'GET /api/channel/test/status': () => ({ success: true, message: '', data: { running: false, scope: 'all', total: 2, done: 2, failed: 0, started_at: 1, finished_at: 2 } }),
    });
    for (const name of ['添加新的渠道', '测试所有渠道', '测试禁用渠道', '删除禁用渠道', '刷新']) expect(screen.getByRole('button', { name })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: '测试所有渠道' }));
    // The run is followed until it ends; then the other scope can be started.
    expect(await screen.findByText('渠道测试完成：共 2 个，成功 2 个，失败 0 个', {}, { timeout: 5000 })).toBeTruthy();
    await waitFor(() => expect((screen.getByRole('button', { name: /测试禁用渠道/ }) as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(screen.getByRole('button', { name: /测试禁用渠道/ }));
    await waitFor(() => expect(calls.filter((c) => c.url.startsWith('/api/channel/test?scope=')).map((c) => c.url)).toEqual(['/api/channel/test?scope=all', '/api/channel/test?scope=disabled']));
    expect(screen.getByText(/渠道测试仅支持 chat 模型/)).toBeTruthy();
  });

  it('test all shows its progress, keeps both run buttons busy, and reloads the rows when the run ends', async () => {
    let polls = 0;
    let finished = false;
    const progress = (done: number, running: boolean) => ({ running, scope: 'all', total: 4, done, failed: 1, started_at: 1, finished_at: running ? 0 : 2 });
    const calls = await renderPage({
      'GET /api/channel/': () => ({ success: true, message: '', data: finished ? [{ ...rows[0], test_error: 'upstream exploded', test_time: 1_700_000_000 }, rows[1]] : rows }),
      'GET /api/channel/test': () => ({ success: true, message: '' }),
      'GET /api/channel/test/status': () => {
        polls++;
        if (polls < 3) return { success: true, message: '', data: progress(polls, true) };
        finished = true;
        return { success: true, message: '', data: progress(4, false) };
      },
    });
    fireEvent.click(screen.getByRole('button', { name: '测试所有渠道' }));
    const bar = await screen.findByRole('status', { name: '渠道测试进度' });
    await waitFor(() => expect(bar.textContent).toContain('正在测试所有渠道：1 / 4，失败 1 个'));
    expect((screen.getByRole('button', { name: /测试所有渠道/ }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: /测试禁用渠道/ }) as HTMLButtonElement).disabled).toBe(true);
    expect(await screen.findByText('渠道测试完成：共 4 个，成功 3 个，失败 1 个', {}, { timeout: 5000 })).toBeTruthy();
    await waitFor(() => expect(within(rowOf('openai-main')).getByText('测试失败')).toBeTruthy());
    expect(screen.queryByRole('status', { name: '渠道测试进度' })).toBeNull();
    expect(calls.filter((c) => c.url === '/api/channel/?p=0')).toHaveLength(2);
  });

  it('a single test spins and disables its own button until it answers; a failure names the channel, gives the reason and marks the row failed', async () => {
    let answer: (value: unknown) => void = () => undefined;
    const failedRow = { ...rows[0], response_time: 12, test_time: 1_700_000_000, test_error: 'upstream exploded' };
    await renderPage({
      'GET /api/channel/test/2': () => new Promise((resolve) => (answer = resolve)),
    });
    const button = () => within(rowOf('openai-main')).getByRole('button', { name: /测试/ }) as HTMLButtonElement;
    fireEvent.click(button());
    await waitFor(() => expect(button().disabled).toBe(true));
    expect(button().querySelector('.ant-btn-loading-icon, .anticon-loading')).toBeTruthy();
    // The other row's test stays available.
    expect((within(rowOf('claude')).getByRole('button', { name: '测试' }) as HTMLButtonElement).disabled).toBe(false);
    answer({ success: false, message: 'upstream exploded', time: 0.012, model: 'gpt-4o', data: { time: 0.012, model: 'gpt-4o', channel: failedRow } });
    expect(await screen.findByText('渠道 openai-main 测试失败：upstream exploded')).toBeTruthy();
    await waitFor(() => expect(button().disabled).toBe(false));
    // Failed: red 测试失败, never a fast green time.
    const cell = within(rowOf('openai-main')).getByText('测试失败');
    expect(cell.closest('.ant-tag')?.className).toContain('red');
    expect(within(rowOf('openai-main')).queryByText('0.01 秒')).toBeNull();
  });

  // covers S2-CHANNELS-18, S2-CHANNELS-20, S2-CHANNELS-22, S2-CHANNELS-23, S4-STATES-12, S8-ERRORS-35
  it('tests a row, disables it, edits priority inline and refreshes the balance by clicking it', async () => {
    const calls = await renderPage({
      'GET /api/channel/test/2': () => ({ success: true, message: '', data: { time: 0.42, model: 'gpt-4o' } }),
      'PUT /api/channel/': (body) => ({ success: true, message: '', data: { ...rows[0], ...(body as object) } }),
      'GET /api/channel/update_balance/2/': () => ({ success: true, message: '', data: { balance: 20 } }),
    });
    const main = rowOf('openai-main');
    fireEvent.click(within(main).getByRole('button', { name: '测试' }));
    await waitFor(() => expect(calls.some((c) => c.url === '/api/channel/test/2?model=')).toBe(true));
    expect(await screen.findByText('通道 openai-main 测试成功，模型 gpt-4o，耗时 0.42 秒。')).toBeTruthy();
    fireEvent.click(within(main).getByRole('button', { name: '禁用' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ id: 2, status: 2 }));
    const priority = within(rowOf('openai-main')).getByRole('spinbutton');
    // Letters are no priority: nothing is sent (it used to send `priority: null`).
    fireEvent.change(priority, { target: { value: 'abc' } });
    await findNewText('优先级必须是整数', () => fireEvent.blur(priority));
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([{ id: 2, status: 2 }]);
    fireEvent.change(priority, { target: { value: '9' } });
    fireEvent.blur(priority);
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toContainEqual({ id: 2, priority: 9 }));
    fireEvent.click(within(rowOf('openai-main')).getByText('$12.50'));
    await waitFor(() => expect(within(rowOf('openai-main')).getByText('$20.00')).toBeTruthy());
  });

  // covers S2-CHANNELS-11, S2-CHANNELS-12
  it('sorts by a header click and searches by keyword', async () => {
    const calls = await renderPage({ 'GET /api/channel/search': () => ({ success: true, message: '', data: [rows[1]] }) });
    const header = (label: string) => screen.getAllByRole('columnheader').find((th) => th.textContent?.startsWith(label)) as HTMLElement;
    fireEvent.click(header('名称'));
    const names = () => screen.getAllByRole('row').slice(1).map((r) => r.querySelectorAll('td')[1]?.textContent);
    expect(names()).toEqual(['claude', 'openai-main']);
    expect(header('名称').getAttribute('aria-sort')).toBe('ascending');
    fireEvent.click(header('响应时间'));
    expect(names()).toEqual(['openai-main', 'claude']);
    fireEvent.click(header('响应时间'));
    expect(names()).toEqual(['claude', 'openai-main']);
    expect(header('响应时间').querySelector('.ant-table-column-sorter-down.active')).toBeTruthy();
    const box = screen.getByPlaceholderText('搜索渠道的 ID，名称和密钥 ...');
    fireEvent.change(box, { target: { value: 'sk-abc' } });
    fireEvent.keyDown(box, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(calls.some((c) => c.url === '/api/channel/search?keyword=sk-abc')).toBe(true));
  });

  // covers S2-CHANNELS-19, S4-STATES-13
  it('a row delete asks first; only the confirmation sends DELETE /api/channel/{id}/ and the row leaves the view', async () => {
    const calls = await renderPage({ 'DELETE /api/channel/2/': () => ({ success: true, message: '' }) });
    fireEvent.click(within(rowOf('openai-main')).getByRole('button', { name: '删除' }));
    fireEvent.click(within(popconfirm('确定删除渠道 openai-main？')).getByRole('button', { name: '取消' }));
    await waitFor(() => expect(screen.getByText('openai-main')).toBeTruthy());
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    fireEvent.click(within(rowOf('openai-main')).getByRole('button', { name: '删除' }));
    fireEvent.click(within(popconfirm('确定删除渠道 openai-main？')).getByRole('button', { name: '删除' }));
    await waitFor(() => expect(screen.queryByText('openai-main')).toBeNull());
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual(['/api/channel/2/']);
    expect(screen.getByText('claude')).toBeTruthy();
    expect(calls.filter((c) => c.url === '/api/channel/?p=0')).toHaveLength(1);
  });

  // covers S2-CHANNELS-21
  it('edit leads to /channel/edit/{id}', async () => {
    await renderPage();
    fireEvent.click(within(rowOf('claude')).getByRole('button', { name: '编辑' }));
    expect(await screen.findByText('editing channel 1')).toBeTruthy();
  });

  // covers S4-STATES-08, S4-STATES-10
  it('status 2 is shown as manually disabled and any other value as unknown', async () => {
    rows.push(channel(5, { name: 'by-hand', status: 2 }), channel(6, { name: 'odd', status: 7 }));
    try {
      await renderPage();
      expect(within(rowOf('by-hand')).getByText('已手动禁用')).toBeTruthy();
      expect(within(rowOf('odd')).getByText('未知状态')).toBeTruthy();
      expect(within(rowOf('claude')).getByText('已被自动禁用')).toBeTruthy();
      // a disabled row offers enable, not disable
      expect(within(rowOf('by-hand')).getByRole('button', { name: '启用' })).toBeTruthy();
    } finally {
      rows.splice(2);
    }
  });

  // covers S8-ERRORS-34
  it('deleting disabled channels asks first, then shows the count deleted and reloads the list', async () => {
    let deleted = false;
    const calls = await renderPage({
      'GET /api/channel/': () => ({ success: true, message: '', data: deleted ? [rows[0]] : rows }),
      'DELETE /api/channel/disabled': () => {
        deleted = true;
        return { success: true, message: '', data: 2 };
      },
    });
    fireEvent.click(screen.getByRole('button', { name: '删除禁用渠道' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    fireEvent.click(within(popconfirm('确定删除所有已禁用的渠道？')).getByRole('button', { name: '删除' }));
    expect(await screen.findByText('已删除所有禁用渠道，共计 2 个')).toBeTruthy();
    await waitFor(() => expect(screen.queryByText('claude')).toBeNull());
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual(['/api/channel/disabled']);
    expect(calls.filter((c) => c.url === '/api/channel/?p=0')).toHaveLength(2);
  });

  // covers S5-VALID-50, S5-VALID-51
  it('a row test sends the chosen test model (none means the first model of the channel); a refusal is shown', async () => {
    const refusal = '渠道测试仅支持 chat 模型，text-embedding-3-small 不是 chat 模型，请选择其他测试模型';
    const calls = await renderPage({
      'GET /api/channel/test/2': () => ({ success: true, message: '', data: { time: 1.5, model: 'gpt-4o-mini' } }),
      'GET /api/channel/test/1': () => ({ success: false, message: refusal }),
    });
    const main = rowOf('openai-main');
    fireEvent.mouseDown(within(main).getByRole('combobox'));
    fireEvent.click(await screen.findByTitle('gpt-4o-mini'));
    fireEvent.click(within(main).getByRole('button', { name: '测试' }));
    expect(await screen.findByText('通道 openai-main 测试成功，模型 gpt-4o-mini，耗时 1.50 秒。')).toBeTruthy();
    expect(within(rowOf('openai-main')).getByText('1.50 秒')).toBeTruthy();
    fireEvent.click(within(rowOf('claude')).getByRole('button', { name: '测试' }));
    expect(await screen.findByText(`渠道 claude 测试失败：${refusal}`)).toBeTruthy();
    expect(within(rowOf('claude')).getByText('6.00 秒')).toBeTruthy();
    expect(calls.filter((c) => c.url.startsWith('/api/channel/test/')).map((c) => c.url)).toEqual(['/api/channel/test/2?model=gpt-4o-mini', '/api/channel/test/1?model=']);
  });

  it('warns about served models without a ratio (billed at the default 30), lists a dozen and links to the operation settings', async () => {
    const models = Array.from({ length: 14 }, (_, i) => `mystery-${String(i + 1).padStart(2, '0')}`);
    await renderPage({ 'GET /api/pricing/unpriced': () => ({ success: true, message: '', data: models }) });
    expect(await screen.findByText('14 个模型没有设置模型倍率，调用时将按默认倍率 30 计费')).toBeTruthy();
    const warning = screen.getByText('14 个模型没有设置模型倍率，调用时将按默认倍率 30 计费').closest('.ant-alert') as HTMLElement;
    expect(within(warning).getByText(/mystery-01、mystery-02/).textContent).toContain('mystery-12 等 14 个');
    expect(within(warning).queryByText(/mystery-13/)).toBeNull();
    fireEvent.click(within(warning).getByRole('button', { name: '前往运营设置设置倍率' }));
    expect(await screen.findByText('settings tab operation')).toBeTruthy();
  });

  it('no warning while every served model has a ratio', async () => {
    await renderPage({ 'GET /api/pricing/unpriced': () => ({ success: true, message: '', data: [] }) });
    expect(screen.queryByText(/没有设置模型倍率/)).toBeNull();
  });
});

function SettingsProbe() {
  return <p>settings tab {new URLSearchParams(useLocation().search).get('tab')}</p>;
}
