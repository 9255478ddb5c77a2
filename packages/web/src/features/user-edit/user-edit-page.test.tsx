import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { Route, Routes } from 'react-router';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import UserEditPage from './user-edit-page';

const target = { id: 7, username: 'amy', display_name: 'Amy', role: 1, status: 1, email: 'amy@example.com', github_id: 'gh-amy', wechat_id: 'wx-amy', lark_id: '', quota: 1000, used_quota: 0, request_count: 0, group: 'default', aff_code: 'AAAA', inviter_id: 0 };

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

const page = (
  <Routes>
    <Route path="/user/edit/:id" element={<UserEditPage />} />
    <Route path="/user/edit" element={<UserEditPage />} />
    <Route path="/setting" element={<div>settings screen</div>} />
  </Routes>
);

describe('user edit', () => {
  // covers S2-USEREDIT-01, S2-USEREDIT-02, S2-USEREDIT-03, S2-USEREDIT-04, S2-USEREDIT-06, S2-USEREDIT-07, S2-USEREDIT-08, S2-USEREDIT-09, S2-USEREDIT-10, S6-ROLES-08
  it('own profile: username, empty password, display name, read-only bindings, no group or quota; cancel goes to /setting', async () => {
    mockApi({ 'GET /api/user/self': () => ({ success: true, message: '', data: target }) });
    renderWith(page, { user: users.common, path: '/user/edit' });
    await waitFor(() => expect((screen.getByPlaceholderText('请输入新的用户名') as HTMLInputElement).value).toBe('amy'));
    expect((screen.getByPlaceholderText('请输入新的密码，最短 8 位') as HTMLInputElement).value).toBe('');
    expect((screen.getByPlaceholderText('请输入新的显示名称') as HTMLInputElement).value).toBe('Amy');
    const readOnly = screen.getAllByPlaceholderText(/此项只读/) as HTMLInputElement[];
    expect(readOnly.map((i) => [i.value, i.readOnly])).toEqual([['gh-amy', true], ['wx-amy', true], ['amy@example.com', true]]);
    expect(screen.queryByText('分组')).toBeNull();
    expect(screen.queryByText('剩余额度')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: '取消' }));
    expect(screen.getByText('settings screen')).toBeTruthy();
  });

  // covers S2-USEREDIT-04, S2-USEREDIT-06, S7-API-10, S7-API-12
  it('an admin editing someone else also gets group and remaining quota, sent as an integer', async () => {
    const calls = mockApi({
      'GET /api/user/7': () => ({ success: true, message: '', data: target }),
      'GET /api/group/': () => ({ success: true, message: '', data: ['default', 'vip'] }),
      'PUT /api/user/': () => ({ success: true, message: '' }),
    });
    renderWith(page, { user: users.admin, path: '/user/edit/7' });
    await waitFor(() => expect((screen.getByPlaceholderText('请输入新的用户名') as HTMLInputElement).value).toBe('amy'));
    expect(screen.getByText('分组')).toBeTruthy();
    // Raw quota units with the amount they make, by the one money rule (like the token form).
    await waitFor(() => expect(screen.getByText('剩余额度（$0.002）')).toBeTruthy());
    fireEvent.change(screen.getByPlaceholderText('请输入新的剩余额度'), { target: { value: '2500000' } });
    await waitFor(() => expect(screen.getByText('剩余额度（$5.00）')).toBeTruthy());
    fireEvent.change(screen.getByPlaceholderText('请输入新的剩余额度'), { target: { value: '2500' } });
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ id: 7, username: 'amy', display_name: 'Amy', password: '', group: 'default', quota: 2500, rpm_limit: 0, tpm_limit: 0, daily_quota_limit: 0, monthly_quota_limit: 0 }));
    expect(await screen.findByText('用户信息更新成功！')).toBeTruthy();
  });

  // covers S2-USEREDIT-05
  it('a group name that does not exist yet can be typed into the group dropdown and saved', async () => {
    const calls = mockApi({
      'GET /api/user/7': () => ({ success: true, message: '', data: target }),
      'GET /api/group/': () => ({ success: true, message: '', data: ['default', 'vip'] }),
      'PUT /api/user/': () => ({ success: true, message: '' }),
    });
    renderWith(page, { user: users.admin, path: '/user/edit/7' });
    await waitFor(() => expect((screen.getByPlaceholderText('请输入新的用户名') as HTMLInputElement).value).toBe('amy'));
    const group = screen.getAllByRole('combobox').find((box) => box.closest('.ant-form-item')?.textContent?.includes('分组')) as HTMLElement;
    fireEvent.mouseDown(group);
    fireEvent.change(group, { target: { value: 'gold' } });
    const option = await waitFor(() => {
      const found = document.querySelector('.ant-select-item-option[title="gold"]');
      expect(found).toBeTruthy();
      return found as HTMLElement;
    });
    fireEvent.click(option);
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    await waitFor(() => expect((calls.find((c) => c.method === 'PUT')?.body as { group: string }).group).toBe('gold'));
  });

  it('the server\'s schema checks the edit before sending: a short new password is refused in Chinese', async () => {
    const calls = mockApi({ 'GET /api/user/self': () => ({ success: true, message: '', data: target }) });
    renderWith(page, { user: users.common, path: '/user/edit' });
    await waitFor(() => expect((screen.getByPlaceholderText('请输入新的用户名') as HTMLInputElement).value).toBe('amy'));
    fireEvent.change(screen.getByPlaceholderText('请输入新的密码，最短 8 位'), { target: { value: 'short' } });
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    expect(await screen.findByText('密码长度不得小于 8 位！')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'PUT')).toEqual([]);
  });

  it('a longer name imported from new-api is sent back unchanged; a new name must follow the rules', async () => {
    const imported = { ...target, username: 'newapi_user_name_20c' };
    const calls = mockApi({ 'GET /api/user/self': () => ({ success: true, message: '', data: imported }), 'PUT /api/user/self': () => ({ success: true, message: '' }) });
    renderWith(page, { user: users.common, path: '/user/edit' });
    const name = await waitFor(() => {
      const input = screen.getByPlaceholderText('请输入新的用户名') as HTMLInputElement;
      expect(input.value).toBe('newapi_user_name_20c');
      return input;
    });
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ username: 'newapi_user_name_20c', display_name: 'Amy', password: '' }));

    fireEvent.change(name, { target: { value: 'another_name_of_20ch' } });
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    expect(await screen.findByText('用户名长度不得超过 12 个字符')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1);
  });
});
