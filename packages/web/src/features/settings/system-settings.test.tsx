import { App } from 'antd';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findNewText, mockApi, renderWith, users } from '../../test-support';
import SystemSettings from './system-settings';

const options = [
  { key: 'ServerAddress', value: '' },
  { key: 'PasswordLoginEnabled', value: 'true' },
  { key: 'RegisterEnabled', value: 'true' },
  { key: 'EmailDomainWhitelist', value: 'gmail.com,qq.com' },
  { key: 'SMTPServer', value: 'smtp.example.com' },
  { key: 'GitHubClientId', value: 'gh-client-id' },
  { key: 'LarkClientId', value: 'cli_lark' },
  { key: 'WeChatServerAddress', value: 'https://wechat.example.com' },
  { key: 'WeChatAccountQRCodeImageURL', value: 'https://wechat.example.com/qr.png' },
  { key: 'MessagePusherAddress', value: 'https://msgpusher.com/push/root' },
];

beforeAll(() => {
  Object.defineProperty(window, 'matchMedia', { writable: true, value: () => ({ matches: false, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {} }) });
});
afterEach(cleanup);

async function renderPage() {
  const calls = mockApi({
    'GET /api/option/': () => ({ success: true, message: '', data: options }),
    'PUT /api/option/': () => ({ success: true, message: '' }),
    'GET /api/status': () => ({ success: true, message: '', data: {} }),
  });
  renderWith(
    <App>
      <SystemSettings />
    </App>,
    { user: users.root, path: '/setting' },
  );
  await screen.findByText('配置 SMTP');
  return calls;
}
const puts = (calls: Awaited<ReturnType<typeof renderPage>>) => calls.filter((c) => c.method === 'PUT').map((c) => c.body);

describe('system settings', () => {
  // covers S2-SETTINGS-SYSTEM-01, S2-SETTINGS-SYSTEM-02, S2-SETTINGS-SYSTEM-03, S2-SETTINGS-SYSTEM-04, S2-SETTINGS-SYSTEM-05, S2-SETTINGS-SYSTEM-06, S2-SETTINGS-SYSTEM-07, S2-SETTINGS-SYSTEM-08, S2-SETTINGS-SYSTEM-09, S2-SETTINGS-SYSTEM-11, S2-SETTINGS-SYSTEM-12, S2-SETTINGS-SYSTEM-13, S2-SETTINGS-SYSTEM-14, S2-SETTINGS-SYSTEM-15, S2-SETTINGS-SYSTEM-16, S2-SETTINGS-SYSTEM-17, S2-SETTINGS-SYSTEM-18, S2-SETTINGS-SYSTEM-19, S2-SETTINGS-SYSTEM-20, S2-SETTINGS-SYSTEM-21, S2-SETTINGS-SYSTEM-22, S2-SETTINGS-SYSTEM-23, S2-SETTINGS-SYSTEM-24, S2-SETTINGS-SYSTEM-25, S2-SETTINGS-SYSTEM-26
  it('has every section, switch and field of docs/console.md §2', async () => {
    await renderPage();
    for (const label of [
      '服务器地址', '允许通过密码进行登录', '允许通过密码进行注册', '通过密码注册时需要进行邮箱验证', '允许通过 GitHub 账户登录 & 注册', '允许通过微信登录 & 注册',
      '允许新用户注册（此项为否时，新用户将无法以任何方式进行注册）', '启用 Turnstile 用户校验', '启用邮箱域名白名单', 'SMTP 服务器地址', 'SMTP 端口', 'SMTP 账户', 'SMTP 发送者邮箱',
      'SMTP 访问凭证', 'GitHub Client ID', 'GitHub Client Secret', 'App ID', 'App Secret', 'WeChat Server 服务器地址', 'WeChat Server 访问凭证', '微信公众号二维码图片链接',
      'Message Pusher 推送地址', 'Message Pusher 访问凭证', 'Turnstile Site Key', 'Turnstile Secret Key',
    ]) {
      expect(screen.getAllByText(label).length, label).toBeGreaterThan(0);
    }
    expect(screen.getByPlaceholderText('默认: 587')).toBeTruthy();
  });

  // covers S5-VALID-18, S5-VALID-26
  it('saves only changed fields; a secret only when filled in; the server address without its trailing slash', async () => {
    const calls = await renderPage();
    expect((screen.getByLabelText('SMTP 访问凭证', { selector: 'input' }) as HTMLInputElement).value).toBe('');
    // An empty secret and nothing else changed: the section says there is nothing to save, and sends nothing.
    await findNewText('没有需要保存的修改', () => fireEvent.click(screen.getByRole('button', { name: '保存配置 SMTP' })));
    expect(puts(calls)).toEqual([]);
    fireEvent.change(screen.getByLabelText('SMTP 访问凭证', { selector: 'input' }), { target: { value: 'smtp-secret' } });
    fireEvent.click(screen.getByRole('button', { name: '保存配置 SMTP' }));
    await waitFor(() => expect(puts(calls)).toEqual([{ key: 'SMTPToken', value: 'smtp-secret' }]));
    const address = screen.getByRole('textbox', { name: '服务器地址' }) as HTMLInputElement;
    fireEvent.change(address, { target: { value: 'https://gw.example.com/' } });
    await waitFor(() => expect(address.value).toBe('https://gw.example.com/'));
    fireEvent.click(screen.getByRole('button', { name: '保存通用设置' }));
    await waitFor(() => expect(puts(calls)).toContainEqual({ key: 'ServerAddress', value: 'https://gw.example.com' }));
  });

  // covers S2-SETTINGS-SYSTEM-10, S5-VALID-15, S5-VALID-16, S5-VALID-17
  it('adds whitelist domains only when non-empty and new, Enter adds too, and saves them comma-separated', async () => {
    const calls = await renderPage();
    const input = screen.getByPlaceholderText('输入新的允许的邮箱域名');
    fireEvent.change(input, { target: { value: 'qq.com' } });
    fireEvent.click(screen.getByRole('button', { name: '添加' }));
    fireEvent.change(input, { target: { value: '   ' } });
    fireEvent.click(screen.getByRole('button', { name: '添加' }));
    fireEvent.change(input, { target: { value: 'example.org' } });
    fireEvent.keyDown(input, { key: 'Enter', code: 'Enter', keyCode: 13 });
    fireEvent.click(screen.getByRole('button', { name: '保存邮箱域名白名单设置' }));
    await waitFor(() => expect(puts(calls)).toEqual([{ key: 'EmailDomainWhitelist', value: 'gmail.com,qq.com,example.org' }]));
  });

  // covers S4-STATES-29, S4-STATES-30
  it('a switch is sent at once as the string true/false', async () => {
    const calls = await renderPage();
    fireEvent.click(screen.getByRole('checkbox', { name: '允许新用户注册（此项为否时，新用户将无法以任何方式进行注册）' }));
    await waitFor(() => expect(puts(calls)).toEqual([{ key: 'RegisterEnabled', value: 'false' }]));
  });

  // The secrets of docs/console.md §5, each with its section and the plain field saved beside it.
  const secrets = [
    { id: 'S5-VALID-19', key: 'GitHubClientSecret', label: 'GitHub Client Secret', section: '配置 GitHub OAuth App', plain: ['GitHub Client ID', 'GitHubClientId'] },
    { id: 'S5-VALID-20', key: 'LarkClientSecret', label: 'App Secret', section: '配置飞书授权登录', plain: ['App ID', 'LarkClientId'] },
    { id: 'S5-VALID-21', key: 'WeChatServerToken', label: 'WeChat Server 访问凭证', section: '配置 WeChat Server', plain: ['WeChat Server 服务器地址', 'WeChatServerAddress'] },
    { id: 'S5-VALID-22', key: 'MessagePusherToken', label: 'Message Pusher 访问凭证', section: '配置 Message Pusher', plain: ['Message Pusher 推送地址', 'MessagePusherAddress'] },
  ] as const;
  const statusLoads = (calls: Awaited<ReturnType<typeof renderPage>>) => calls.filter((c) => c.url === '/api/status').length;

  // covers S5-VALID-19, S5-VALID-20, S5-VALID-21, S5-VALID-22
  it.each(secrets)('$id: $key is saved only when non-empty and changed', async ({ key, label, section, plain }) => {
    const calls = await renderPage();
    const secret = () => screen.getByLabelText(label, { selector: 'input' }) as HTMLInputElement;
    const save = async (sent: boolean) => {
      const button = screen.getByRole('button', { name: `保存${section}` });
      // Nothing to send: the click has been handled once the section says so.
      if (!sent) return void (await findNewText('没有需要保存的修改', () => fireEvent.click(button)));
      const before = statusLoads(calls);
      fireEvent.click(button);
      await waitFor(() => expect(statusLoads(calls)).toBe(before + 1));
      // The button is busy until the page has taken over the saved values.
      await waitFor(() => expect(button.classList.contains('ant-btn-loading')).toBe(false));
    };
    // Empty (the server never returns it): nothing is sent, not even the unchanged plain field beside it.
    expect(secret().value).toBe('');
    expect(secret().type).toBe('password');
    await save(false);
    expect(puts(calls)).toEqual([]);

    fireEvent.change(secret(), { target: { value: 'first-secret' } });
    await save(true);
    expect(puts(calls)).toEqual([{ key, value: 'first-secret' }]);
    // Once saved the field is emptied again, and saving the empty field sends nothing.
    await waitFor(() => expect(secret().value).toBe(''));
    await save(false);
    expect(puts(calls)).toHaveLength(1);
    // The same secret again is no change.
    fireEvent.change(secret(), { target: { value: 'first-secret' } });
    await save(false);
    expect(puts(calls)).toHaveLength(1);
    // A new secret is sent with a changed plain field, an empty secret leaves only the plain field.
    fireEvent.change(secret(), { target: { value: 'second-secret' } });
    fireEvent.change(screen.getByRole('textbox', { name: plain[0] }), { target: { value: 'changed-value' } });
    await save(true);
    expect(puts(calls).slice(1)).toEqual([
      { key: plain[1], value: 'changed-value' },
      { key, value: 'second-secret' },
    ]);
    fireEvent.change(screen.getByRole('textbox', { name: plain[0] }), { target: { value: 'changed-again' } });
    await save(true);
    expect(puts(calls).slice(3)).toEqual([{ key: plain[1], value: 'changed-again' }]);
  });
});
