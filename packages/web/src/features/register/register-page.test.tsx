import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { AccountMessages } from '@model-relay/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { mockApi, renderWith } from '../../test-support';
import RegisterPage from './register-page';

afterEach(cleanup);

const fill = (placeholder: string, value: string) => fireEvent.change(screen.getByPlaceholderText(placeholder), { target: { value } });

describe('registration screen', () => {
  // covers S2-REGISTER-08, S5-VALID-04, S5-VALID-05, S2-REGISTER-04
  it('shows the length hints and the link to login; no e-mail fields while verification is off', () => {
    mockApi({});
    renderWith(<RegisterPage />, { path: '/register' });
    expect(screen.getByText('最长 12 位')).toBeTruthy();
    expect(screen.getByText('8 到 20 位')).toBeTruthy();
    expect(screen.getByRole('link', { name: '点击登录' }).getAttribute('href')).toBe('/login');
    expect(screen.queryByPlaceholderText('输入邮箱地址')).toBeNull();
  });

  // covers S2-REGISTER-04, S2-REGISTER-05, S2-REGISTER-06, S5-VALID-07
  it('with e-mail verification on shows email, code and send-code; an empty email sends nothing', async () => {
    const calls = mockApi({ 'GET /api/verification': () => ({ success: true, message: '' }) });
    renderWith(<RegisterPage />, { path: '/register', status: { email_verification: true } });
    expect(screen.getByPlaceholderText('输入邮箱地址')).toBeTruthy();
    expect(screen.getByPlaceholderText('输入验证码')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: '获取验证码' }));
    // With an e-mail the same button sends a code. By the time that is answered, the click before it would have
    // been sent too: only the one with the e-mail was.
    fill('输入邮箱地址', 'amy@example.com');
    fireEvent.click(screen.getByRole('button', { name: '获取验证码' }));
    expect(await screen.findByText(AccountMessages.codeSent)).toBeTruthy();
    expect(calls.map((c) => c.url)).toEqual(['/api/verification?email=amy%40example.com&turnstile=']);
  });

  // covers S5-VALID-06, S2-REGISTER-07
  it('with the bot-check on and no token yet, registering warns and sends nothing', async () => {
    const calls = mockApi({});
    renderWith(<RegisterPage />, { path: '/register', status: { turnstile_check: true, turnstile_site_key: 'site' } });
    fill('输入用户名，最长 12 位', 'amy');
    fill('输入密码，最短 8 位，最长 20 位', 'password123');
    fill('再次输入密码', 'password123');
    fireEvent.click(screen.getByRole('button', { name: '注册' }));
    await waitFor(() => expect(screen.getByText('请稍后几秒重试，Turnstile 正在检查用户环境！')).toBeTruthy());
    expect(calls).toEqual([]);
  });

  // covers S2-REGISTER-09, S2-REGISTER-10, S3-ENTITY-12, S3-ENTITY-31, S7-API-06
  it('sends the registration payload with the inviter code from ?aff=, then shows 注册成功！', async () => {
    const calls = mockApi({ 'POST /api/user/register': () => ({ success: true, message: '' }) });
    renderWith(<RegisterPage />, { path: '/register?aff=AB12' });
    await waitFor(() => expect(localStorage.getItem('aff')).toBe('AB12'));
    fill('输入用户名，最长 12 位', 'amy');
    fill('输入密码，最短 8 位，最长 20 位', 'password123');
    fill('再次输入密码', 'password123');
    fireEvent.click(screen.getByRole('button', { name: '注册' }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0].url).toBe('/api/user/register?turnstile=');
    expect(calls[0].body).toEqual({ username: 'amy', password: 'password123', password2: 'password123', email: '', verification_code: '', aff_code: 'AB12' });
    await waitFor(() => expect(screen.getByText('注册成功！')).toBeTruthy());
  });
});
