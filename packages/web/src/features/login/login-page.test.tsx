import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
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

describe('login screen: WeChat, GitHub and Lark', () => {
  // covers S2-LOGIN-09, S2-LOGIN-10, S2-LOGIN-11, S2-LOGIN-12, S7-API-29
  it('the WeChat button opens a dialog with the QR code and a code field; a good code signs in and goes to /', async () => {
    const calls = mockApi({ 'GET /api/oauth/wechat': () => ({ success: true, message: '', data: users.common }) });
    renderWith(
      <Routes>
        <Route path="/login" element={<LoginPage />} />
        <Route path="*" element={<Where />} />
      </Routes>,
      { path: '/login', status: { wechat_login: true, wechat_qrcode: 'https://wx.example.com/qr.png' } },
    );
    fireEvent.click(screen.getByRole('button', { name: '微信登录' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.querySelector('img')?.getAttribute('src')).toBe('https://wx.example.com/qr.png');
    expect(dialog.textContent).toContain('三分钟内有效');
    fireEvent.change(screen.getByPlaceholderText('验证码'), { target: { value: ' 123456 ' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '登录' }));
    await waitFor(() => expect(screen.getByTestId('where').textContent).toBe('/'));
    expect(calls[0].url).toBe('/api/oauth/wechat?code=123456');
    expect(JSON.parse(localStorage.getItem('user')!).username).toBe('amy');
  });

  // covers S7-API-24, S7-API-25, S7-API-26
  it('GitHub and Lark open their authorisation page in a new window with the state from /api/oauth/state', async () => {
    const opened: string[] = [];
    window.open = ((url: string) => {
      opened.push(url);
      return null;
    }) as typeof window.open;
    mockApi({ 'GET /api/oauth/state': () => ({ success: true, message: '', data: 'st4te' }) });
    renderWith(<LoginPage />, {
      path: '/login',
      status: { github_oauth: true, github_client_id: 'Iv1.abc', github_authorize_url: 'http://gh.test/login/oauth/authorize', lark_client_id: 'cli_x', lark_authorize_url: 'http://lark.test/open-apis/authen/v1/authorize', server_address: 'https://gw.example.com' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'GitHub 登录' }));
    await waitFor(() => expect(opened).toHaveLength(1));
    expect(opened[0]).toBe('http://gh.test/login/oauth/authorize?client_id=Iv1.abc&state=st4te&scope=user%3Aemail');
    fireEvent.click(screen.getByRole('button', { name: '飞书登录' }));
    await waitFor(() => expect(opened).toHaveLength(2));
    const lark = new URL(opened[1]);
    expect(lark.origin + lark.pathname).toBe('http://lark.test/open-apis/authen/v1/authorize');
    expect(Object.fromEntries(lark.searchParams)).toEqual({ client_id: 'cli_x', redirect_uri: 'https://gw.example.com/oauth/lark', state: 'st4te' });
  });
});

function Where() {
  return <div data-testid="where">{useLocation().pathname}</div>;
}
