import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import dayjs from 'dayjs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findNewText, mockApi, renderWith, users } from '../../test-support';
import OperationSettings from './operation-settings';

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

/** Every operation key of docs/console.md §3, as GET /api/option/ returns them. */
const stored: Record<string, string> = {
  TopUpLink: 'https://shop.example.com/buy',
  ChatLink: 'https://chat.example.com',
  QuotaPerUnit: '500000',
  RetryTimes: '2',
  LogConsumeEnabled: 'true',
  DisplayInCurrencyEnabled: 'true',
  DisplayTokenStatEnabled: 'false',
  ApproximateTokenEnabled: 'false',
  ChannelDisableThreshold: '5',
  QuotaRemindThreshold: '1000',
  AutomaticDisableChannelEnabled: 'true',
  AutomaticEnableChannelEnabled: 'false',
  QuotaForNewUser: '100',
  PreConsumedQuota: '500',
  QuotaForInviter: '2000',
  QuotaForInvitee: '1000',
  ModelRatio: '{"gpt-4o":1.25}',
  CompletionRatio: '{}',
  GroupRatio: '{"default":1,"vip":0.8}',
};

async function renderPage(answer: (body: unknown) => object = () => ({ success: true, message: '' })) {
  const calls = mockApi({
    'GET /api/option/': () => ({ success: true, message: '', data: Object.entries(stored).map(([key, value]) => ({ key, value })) }),
    'PUT /api/option/': answer,
    'GET /api/status': () => ({ success: true, message: '', data: {} }),
  });
  renderWith(<OperationSettings />, { user: users.root, path: '/setting' });
  await screen.findByText('倍率设置');
  return calls;
}
type Calls = Awaited<ReturnType<typeof renderPage>>;
const puts = (calls: Calls) => calls.filter((c) => c.method === 'PUT').map((c) => c.body);
const spin = (name: string) => screen.getByRole('spinbutton', { name }) as HTMLInputElement;
const text = (name: string) => screen.getByRole('textbox', { name }) as HTMLInputElement;
const box = (name: string) => screen.getByRole('checkbox', { name }) as HTMLInputElement;
const section = (title: string) => screen.getByText(title, { selector: '.ant-card-head-title' }).closest('.ant-card') as HTMLElement;
const save = (title: string) => fireEvent.click(screen.getByRole('button', { name: `保存${title}` }));
/** Saves a section that has nothing to save, and waits until it says so: the click has been handled. */
const saveUnchanged = (title: string) => findNewText('没有需要保存的修改', () => save(title));
/**
 * Saves and waits until it has finished: the status is reloaded after the options, and the button stays busy until
 * the section has taken over the saved values (an edit made before that would be overwritten by them).
 */
const statusLoads = (calls: Calls) => calls.filter((c) => c.url === '/api/status').length;
async function saveAndWait(title: string, calls: Calls) {
  const button = screen.getByRole('button', { name: `保存${title}` });
  const idle = () => waitFor(() => expect(button.classList.contains('ant-btn-loading')).toBe(false));
  // (A click on a busy button is ignored: the save before this one must have finished.)
  await idle();
  const before = statusLoads(calls);
  fireEvent.click(button);
  await waitFor(() => expect(statusLoads(calls)).toBe(before + 1));
  await idle();
}

describe('operation settings', () => {
  // covers S8-ERRORS-10, S8-ERRORS-21, S7-API-34
  it('clearing history sends DELETE /api/log/?target_timestamp={seconds}; shows the count, or "日志清理失败：{message}"', async () => {
    let answer: object = { success: true, message: '', data: 3 };
    const calls = mockApi({ 'GET /api/option/': () => ({ success: true, message: '', data: [] }), 'DELETE /api/log/': () => answer });
    const opened = Math.floor(Date.now() / 1000);
    renderWith(<OperationSettings />, { user: users.root, path: '/setting' });
    const button = await screen.findByRole('button', { name: '清除历史日志' });
    // It asks first: cancelling sends nothing.
    const confirm = async (choice: '清除' | '取消') => {
      fireEvent.click(button);
      const question = await screen.findByText(/之前的所有日志？此操作不可恢复。/);
      expect(question.textContent).toContain(dayjs().subtract(30, 'day').format('YYYY-MM-DD'));
      fireEvent.click(within(question.closest('.ant-popconfirm') as HTMLElement).getByRole('button', { name: choice }));
    };
    await confirm('取消');
    await confirm('清除');
    expect(await screen.findByText('3 条日志已清理！')).toBeTruthy();
    // The cancelled one had its chance before the confirmed one was answered: only the confirmed one was sent.
    const deletes = () => calls.filter((c) => c.method === 'DELETE');
    expect(deletes()).toHaveLength(1);
    const target = Number(new URL(deletes()[0].url, 'http://x').searchParams.get('target_timestamp'));
    expect(deletes()[0].url).toBe(`/api/log/?target_timestamp=${target}`);
    // 30 days before the moment the screen opened (the confirmation steps take time on a busy machine).
    expect(target).toBeGreaterThanOrEqual(opened - 30 * 86400);
    expect(target).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) - 30 * 86400);
    answer = { success: false, message: '数据库繁忙' };
    await confirm('清除');
    const failure = await screen.findByText('日志清理失败：数据库繁忙');
    expect(failure).toBeTruthy();
    expect(within(document.body).getAllByText(/数据库繁忙/)).toHaveLength(1);
    expect(deletes()).toHaveLength(2);
  });

  // covers S2-SETTINGS-OPERATION-04, S2-SETTINGS-OPERATION-05, S2-SETTINGS-OPERATION-07, S2-SETTINGS-OPERATION-09, S2-SETTINGS-OPERATION-10, S2-SETTINGS-OPERATION-11, S2-SETTINGS-OPERATION-13, S2-SETTINGS-OPERATION-14, S2-SETTINGS-OPERATION-15, S2-SETTINGS-OPERATION-16, S2-SETTINGS-OPERATION-17, S2-SETTINGS-OPERATION-19, S2-SETTINGS-OPERATION-20, S2-SETTINGS-OPERATION-21, S2-SETTINGS-OPERATION-22, S5-VALID-14
  it('shows the options loaded from GET /api/option/ in their sections', async () => {
    await renderPage();
    const general = within(section('通用设置'));
    expect((general.getByRole('textbox', { name: '充值链接' }) as HTMLInputElement).value).toBe('https://shop.example.com/buy');
    expect((general.getByRole('textbox', { name: '聊天页面链接' }) as HTMLInputElement).value).toBe('https://chat.example.com');
    await waitFor(() => expect(Number((general.getByRole('spinbutton', { name: '单位美元额度' }) as HTMLInputElement).value)).toBe(500000));
    expect((general.getByRole('spinbutton', { name: '失败重试次数' }) as HTMLInputElement).value).toBe('2');
    expect((general.getByRole('checkbox', { name: '启用额度消费日志记录' }) as HTMLInputElement).checked).toBe(true);
    expect((general.getByRole('checkbox', { name: '以货币形式显示额度' }) as HTMLInputElement).checked).toBe(true);
    expect((general.getByRole('checkbox', { name: 'Billing 相关 API 显示令牌额度而非用户额度' }) as HTMLInputElement).checked).toBe(false);
    expect((general.getByRole('checkbox', { name: '使用近似的方式估算 token 数以减少计算量' }) as HTMLInputElement).checked).toBe(false);

    const monitoring = within(section('监控设置'));
    expect((monitoring.getByRole('spinbutton', { name: '最长响应时间（秒）' }) as HTMLInputElement).value).toBe('5');
    expect((monitoring.getByRole('spinbutton', { name: '额度提醒阈值' }) as HTMLInputElement).value).toBe('1000');
    expect((monitoring.getByRole('checkbox', { name: '失败时自动禁用通道' }) as HTMLInputElement).checked).toBe(true);
    expect((monitoring.getByRole('checkbox', { name: '成功时自动启用通道' }) as HTMLInputElement).checked).toBe(false);

    const quota = within(section('额度设置'));
    expect((quota.getByRole('spinbutton', { name: '新用户初始额度' }) as HTMLInputElement).value).toBe('100');
    expect((quota.getByRole('spinbutton', { name: '请求预扣费额度' }) as HTMLInputElement).value).toBe('500');
    expect((quota.getByRole('spinbutton', { name: '邀请新用户奖励额度' }) as HTMLInputElement).value).toBe('2000');
    expect((quota.getByRole('spinbutton', { name: '新用户使用邀请码奖励额度' }) as HTMLInputElement).value).toBe('1000');

    const ratio = within(section('倍率设置'));
    expect(JSON.parse((ratio.getByRole('textbox', { name: '模型倍率' }) as HTMLTextAreaElement).value)).toEqual({ 'gpt-4o': 1.25 });
    // '{}' is shown as empty (docs/console.md §5).
    expect((ratio.getByRole('textbox', { name: '补全倍率' }) as HTMLTextAreaElement).value).toBe('');
    expect(JSON.parse((ratio.getByRole('textbox', { name: '分组倍率' }) as HTMLTextAreaElement).value)).toEqual({ default: 1, vip: 0.8 });
  });

  // covers S2-SETTINGS-OPERATION-15, S2-SETTINGS-OPERATION-16, S2-SETTINGS-OPERATION-17, S7-API-33
  it('general: saves only the changed links and quota per unit as PUT /api/option/ {key, value}', async () => {
    const calls = await renderPage();
    await saveUnchanged('通用设置');
    expect(puts(calls)).toEqual([]);
    fireEvent.change(text('聊天页面链接'), { target: { value: 'https://chat.example.org/next' } });
    fireEvent.change(spin('单位美元额度'), { target: { value: '7.25' } });
    save('通用设置');
    await waitFor(() =>
      expect(puts(calls)).toEqual([
        { key: 'ChatLink', value: 'https://chat.example.org/next' },
        { key: 'QuotaPerUnit', value: '7.25' },
      ]),
    );
    expect((await screen.findAllByText('保存成功')).length).toBeGreaterThan(0);
    fireEvent.change(text('充值链接'), { target: { value: 'https://shop.example.com/other' } });
    await saveAndWait('通用设置', calls);
    expect(puts(calls)).toHaveLength(3);
    expect(puts(calls)[2]).toEqual({ key: 'TopUpLink', value: 'https://shop.example.com/other' });
    // Saved values are the new baseline: saving again sends nothing.
    await saveUnchanged('通用设置');
    expect(puts(calls)).toHaveLength(3);
  });

  // covers S5-VALID-23, S5-VALID-24, S5-VALID-25, S2-SETTINGS-OPERATION-17
  it('RetryTimes is an integer input with step 1 and minimum 0; QuotaPerUnit has step 0.01', async () => {
    const calls = await renderPage();
    const retry = spin('失败重试次数');
    expect(retry.getAttribute('step')).toBe('1');
    expect(retry.getAttribute('aria-valuemin')).toBe('0');
    const perUnit = spin('单位美元额度');
    expect(perUnit.getAttribute('step')).toBe('0.01');
    expect(perUnit.getAttribute('aria-valuemin')).toBe('0');

    // A fraction is shown and saved as a whole number (the server refuses a fraction for RetryTimes).
    fireEvent.change(retry, { target: { value: '2.6' } });
    expect(retry.value).toBe('3');
    await saveAndWait('通用设置', calls);
    expect(puts(calls)).toEqual([{ key: 'RetryTimes', value: '3' }]);
    // Below the minimum: the input goes back to 0 and 0 is saved.
    fireEvent.change(retry, { target: { value: '-3' } });
    fireEvent.blur(retry);
    await waitFor(() => expect(retry.value).toBe('0'));
    await saveAndWait('通用设置', calls);
    expect(puts(calls)).toEqual([{ key: 'RetryTimes', value: '3' }, { key: 'RetryTimes', value: '0' }]);
    // QuotaPerUnit keeps hundredths.
    fireEvent.change(perUnit, { target: { value: '0.35' } });
    save('通用设置');
    await waitFor(() => expect(puts(calls).at(-1)).toEqual({ key: 'QuotaPerUnit', value: '0.35' }));
    expect(puts(calls)).toHaveLength(3);
  });

  // covers S2-SETTINGS-OPERATION-19, S2-SETTINGS-OPERATION-20, S2-SETTINGS-OPERATION-21, S2-SETTINGS-OPERATION-22, S2-SETTINGS-OPERATION-07, S4-STATES-29, S4-STATES-30
  it('display switches and auto-enable are sent at once as the strings true/false', async () => {
    const calls = await renderPage();
    fireEvent.click(box('启用额度消费日志记录'));
    await waitFor(() => expect(puts(calls)).toEqual([{ key: 'LogConsumeEnabled', value: 'false' }]));
    await waitFor(() => expect(box('启用额度消费日志记录').checked).toBe(false));
    fireEvent.click(box('以货币形式显示额度'));
    await waitFor(() => expect(puts(calls)).toHaveLength(2));
    fireEvent.click(box('Billing 相关 API 显示令牌额度而非用户额度'));
    await waitFor(() => expect(puts(calls)).toHaveLength(3));
    fireEvent.click(box('使用近似的方式估算 token 数以减少计算量'));
    await waitFor(() => expect(puts(calls)).toHaveLength(4));
    fireEvent.click(box('成功时自动启用通道'));
    await waitFor(() => expect(puts(calls)).toHaveLength(5));
    expect(puts(calls)).toEqual([
      { key: 'LogConsumeEnabled', value: 'false' },
      { key: 'DisplayInCurrencyEnabled', value: 'false' },
      { key: 'DisplayTokenStatEnabled', value: 'true' },
      { key: 'ApproximateTokenEnabled', value: 'true' },
      { key: 'AutomaticEnableChannelEnabled', value: 'true' },
    ]);
    await waitFor(() => expect(box('成功时自动启用通道').checked).toBe(true));
    expect(box('Billing 相关 API 显示令牌额度而非用户额度').checked).toBe(true);
    fireEvent.click(box('成功时自动启用通道'));
    await waitFor(() => expect(puts(calls).at(-1)).toEqual({ key: 'AutomaticEnableChannelEnabled', value: 'false' }));
    await waitFor(() => expect(box('成功时自动启用通道').checked).toBe(false));
  });

  it('a switch refused by the server keeps its state', async () => {
    const calls = await renderPage(() => ({ success: false, message: '无权进行此操作' }));
    fireEvent.click(box('成功时自动启用通道'));
    expect(await screen.findByText('无权进行此操作')).toBeTruthy();
    expect(puts(calls)).toEqual([{ key: 'AutomaticEnableChannelEnabled', value: 'true' }]);
    expect(box('成功时自动启用通道').checked).toBe(false);
  });

  // covers S2-SETTINGS-OPERATION-04, S2-SETTINGS-OPERATION-05
  it('monitoring: saves the longest response time in seconds and the quota reminder threshold', async () => {
    const calls = await renderPage();
    fireEvent.change(spin('最长响应时间（秒）'), { target: { value: '12.5' } });
    fireEvent.change(spin('额度提醒阈值'), { target: { value: '2500' } });
    await saveAndWait('监控设置', calls);
    expect(puts(calls)).toEqual([
      { key: 'ChannelDisableThreshold', value: '12.5' },
      { key: 'QuotaRemindThreshold', value: '2500' },
    ]);
    // Saved values are the new baseline: saving again sends nothing.
    await saveUnchanged('监控设置');
    expect(puts(calls)).toHaveLength(2);
  });

  // covers S2-SETTINGS-OPERATION-09, S2-SETTINGS-OPERATION-10, S2-SETTINGS-OPERATION-11
  it('quota: saves the pre-consumed quota and the inviter / invitee rewards, not the unchanged initial quota', async () => {
    const calls = await renderPage();
    fireEvent.change(spin('请求预扣费额度'), { target: { value: '800' } });
    fireEvent.change(spin('邀请新用户奖励额度'), { target: { value: '3000' } });
    fireEvent.change(spin('新用户使用邀请码奖励额度'), { target: { value: '1500' } });
    save('额度设置');
    await waitFor(() =>
      expect(puts(calls)).toEqual([
        { key: 'PreConsumedQuota', value: '800' },
        { key: 'QuotaForInviter', value: '3000' },
        { key: 'QuotaForInvitee', value: '1500' },
      ]),
    );
    expect((await screen.findAllByText('保存成功')).length).toBeGreaterThan(0);
  });

  // covers S2-SETTINGS-OPERATION-13, S2-SETTINGS-OPERATION-14, S5-VALID-11, S5-VALID-12, S5-VALID-13, S5-VALID-14
  it('ratio: invalid JSON is refused with a Chinese message and nothing is sent; unchanged ratios are not sent', async () => {
    const calls = await renderPage();
    await saveUnchanged('倍率设置');
    expect(puts(calls)).toEqual([]);

    fireEvent.change(text('补全倍率'), { target: { value: '{"gpt-4o": 3' } });
    save('倍率设置');
    expect(await screen.findByText('补全倍率不是合法的 JSON 字符串')).toBeTruthy();
    expect(puts(calls)).toEqual([]);

    fireEvent.change(text('补全倍率'), { target: { value: '{"gpt-4o": 3}' } });
    fireEvent.change(text('分组倍率'), { target: { value: '{vip: 0.5}' } });
    save('倍率设置');
    // The refusal is the end of the click's handling: the valid completion ratio before it was not sent either.
    expect(await screen.findByText('分组倍率不是合法的 JSON 字符串')).toBeTruthy();
    expect(puts(calls)).toEqual([]);

    fireEvent.change(text('分组倍率'), { target: { value: '{"default": 1, "vip": 0.5}' } });
    save('倍率设置');
    await waitFor(() =>
      expect(puts(calls)).toEqual([
        { key: 'CompletionRatio', value: '{"gpt-4o": 3}' },
        { key: 'GroupRatio', value: '{"default": 1, "vip": 0.5}' },
      ]),
    );
  });

  it('more prices: cache, reasoning, audio and web search maps are shown, checked and saved like the ratios', async () => {
    stored.WebSearchPrice = '{}';
    stored.CacheReadRatio = '{"gpt-4o":0.5}';
    const calls = await renderPage();
    const more = within(section('更多价格设置'));
    expect(JSON.parse((more.getByRole('textbox', { name: '缓存读取倍率' }) as HTMLTextAreaElement).value)).toEqual({ 'gpt-4o': 0.5 });
    for (const label of ['缓存写入倍率', '1 小时缓存写入倍率', '推理倍率', '音频输入倍率', '音频输出倍率', '联网搜索价格']) expect(more.getByRole('textbox', { name: label })).toBeTruthy();
    fireEvent.change(text('联网搜索价格'), { target: { value: '{"claude-sonnet-4-5": 12' } });
    save('更多价格设置');
    expect(await screen.findByText('联网搜索价格不是合法的 JSON 字符串')).toBeTruthy();
    expect(puts(calls)).toEqual([]);
    fireEvent.change(text('联网搜索价格'), { target: { value: '{"claude-sonnet-4-5": 12}' } });
    save('更多价格设置');
    await waitFor(() => expect(puts(calls)).toEqual([{ key: 'WebSearchPrice', value: '{"claude-sonnet-4-5": 12}' }]));
    delete stored.WebSearchPrice;
    delete stored.CacheReadRatio;
  });

  // covers S2-SETTINGS-OPERATION-14, S5-VALID-14
  it("ratio: an emptied ratio is saved as '{}'", async () => {
    const calls = await renderPage();
    fireEvent.change(text('分组倍率'), { target: { value: '' } });
    save('倍率设置');
    await waitFor(() => expect(puts(calls)).toEqual([{ key: 'GroupRatio', value: '{}' }]));
  });
});
