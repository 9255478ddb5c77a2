import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import UserEditPage from './user-edit-page';

const target = {
  id: 7, username: 'amy', display_name: 'Amy', role: 1, status: 1, email: '', github_id: '', wechat_id: '', lark_id: '', quota: 1000, used_quota: 0, request_count: 0,
  group: 'default', aff_code: 'AAAA', inviter_id: 0, rpm_limit: 30, tpm_limit: 0, daily_quota_limit: 500000, monthly_quota_limit: 0,
};

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

const page = (
  <Routes>
    <Route path="/user/edit/:id" element={<UserEditPage />} />
    <Route path="/user/edit" element={<UserEditPage />} />
  </Routes>
);
const spin = (name: string) => screen.getByRole('spinbutton', { name }) as HTMLInputElement;

describe('user limits in the user edit form', () => {
  it('an admin sees the user\'s limits (0 reads 不限制, quotas as amounts), changes them and sends whole numbers', async () => {
    const calls = mockApi({
      'GET /api/user/7': () => ({ success: true, message: '', data: target }),
      'GET /api/group/': () => ({ success: true, message: '', data: ['default'] }),
      'PUT /api/user/': () => ({ success: true, message: '' }),
    });
    renderWith(page, { user: users.admin, path: '/user/edit/7' });
    await waitFor(() => expect(spin('每分钟请求数').value).toBe('30'), { timeout: 5000 });
    expect(screen.getByText('每日额度（$1.00）')).toBeTruthy();
    expect(screen.getByText('每分钟 tokens 数（不限制）')).toBeTruthy();
    expect(screen.getByText('每月额度（不限制）')).toBeTruthy();
    fireEvent.change(spin('每分钟 tokens 数'), { target: { value: '20000' } });
    fireEvent.change(spin('每月额度'), { target: { value: '25000000' } });
    fireEvent.change(spin('每分钟请求数'), { target: { value: '0' } });
    await waitFor(() => expect(screen.getByText('每月额度（$50.00）')).toBeTruthy());
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'PUT')?.body).toMatchObject({ id: 7, rpm_limit: 0, tpm_limit: 20000, daily_quota_limit: 500000, monthly_quota_limit: 25000000 }),
    );
  });

  it('a refusal from the server (e.g. a limit too large) is shown and the form stays', async () => {
    mockApi({
      'GET /api/user/7': () => ({ success: true, message: '', data: target }),
      'GET /api/group/': () => ({ success: true, message: '', data: ['default'] }),
      'PUT /api/user/': () => ({ success: false, message: '每分钟请求数限制过大' }),
    });
    renderWith(page, { user: users.admin, path: '/user/edit/7' });
    await waitFor(() => expect(spin('每分钟请求数').value).toBe('30'), { timeout: 5000 });
    fireEvent.change(spin('每分钟请求数'), { target: { value: '3000000000' } });
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    expect(await screen.findByText('每分钟请求数限制过大')).toBeTruthy();
  });

  it('one\'s own profile has no limits to set', async () => {
    mockApi({ 'GET /api/user/self': () => ({ success: true, message: '', data: target }) });
    renderWith(page, { user: users.common, path: '/user/edit' });
    await waitFor(() => expect((screen.getByPlaceholderText('请输入新的用户名') as HTMLInputElement).value).toBe('amy'));
    expect(screen.queryByRole('spinbutton', { name: '每分钟请求数' })).toBeNull();
  });
});
