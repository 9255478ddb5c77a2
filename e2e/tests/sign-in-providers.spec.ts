import type { APIRequestContext, Page } from '@playwright/test';
import { startMockGitHub, type MockGitHub } from '../../packages/server/src/test-support/mock-github.js';
import { startMockLark, type MockLark } from '../../packages/server/src/test-support/mock-lark.js';
import { startMockWeChatServer, type MockWeChatServer } from '../../packages/server/src/test-support/mock-wechat-server.js';
import { expect, test as base, type GatewayServer } from '../support/fixtures.js';
import { expectToast } from '../support/toasts.js';

interface Providers {
  github: MockGitHub;
  lark: MockLark;
  wechat: MockWeChatServer;
}

/** Local GitHub, Lark and WeChat Server mocks; the gateway is started pointing at them. */
const test = base.extend<{ providers: Providers }>({
  // eslint-disable-next-line no-empty-pattern
  providers: async ({}, use) => {
    const github = await startMockGitHub({ clientId: 'Iv1.e2e', clientSecret: 'gh-secret', callbackUrl: 'http://unset/oauth/github' });
    github.addUser({ id: 4242, login: 'octo-e2e', name: 'Octo E2E', email: 'octo-e2e@example.com', emails: [{ email: 'octo-e2e@example.com', primary: true, verified: true }] });
    const lark = await startMockLark({ appId: 'cli_e2e', appSecret: 'lark-secret', redirectUrls: [] });
    lark.addUser({ open_id: 'ou_e2e', union_id: 'on_e2e', name: '飞书测试员', en_name: 'Lark Tester', email: '' });
    const wechat = await startMockWeChatServer('wx-token');
    await use({ github, lark, wechat });
    await Promise.all([github.close(), lark.close(), wechat.close()]);
  },
  gatewayEnv: async ({ providers }, use) =>
    use({ GITHUB_OAUTH_URL: providers.github.url, GITHUB_API_URL: providers.github.url, LARK_AUTH_URL: providers.lark.url, LARK_API_URL: providers.lark.url }),
});

/** Registers the gateway's callback addresses with the providers and switches the three sign-ins on. */
async function setUp(gateway: GatewayServer, providers: Providers): Promise<APIRequestContext> {
  providers.github.setCallbackUrl(`${gateway.url}/oauth/github`);
  providers.lark.allowRedirectUrl(`${gateway.url}/oauth/lark`);
  const root = await gateway.apiAs('root', '123456');
  const options: Array<[string, string]> = [
    ['GitHubClientId', 'Iv1.e2e'],
    ['GitHubClientSecret', 'gh-secret'],
    ['GitHubOAuthEnabled', 'true'],
    ['LarkClientId', 'cli_e2e'],
    ['LarkClientSecret', 'lark-secret'],
    ['WeChatServerAddress', providers.wechat.url],
    ['WeChatServerToken', 'wx-token'],
    ['WeChatAccountQRCodeImageURL', providers.wechat.qrCodeUrl],
    ['WeChatAuthEnabled', 'true'],
  ];
  for (const [key, value] of options) expect((await (await root.put('/api/option/', { data: { key, value } })).json()).success, key).toBe(true);
  return root;
}

async function login(page: Page, url: string, username: string, password: string) {
  await page.goto(`${url}/login`);
  await page.getByPlaceholder('用户名或邮箱').fill(username);
  await page.getByPlaceholder('密码').fill(password);
  await page.locator('form').getByRole('button', { name: '登录' }).click();
}

// covers S2-LOGIN-06, S2-OAUTH-01, S2-OAUTH-03, S2-OAUTH-04, S2-ROUTES-06, S7-API-24, S7-API-25, S7-API-27
test('GitHub: a new visitor signs in through the authorisation window and becomes a user', async ({ page, gateway, providers }) => {
  await setUp(gateway, providers);
  providers.github.signIn('octo-e2e');
  await page.goto(`${gateway.url}/login`);
  const popupPromise = page.waitForEvent('popup');
  await page.getByRole('button', { name: 'GitHub 登录' }).click();
  const popup = await popupPromise;
  await popup.waitForURL(/\/$/);
  await expectToast(popup, '登录成功！');
  // the authorisation page got the client id, the state and scope user:email; GitHub sent code and state back
  const authorize = providers.github.requests.find((r) => r.path === '/login/oauth/authorize')!;
  expect(authorize.query.get('client_id')).toBe('Iv1.e2e');
  expect(authorize.query.get('scope')).toBe('user:email');
  expect(authorize.query.get('state')).toMatch(/^[A-Za-z0-9]{24}$/);
  const user = await popup.evaluate(() => JSON.parse(localStorage.getItem('user') ?? 'null'));
  expect(user).toMatchObject({ username: expect.stringMatching(/^github_\d+$/), display_name: 'Octo E2E', github_id: '4242', email: 'octo-e2e@example.com' });
  // the session works in the main window too (same browser)
  await page.goto(`${gateway.url}/token`);
  await expect(page).toHaveURL(/\/token$/);
});

// covers S2-SETTINGS-PERSONAL-12, S2-OAUTH-02, S8-ERRORS-25, S6-ROLES-09
test('GitHub: a signed-in user binds the account from personal settings, then signs in with it', async ({ page, gateway, providers, context }) => {
  const root = await setUp(gateway, providers);
  await root.post('/api/user/', { data: { username: 'linker', password: 'password123' } });
  await login(page, gateway.url, 'linker', 'password123');
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto(`${gateway.url}/setting`);
  providers.github.signIn('octo-e2e');
  const popupPromise = page.waitForEvent('popup');
  await page.getByRole('button', { name: /绑定 GitHub 账号/ }).click();
  const popup = await popupPromise;
  await popup.waitForURL(/\/setting$/);
  await expectToast(popup, '绑定成功！');
  await expect(popup.getByText('4242')).toBeVisible();

  // signed out, GitHub now signs this user in
  await context.clearCookies();
  await page.goto(`${gateway.url}/login`);
  const second = page.waitForEvent('popup');
  await page.getByRole('button', { name: 'GitHub 登录' }).click();
  const again = await second;
  await again.waitForURL(/\/$/);
  expect(await again.evaluate(() => JSON.parse(localStorage.getItem('user')!).username)).toBe('linker');
});

// covers S2-OAUTH-05, S2-OAUTH-06, S8-ERRORS-09
test('GitHub: a refused sign-in (registration closed) says so and leads back to the login page', async ({ page, gateway, providers }) => {
  const root = await setUp(gateway, providers);
  await root.put('/api/option/', { data: { key: 'RegisterEnabled', value: 'false' } });
  providers.github.signIn('octo-e2e');
  // The prompt stands for 1.5 s before the redirect: recorded by the page itself as it appears, in the window's
  // session storage (it outlives the redirect's page load), so a busy machine that looks late cannot miss it.
  // (Checked every 50 ms rather than observed: a popup keeps its window when it leaves its first blank document.)
  await page.context().addInitScript(() => {
    setInterval(() => {
      if (document.body?.textContent?.includes('操作失败，重定向至登录界面中...')) sessionStorage.setItem('e2e-prompted', '1');
    }, 50);
  });
  await page.goto(`${gateway.url}/login`);
  const popupPromise = page.waitForEvent('popup');
  await page.getByRole('button', { name: 'GitHub 登录' }).click();
  const popup = await popupPromise;
  await expectToast(popup, '管理员关闭了新用户注册');
  await popup.waitForURL(/\/login$/);
  expect(await popup.evaluate(() => sessionStorage.getItem('e2e-prompted')), 'prompt 操作失败，重定向至登录界面中...').toBe('1');
});

// covers S2-LOGIN-08, S2-SETTINGS-PERSONAL-13, S7-API-26, S7-API-28
test('Lark: sign-in creates a user; another user binds a Lark account from personal settings', async ({ page, gateway, providers, context }) => {
  const root = await setUp(gateway, providers);
  providers.lark.signIn('ou_e2e');
  await page.goto(`${gateway.url}/login`);
  const popupPromise = page.waitForEvent('popup');
  await page.getByRole('button', { name: '飞书登录' }).click();
  const popup = await popupPromise;
  await popup.waitForURL(/\/$/);
  const authorize = providers.lark.requests.find((r) => r.path === '/open-apis/authen/v1/authorize')!;
  expect(authorize.query.get('client_id')).toBe('cli_e2e');
  expect(authorize.query.get('redirect_uri')).toBe(`${gateway.url}/oauth/lark`);
  expect(await popup.evaluate(() => JSON.parse(localStorage.getItem('user')!))).toMatchObject({ username: expect.stringMatching(/^lark_\d+$/), display_name: '飞书测试员', lark_id: 'ou_e2e' });
  await popup.close();

  // binding: a second Lark account to an existing user
  providers.lark.addUser({ open_id: 'ou_second', union_id: 'on_second', name: '第二位', en_name: 'Second', email: '' });
  providers.lark.signIn('ou_second');
  await context.clearCookies();
  await root.post('/api/user/', { data: { username: 'larker', password: 'password123' } });
  await login(page, gateway.url, 'larker', 'password123');
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto(`${gateway.url}/setting`);
  const bindPopup = page.waitForEvent('popup');
  await page.getByRole('button', { name: '绑定飞书账号' }).click();
  const bound = await bindPopup;
  await bound.waitForURL(/\/setting$/);
  await expectToast(bound, '绑定成功！');
  await expect(bound.getByText('ou_second')).toBeVisible();
});

// covers S2-LOGIN-07, S2-LOGIN-09, S2-LOGIN-10, S2-LOGIN-11, S2-LOGIN-12, S7-API-29, S2-SETTINGS-PERSONAL-11, S7-API-30, S8-ERRORS-18
test('WeChat: sign in with the code from the official account (lands on /), and bind from personal settings', async ({ page, gateway, providers, context }) => {
  const root = await setUp(gateway, providers);
  await page.goto(`${gateway.url}/login`);
  await page.getByRole('button', { name: '微信登录' }).click();
  const dialog = page.getByRole('dialog', { name: '微信扫码登录' });
  await expect(dialog.getByRole('img', { name: '微信二维码' })).toHaveAttribute('src', providers.wechat.qrCodeUrl);
  await expect(dialog.getByText('三分钟内有效')).toBeVisible();
  // a code older than three minutes is refused
  await dialog.getByPlaceholder('验证码').fill(providers.wechat.issueCode('wx-e2e-user', 200));
  await dialog.getByRole('button', { name: '登录' }).click();
  await expectToast(page, '验证码错误或已过期');
  await dialog.getByPlaceholder('验证码').fill(providers.wechat.issueCode('wx-e2e-user'));
  await dialog.getByRole('button', { name: '登录' }).click();
  await expectToast(page, '登录成功！');
  await expect(page).toHaveURL(new RegExp(`^${gateway.url}/$`));
  expect(await page.evaluate(() => JSON.parse(localStorage.getItem('user')!).wechat_id)).toBe('wx-e2e-user');

  await context.clearCookies();
  await page.evaluate(() => localStorage.removeItem('user'));
  await root.post('/api/user/', { data: { username: 'wxbinder', password: 'password123' } });
  await login(page, gateway.url, 'wxbinder', 'password123');
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto(`${gateway.url}/setting`);
  await page.getByRole('button', { name: /绑定微信账号/ }).click();
  const bindDialog = page.getByRole('dialog', { name: '绑定微信账号' });
  await bindDialog.getByPlaceholder('验证码').fill(providers.wechat.issueCode('wx-second'));
  await bindDialog.getByRole('button', { name: '绑定' }).click();
  await expectToast(page, '微信账户绑定成功！');
  await expect(page.getByText('wx-second')).toBeVisible();
});
