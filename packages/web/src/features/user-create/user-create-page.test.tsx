import { cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import UserCreatePage from './user-create-page';

afterEach(cleanup);

describe('user create', () => {
  // covers S2-USERCREATE-01, S2-USERCREATE-02, S2-USERCREATE-03, S5-VALID-27, S5-VALID-28, S7-API-14, S8-ERRORS-23
  it('has username, display name and password (hint: at least 8); sends nothing while username or password is empty, and says which', async () => {
    const calls = mockApi({ 'POST /api/user/': () => ({ success: true, message: '' }) });
    renderWith(<UserCreatePage />, { user: users.admin, path: '/user/add' });
    expect(screen.getByText('最短 8 位')).toBeTruthy();
    fireEvent.change(screen.getByPlaceholderText('请输入用户名'), { target: { value: 'newbie' } });
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    // The submit has been handled: the missing password says so, and nothing was sent.
    expect(await screen.findByText('请输入密码')).toBeTruthy();
    expect(screen.queryByText('请输入用户名')).toBeNull();
    expect(calls).toEqual([]);
    fireEvent.change(screen.getByPlaceholderText('请输入显示名称'), { target: { value: 'New' } });
    fireEvent.change(screen.getByPlaceholderText('请输入密码，最短 8 位'), { target: { value: 'password123' } });
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    expect(await screen.findByText('用户账户创建成功！')).toBeTruthy();
    expect(calls.map((c) => c.body)).toEqual([{ username: 'newbie', display_name: 'New', password: 'password123' }]);
  });

  it('checks with the server\'s schema first: a password under 8 characters is refused in Chinese and nothing is sent', async () => {
    const calls = mockApi({ 'POST /api/user/': () => ({ success: true, message: '' }) });
    renderWith(<UserCreatePage />, { user: users.admin, path: '/user/add' });
    fireEvent.change(screen.getByPlaceholderText('请输入用户名'), { target: { value: 'newbie' } });
    fireEvent.change(screen.getByPlaceholderText('请输入密码，最短 8 位'), { target: { value: 'short' } });
    fireEvent.click(screen.getByRole('button', { name: '提交' }));
    expect(await screen.findByText('密码长度不得小于 8 位！')).toBeTruthy();
    expect(calls).toEqual([]);
  });
});
