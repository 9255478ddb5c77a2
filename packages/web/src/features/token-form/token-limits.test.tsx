import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import TokenFormPage from './token-form-page';

const ok = (data?: unknown) => () => ({ success: true, message: '', data });
const saved = {
  id: 5, user_id: 2, name: 'ci-key', key: 'abc', status: 1, created_time: 1, accessed_time: 1, expired_time: -1, remain_quota: 1000, unlimited_quota: false, used_quota: 0,
  models: '', subnet: '', rpm_limit: 10, tpm_limit: 50000, daily_quota_limit: 0, monthly_quota_limit: 5000000,
};

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

const page = (
  <Routes>
    <Route path="/token/add" element={<TokenFormPage />} />
    <Route path="/token/edit/:id" element={<TokenFormPage />} />
    <Route path="/token" element={<div>token list screen</div>} />
  </Routes>
);
const spin = (name: string) => screen.getByRole('spinbutton', { name }) as HTMLInputElement;

describe('limits in the token form', () => {
  it('a new key has no limits; the ones typed are sent as whole numbers, quotas shown as amounts', async () => {
    const calls = mockApi({ 'GET /api/user/available_models': ok([]), 'POST /api/token/': ok(saved) });
    renderWith(page, { user: users.common, path: '/token/add' });
    for (const label of ['每分钟请求数', '每分钟 tokens 数', '每日额度', '每月额度']) {
      expect(spin(label).value).toBe('0');
      expect(screen.getByText(`${label}（不限制）`)).toBeTruthy();
    }
    fireEvent.change(screen.getByPlaceholderText('请输入名称'), { target: { value: 'capped' } });
    fireEvent.change(spin('每分钟请求数'), { target: { value: '10' } });
    fireEvent.change(spin('每分钟 tokens 数'), { target: { value: '50000' } });
    fireEvent.change(spin('每日额度'), { target: { value: '250000' } });
    await waitFor(() => expect(screen.getByText('每日额度（$0.50）')).toBeTruthy());
    expect(screen.getByText('每分钟请求数')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ name: 'capped', rpm_limit: 10, tpm_limit: 50000, daily_quota_limit: 250000, monthly_quota_limit: 0 }));
  });

  it('editing loads the key\'s limits and sends them back with the other fields', async () => {
    const calls = mockApi({ 'GET /api/user/available_models': ok([]), 'GET /api/token/5': ok(saved), 'PUT /api/token/': ok(saved) });
    renderWith(page, { user: users.common, path: '/token/edit/5' });
    await waitFor(() => expect(spin('每分钟请求数').value).toBe('10'));
    expect(screen.getByText('每月额度（$10.00）')).toBeTruthy();
    fireEvent.change(spin('每月额度'), { target: { value: '0' } });
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toMatchObject({ id: 5, rpm_limit: 10, tpm_limit: 50000, daily_quota_limit: 0, monthly_quota_limit: 0 }));
  });
});
