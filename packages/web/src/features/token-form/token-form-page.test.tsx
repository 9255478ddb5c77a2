import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import dayjs from 'dayjs';
import { Route, Routes } from 'react-router';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import TokenFormPage from './token-form-page';

const ok = (data?: unknown) => () => ({ success: true, message: '', data });
const available = ok(['gpt-4o', 'gpt-4o-mini', 'claude-3-haiku']);
const saved = {
  id: 5, user_id: 2, name: 'ci-key', key: 'abc', status: 1, created_time: 1_700_000_000, accessed_time: 1_700_000_000,
  expired_time: dayjs('2031-02-03 04:05:06').unix(), remain_quota: 42000, unlimited_quota: true, used_quota: 10, models: 'gpt-4o,claude-3-haiku', subnet: '10.0.0.0/8,192.168.1.1',
};

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const page = (
  <Routes>
    <Route path="/token/add" element={<TokenFormPage />} />
    <Route path="/token/edit/:id" element={<TokenFormPage />} />
    <Route path="/token" element={<div>token list screen</div>} />
  </Routes>
);

const input = (placeholder: string | RegExp) => screen.getByPlaceholderText(placeholder) as HTMLInputElement;
const nameInput = () => input('请输入名称');
const subnetInput = () => input(/192\.168\.0\.0\/24/);
const expiryInput = () => input(/请输入过期时间/);
const quotaInput = () => screen.getByRole('spinbutton', { name: '额度' }) as HTMLInputElement;
const unlimited = () => screen.getByRole('checkbox', { name: '设为无限额度' }) as HTMLInputElement;
/** The tags shown in the model scope multi-select. */
const selectedModels = () => [...document.querySelectorAll('.ant-select-selection-item')].map((el) => el.getAttribute('title'));
const submit = () => fireEvent.click(screen.getByRole('button', { name: '提交' }));

async function pickModel(name: string) {
  fireEvent.mouseDown(screen.getByRole('combobox', { name: '模型范围' }));
  const option = await waitFor(() => {
    const found = document.querySelector(`.ant-select-item-option[title="${name}"]`);
    expect(found).toBeTruthy();
    return found as HTMLElement;
  });
  fireEvent.click(option);
}

describe('token form', () => {
  // covers S2-TOKENFORM-01, S2-TOKENFORM-02, S2-TOKENFORM-03, S2-TOKENFORM-04, S2-TOKENFORM-05, S2-TOKENFORM-06, S3-ENTITY-22, S3-ENTITY-23, S3-ENTITY-24, S5-VALID-31, S5-VALID-32, S5-VALID-34, S6-ROLES-05, S7-API-58, S8-ERRORS-29
  it('add: defaults quota 500000 and expiry -1, sends models comma-joined, the subnet list and an integer quota by POST', async () => {
    const calls = mockApi({ 'GET /api/user/available_models': available, 'POST /api/token/': ok(saved) });
    renderWith(page, { user: users.common, path: '/token/add' });
    expect(screen.getByText('创建新的令牌')).toBeTruthy();
    expect(nameInput().value).toBe('');
    expect(subnetInput().value).toBe('');
    expect(expiryInput().value).toBe('-1');
    expect(quotaInput().value).toBe('500000');
    expect(unlimited().checked).toBe(false);
    expect(selectedModels()).toEqual([]);

    fireEvent.change(nameInput(), { target: { value: '  my key  ' } });
    await pickModel('gpt-4o');
    await pickModel('claude-3-haiku');
    expect(selectedModels()).toEqual(['gpt-4o', 'claude-3-haiku']);
    fireEvent.change(subnetInput(), { target: { value: '192.168.0.0/24, 10.0.0.1' } });
    fireEvent.change(quotaInput(), { target: { value: '1234.7' } });
    fireEvent.blur(quotaInput());
    submit();

    await waitFor(() => expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1));
    expect(calls.find((c) => c.method === 'POST')).toMatchObject({
      url: '/api/token/',
      body: { name: 'my key', models: 'gpt-4o,claude-3-haiku', subnet: '192.168.0.0/24,10.0.0.1', expired_time: -1, remain_quota: 1234, unlimited_quota: false },
    });
    expect(await screen.findByText('令牌创建成功，请在列表页面点击复制获取令牌！')).toBeTruthy();
    expect(await screen.findByText('token list screen')).toBeTruthy();
  });

  // covers S2-TOKENFORM-04, S2-TOKENFORM-06, S2-TOKENFORM-07, S2-TOKENFORM-08, S2-TOKENFORM-09, S2-TOKENFORM-10, S3-ENTITY-21, S3-ENTITY-22
  it('the expiry quick buttons set never (-1), 30 days, one day, one hour and one minute from now; the date is sent in seconds', async () => {
    const calls = mockApi({ 'GET /api/user/available_models': available, 'POST /api/token/': ok(saved) });
    renderWith(page, { user: users.common, path: '/token/add' });
    const now = dayjs('2030-06-01 12:00:00').valueOf();
    vi.spyOn(Date, 'now').mockReturnValue(now);
    const shown = (seconds: number) => dayjs(now + seconds * 1000).format('YYYY-MM-DD HH:mm:ss');
    const press = (name: string) => fireEvent.click(screen.getByRole('button', { name }));
    press('一个月');
    expect(expiryInput().value).toBe(shown(30 * 24 * 3600));
    press('永不过期');
    expect(expiryInput().value).toBe('-1');
    press('一天');
    expect(expiryInput().value).toBe(shown(24 * 3600));
    press('一小时');
    expect(expiryInput().value).toBe(shown(3600));
    press('一分钟');
    expect(expiryInput().value).toBe(shown(60));
    vi.restoreAllMocks();

    fireEvent.change(nameInput(), { target: { value: 'short' } });
    submit();
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'short', models: '', subnet: '', expired_time: now / 1000 + 60, remain_quota: 500000, unlimited_quota: false, rpm_limit: 0, tpm_limit: 0, daily_quota_limit: 0, monthly_quota_limit: 0 }));
  });

  // covers S5-VALID-29, S5-VALID-30
  it('refuses an empty name, an expiry that is not a date and a bad IP list, in Chinese, without sending anything', async () => {
    const calls = mockApi({ 'GET /api/user/available_models': available, 'POST /api/token/': ok(saved) });
    renderWith(page, { user: users.common, path: '/token/add' });
    submit();
    expect(await screen.findByText('请输入令牌名称')).toBeTruthy();
    fireEvent.change(nameInput(), { target: { value: '   ' } });
    submit();
    fireEvent.change(nameInput(), { target: { value: 'key' } });
    fireEvent.change(expiryInput(), { target: { value: 'next tuesday' } });
    submit();
    expect(await screen.findByText('过期时间格式错误！')).toBeTruthy();
    fireEvent.change(expiryInput(), { target: { value: '' } });
    submit();
    fireEvent.change(expiryInput(), { target: { value: '-1' } });
    fireEvent.change(subnetInput(), { target: { value: '10.0.0.0/33' } });
    submit();
    expect(await screen.findByText(/IP 限制格式错误/)).toBeTruthy();
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });

  // covers S2-TOKENFORM-01, S2-TOKENFORM-02, S2-TOKENFORM-03, S2-TOKENFORM-04, S2-TOKENFORM-05, S3-ENTITY-21, S3-ENTITY-23, S3-ENTITY-24, S7-API-57, S7-API-59, S8-ERRORS-30
  it('edit: loads GET /api/token/{id} into the fields and saves with PUT /api/token/ including the id', async () => {
    const calls = mockApi({ 'GET /api/user/available_models': available, 'GET /api/token/5': ok(saved), 'PUT /api/token/': ok(saved) });
    renderWith(page, { user: users.common, path: '/token/edit/5' });
    expect(screen.getByText('更新令牌信息')).toBeTruthy();
    await waitFor(() => expect(nameInput().value).toBe('ci-key'));
    expect(selectedModels()).toEqual(['gpt-4o', 'claude-3-haiku']);
    expect(subnetInput().value).toBe('10.0.0.0/8,192.168.1.1');
    expect(expiryInput().value).toBe('2031-02-03 04:05:06');
    // the number input shows a new value one render after the state changes
    await waitFor(() => expect(quotaInput().value).toBe('42000'));
    expect(unlimited().checked).toBe(true);
    expect(quotaInput().disabled).toBe(true);

    fireEvent.change(nameInput(), { target: { value: 'renamed' } });
    await pickModel('gpt-4o-mini');
    fireEvent.click(unlimited());
    expect(quotaInput().disabled).toBe(false);
    fireEvent.change(quotaInput(), { target: { value: '7000' } });
    fireEvent.click(screen.getByRole('button', { name: '永不过期' }));
    submit();

    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1));
    expect(calls.find((c) => c.method === 'PUT')).toMatchObject({
      url: '/api/token/',
      body: { id: 5, name: 'renamed', models: 'gpt-4o,claude-3-haiku,gpt-4o-mini', subnet: '10.0.0.0/8,192.168.1.1', expired_time: -1, remain_quota: 7000, unlimited_quota: false },
    });
    expect(await screen.findByText('令牌更新成功！')).toBeTruthy();
    expect(await screen.findByText('token list screen')).toBeTruthy();
  });

  // covers S5-VALID-33, S5-VALID-34, S2-TOKENFORM-05
  it('edit: the default quota is 0 (not 500000) until the token is loaded, and stays 0 when the load fails', async () => {
    const calls = mockApi({ 'GET /api/user/available_models': available, 'GET /api/token/9': () => ({ success: false, message: '令牌不存在' }), 'PUT /api/token/': ok(saved) });
    renderWith(page, { user: users.common, path: '/token/edit/9' });
    expect(quotaInput().value).toBe('0');
    expect(expiryInput().value).toBe('-1');
    expect(await screen.findByText('令牌不存在')).toBeTruthy();
    expect(quotaInput().value).toBe('0');
    fireEvent.change(nameInput(), { target: { value: 'again' } });
    submit();
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ id: 9, name: 'again', models: '', subnet: '', expired_time: -1, remain_quota: 0, unlimited_quota: false, rpm_limit: 0, tpm_limit: 0, daily_quota_limit: 0, monthly_quota_limit: 0 }));
  });

  it('a negative quota is refused with the server\'s own message, not saved as 0', async () => {
    const calls = mockApi({ 'GET /api/models': available, 'POST /api/token/': ok({ id: 9 }) });
    renderWith(page, { user: users.common, path: '/token/add' });
    fireEvent.change(nameInput(), { target: { value: 'neg' } });
    fireEvent.change(quotaInput(), { target: { value: '-500' } });
    fireEvent.blur(quotaInput());
    submit();
    expect(await screen.findByText('额度必须是非负整数')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });
});
