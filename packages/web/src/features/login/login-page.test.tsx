import { cleanup, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWith } from '../../test-support';
import LoginPage from './login-page';

afterEach(cleanup);

describe('login screen', () => {
  // covers S2-LOGIN-01, S2-LOGIN-02, S2-LOGIN-04, S2-LOGIN-05
  it('has username-or-email and password fields and links to reset and register', () => {
    renderWith(<LoginPage />, { path: '/login' });
    expect(screen.getByPlaceholderText('用户名或邮箱')).toBeTruthy();
    expect(screen.getByPlaceholderText('密码')).toBeTruthy();
    expect(screen.getByRole('link', { name: '点击重置' }).getAttribute('href')).toBe('/reset');
    expect(screen.getByRole('link', { name: '点击注册' }).getAttribute('href')).toBe('/register');
    expect(screen.queryByText('未登录或登录已过期，请重新登录！')).toBeNull();
  });

  // covers S2-LOGIN-03
  it('with ?expired=true shows the expiry message', () => {
    renderWith(<LoginPage />, { path: '/login?expired=true' });
    expect(screen.getByText('未登录或登录已过期，请重新登录！')).toBeTruthy();
  });

  // covers S2-LOGIN-06, S2-LOGIN-07, S2-LOGIN-08
  it('shows GitHub, WeChat and Lark buttons only when they are switched on', () => {
    renderWith(<LoginPage />, { path: '/login' });
    expect(screen.queryByRole('button', { name: 'GitHub 登录' })).toBeNull();
    expect(screen.queryByRole('button', { name: '微信登录' })).toBeNull();
    expect(screen.queryByRole('button', { name: '飞书登录' })).toBeNull();
    cleanup();
    renderWith(<LoginPage />, { path: '/login', status: { github_oauth: true, wechat_login: true, lark_client_id: 'cli_x' } });
    expect(screen.getByRole('button', { name: 'GitHub 登录' })).toBeTruthy();
    expect(screen.getByRole('button', { name: '微信登录' })).toBeTruthy();
    expect(screen.getByRole('button', { name: '飞书登录' })).toBeTruthy();
  });
});
