import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

let t: TestApp;
let root: string;
beforeAll(async () => {
  t = await createTestApp();
  root = await t.login('root', '123456');
});
afterAll(async () => {
  await t.close();
});

const put = async (key: string, value: string) => {
  const res = await t.call({ method: 'PUT', url: '/api/option/', cookie: root, payload: { key, value } });
  expect(res.body, `${key}=${value}`).toMatchObject({ success: true });
};
const status = async () => {
  const res = await t.call({ method: 'GET', url: '/api/status' });
  expect(res.status).toBe(200);
  expect(res.body.success).toBe(true);
  return res.body.data as Record<string, unknown>;
};

describe('GET /api/status (docs/console.md §7): data is the status object of docs/console.md §3', () => {
  // covers S7-API-35
  it('is public and holds every docs/console.md §3 field with its type, from the default options', async () => {
    const data = await status();
    expect(data).toEqual({
      version: expect.any(String),
      start_time: expect.any(Number),
      system_name: 'Model Relay',
      logo: '',
      footer_html: '',
      quota_per_unit: 500000,
      display_in_currency: true,
      chat_link: '',
      server_address: '',
      top_up_link: '',
      turnstile_check: false,
      turnstile_site_key: '',
      email_verification: false,
      github_oauth: false,
      github_client_id: '',
      wechat_login: false,
      wechat_qrcode: '',
      lark_client_id: '',
      theme: 'default',
      github_authorize_url: 'https://github.com/login/oauth/authorize',
      lark_authorize_url: 'https://accounts.feishu.cn/open-apis/authen/v1/authorize',
      turnstile_script_url: 'https://challenges.cloudflare.com/turnstile/v0/api.js',
      releases_url: 'https://api.github.com/repos/model-relay/model-relay/releases/latest',
      pricing_page: true,
    });
    expect(data.start_time as number).toBeGreaterThan(0);
  });

  // covers S7-API-35
  it('reflects the current options at once, field by field', async () => {
    await put('SystemName', '测试网关');
    await put('Logo', 'https://cdn.example.com/logo.png');
    await put('Footer', '<a href="/">页脚</a>');
    await put('QuotaPerUnit', '1000');
    await put('DisplayInCurrencyEnabled', 'false');
    await put('ChatLink', 'https://chat.example.com');
    await put('ServerAddress', 'https://gw.example.com/');
    await put('TopUpLink', 'https://shop.example.com');
    await put('TurnstileSiteKey', 'site-key-1');
    await put('TurnstileCheckEnabled', 'true');
    await put('EmailVerificationEnabled', 'true');
    await put('GitHubClientId', 'gh-client-1');
    await put('GitHubOAuthEnabled', 'true');
    await put('WeChatServerAddress', 'https://wx.example.com');
    await put('WeChatAccountQRCodeImageURL', 'https://wx.example.com/qr.png');
    await put('WeChatAuthEnabled', 'true');
    await put('LarkClientId', 'lark-client-1');

    expect(await status()).toMatchObject({
      system_name: '测试网关',
      logo: 'https://cdn.example.com/logo.png',
      footer_html: '<a href="/">页脚</a>',
      quota_per_unit: 1000,
      display_in_currency: false,
      chat_link: 'https://chat.example.com',
      server_address: 'https://gw.example.com',
      top_up_link: 'https://shop.example.com',
      turnstile_check: true,
      turnstile_site_key: 'site-key-1',
      email_verification: true,
      github_oauth: true,
      github_client_id: 'gh-client-1',
      wechat_login: true,
      wechat_qrcode: 'https://wx.example.com/qr.png',
      lark_client_id: 'lark-client-1',
    });

    // Switching back off is seen at once too.
    await put('GitHubOAuthEnabled', 'false');
    await put('DisplayInCurrencyEnabled', 'true');
    expect(await status()).toMatchObject({ github_oauth: false, display_in_currency: true });
  });

  // covers S7-API-35
  it('never carries a secret option', async () => {
    await put('GitHubClientSecret', 'gh-secret-xyz');
    await put('TurnstileSecretKey', 'ts-secret-xyz');
    await put('SMTPToken', 'smtp-secret-xyz');
    const raw = JSON.stringify(await status());
    expect(raw).not.toContain('secret-xyz');
  });
});

describe('status: theme and the configured outside addresses', () => {
  // covers S2-SETTINGS-OTHER-04
  it('carries the Theme option; dark is accepted besides one-api\'s default / berry / air', async () => {
    for (const theme of ['dark', 'berry', 'air', 'default']) {
      await put('Theme', theme);
      expect((await status()).theme).toBe(theme);
    }
    const refused = await t.call({ method: 'PUT', url: '/api/option/', cookie: root, payload: { key: 'Theme', value: 'neon' } });
    expect(refused.body).toMatchObject({ success: false, message: '主题只能是 default / dark / berry / air' });
  });

  it('takes the provider, widget and releases addresses from the configuration', async () => {
    const other = await createTestApp({
      GITHUB_OAUTH_URL: 'https://github.example.com/',
      LARK_AUTH_URL: 'https://accounts.larksuite.com',
      TURNSTILE_SCRIPT_URL: 'http://127.0.0.1:9/widget.js',
      RELEASES_URL: '',
    });
    try {
      const data = (await other.call({ method: 'GET', url: '/api/status' })).body.data;
      expect(data).toMatchObject({
        github_authorize_url: 'https://github.example.com/login/oauth/authorize',
        lark_authorize_url: 'https://accounts.larksuite.com/open-apis/authen/v1/authorize',
        turnstile_script_url: 'http://127.0.0.1:9/widget.js',
        releases_url: '',
      });
    } finally {
      await other.close();
    }
  });
});
