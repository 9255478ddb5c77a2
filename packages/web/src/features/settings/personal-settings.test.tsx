import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mockApi, renderWith, users } from '../../test-support';
import { PersonalSettings } from './personal-settings';

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(() => {
  vi.useRealTimers();
  cleanup();
});

const self = { ...users.common, email: '', github_id: '583231', wechat_id: '', lark_id: '', quota: 0, used_quota: 0, request_count: 0, group: 'default', aff_code: 'AB12', inviter_id: 0 };

describe('personal settings: account bindings', () => {
  // covers S2-SETTINGS-PERSONAL-11, S2-SETTINGS-PERSONAL-12, S2-SETTINGS-PERSONAL-13, S6-ROLES-09
  it('shows what is bound and offers WeChat, GitHub and Lark binding when those sign-ins are on', async () => {
    const opened: string[] = [];
    window.open = ((url: string) => void opened.push(url) as unknown as Window) as typeof window.open;
    mockApi({ 'GET /api/user/self': () => ({ success: true, message: '', data: self }), 'GET /api/oauth/state': () => ({ success: true, message: '', data: 's1' }) });
    renderWith(<PersonalSettings />, { user: users.common, path: '/setting', status: { wechat_login: true, github_oauth: true, github_client_id: 'Iv1.x', lark_client_id: 'cli_y' } });
    expect(await screen.findByText('583231')).toBeTruthy();
    expect(screen.getAllByText('未绑定')).toHaveLength(3);
    expect(screen.getByRole('button', { name: /绑定微信账号/ })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /绑定 GitHub 账号/ }));
    await waitFor(() => expect(opened[0]).toContain('client_id=Iv1.x&state=s1&scope=user%3Aemail'));
    fireEvent.click(screen.getByRole('button', { name: '绑定飞书账号' }));
    await waitFor(() => expect(opened[1]).toContain('client_id=cli_y'));
  });

  // covers S2-SETTINGS-PERSONAL-11, S7-API-30, S8-ERRORS-18
  it('binds WeChat with the code from the official account', async () => {
    const calls = mockApi({ 'GET /api/user/self': () => ({ success: true, message: '', data: self }), 'GET /api/oauth/wechat/bind': () => ({ success: true, message: '' }) });
    renderWith(<PersonalSettings />, { user: users.common, path: '/setting', status: { wechat_login: true, wechat_qrcode: '/qr.png' } });
    fireEvent.click(screen.getByRole('button', { name: /绑定微信账号/ }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: '绑定' }));
    await act(async () => undefined);
    expect(calls.filter((c) => c.url.startsWith('/api/oauth/wechat/bind'))).toEqual([]);
    fireEvent.change(within(dialog).getByPlaceholderText('验证码'), { target: { value: '654321' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '绑定' }));
    expect(await screen.findByText('微信账户绑定成功！')).toBeTruthy();
    expect(calls.map((c) => c.url)).toContain('/api/oauth/wechat/bind?code=654321');
  });

  // covers S2-SETTINGS-PERSONAL-14, S2-SETTINGS-PERSONAL-15, S2-SETTINGS-PERSONAL-16, S5-VALID-07, S5-VALID-08, S7-API-07, S7-API-31, S8-ERRORS-15, S8-ERRORS-19
  it('binds an e-mail: the code field, a resend button counting down 30 s, and nothing sent while a field is empty', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const calls = mockApi({
      'GET /api/user/self': () => ({ success: true, message: '', data: self }),
      'GET /api/verification': () => ({ success: true, message: '' }),
      'GET /api/oauth/email/bind': () => ({ success: true, message: '' }),
    });
    const settle = async () => {
      for (let i = 0; i < 5; i++) await act(async () => vi.advanceTimersByTimeAsync(0));
    };
    renderWith(<PersonalSettings />, { user: users.common, path: '/setting' });
    await settle();
    fireEvent.click(screen.getByRole('button', { name: /绑定邮箱地址/ }));
    await settle();
    const dialog = screen.getByRole('dialog');
    const sent = () => calls.filter((c) => c.url.startsWith('/api/verification') || c.url.startsWith('/api/oauth/email/bind')).map((c) => c.url);

    fireEvent.click(within(dialog).getByRole('button', { name: '获取验证码' }));
    fireEvent.click(within(dialog).getByRole('button', { name: '确认绑定' }));
    await settle();
    expect(sent()).toEqual([]);

    fireEvent.change(within(dialog).getByPlaceholderText('输入邮箱地址'), { target: { value: 'amy@example.com' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '获取验证码' }));
    await settle();
    expect(sent()).toEqual(['/api/verification?email=amy%40example.com&turnstile=']);
    expect(screen.getByText('验证码发送成功，请检查你的邮箱！')).toBeTruthy();
    const resend = () => within(dialog).getByRole('button', { name: /重新发送|获取验证码/ }) as HTMLButtonElement;
    expect(resend().textContent).toBe('重新发送 (30)');
    expect(resend().disabled).toBe(true);
    for (let s = 0; s < 30; s++) await act(async () => vi.advanceTimersByTimeAsync(1_000));
    expect(resend().textContent).toBe('获取验证码');
    expect(resend().disabled).toBe(false);

    fireEvent.click(within(dialog).getByRole('button', { name: '确认绑定' }));
    await settle();
    expect(sent()).toHaveLength(1);
    fireEvent.change(within(dialog).getByPlaceholderText('验证码'), { target: { value: 'K7P2QX' } });
    fireEvent.click(within(dialog).getByRole('button', { name: '确认绑定' }));
    await settle();
    expect(sent()[1]).toBe('/api/oauth/email/bind?email=amy%40example.com&code=K7P2QX');
    expect(screen.getByText('邮箱账户绑定成功！')).toBeTruthy();
  });
});
