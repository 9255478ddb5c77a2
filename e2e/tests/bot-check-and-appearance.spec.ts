import { startMockTurnstile, type MockTurnstile } from '../../packages/server/src/test-support/mock-turnstile.js';
import { expect, test as base } from '../support/fixtures.js';
import { pickFromPopup } from '../support/popups.js';
import { expectToast } from '../support/toasts.js';

const SITE = { siteKey: '0x4AAAAAAAe2e-site', secretKey: '0x4AAAAAAAe2e-secret' };

/** A local Turnstile: siteverify for the gateway, and the widget script for the browser (Cloudflare is unreachable). */
const test = base.extend<{ turnstile: MockTurnstile }>({
  // eslint-disable-next-line no-empty-pattern
  turnstile: async ({}, use) => {
    const turnstile = await startMockTurnstile(SITE);
    await use(turnstile);
    await turnstile.close();
  },
  gatewayEnv: async ({ turnstile }, use) => use({ TURNSTILE_VERIFY_URL: turnstile.verifyUrl, TURNSTILE_SCRIPT_URL: turnstile.scriptUrl }),
});

async function setOptions(api: import('@playwright/test').APIRequestContext, options: Array<[string, string]>) {
  for (const [key, value] of options) expect((await (await api.put('/api/option/', { data: { key, value } })).json()).success, key).toBe(true);
}

/** Ticks the widget and waits until it has passed (its token obtained and handed to the page). */
async function checkWidget(page: import('@playwright/test').Page) {
  await page.getByRole('checkbox', { name: '确认您是真人' }).check();
  await expect(page.getByText('已通过验证')).toBeVisible();
}

async function fillRegistration(page: import('@playwright/test').Page, username: string) {
  await page.getByPlaceholder('输入用户名，最长 12 位').fill(username);
  await page.getByPlaceholder('输入密码，最短 8 位，最长 20 位').fill('password123');
  await page.getByPlaceholder('再次输入密码').fill('password123');
}

// covers S2-REGISTER-07, S5-VALID-06, S2-SETTINGS-SYSTEM-08
test('Turnstile on: registration shows the widget, warns until it passes, and the server verifies the token', async ({ page, gateway, turnstile }) => {
  const root = await gateway.apiAs('root', '123456');
  await setOptions(root, [['TurnstileSiteKey', SITE.siteKey], ['TurnstileSecretKey', SITE.secretKey], ['TurnstileCheckEnabled', 'true']]);
  await page.goto(`${gateway.url}/register`);
  await fillRegistration(page, 'human');
  await expect(page.getByRole('checkbox', { name: '确认您是真人' })).toBeVisible();
  await page.getByRole('button', { name: '注册' }).last().click();
  await expectToast(page, '请稍后几秒重试，Turnstile 正在检查用户环境！');
  expect(turnstile.requests.filter((r) => r.path.endsWith('/siteverify'))).toHaveLength(0);

  // The widget asks its service for a token once ticked; the form takes it only when that answer has arrived (as
  // with the real widget, a click before it only repeats the warning). Wait for the widget's own answer.
  await checkWidget(page);
  await page.getByRole('button', { name: '注册' }).last().click();
  await expectToast(page, '注册成功！');
  await expect(page).toHaveURL(/\/login$/);
  const verify = turnstile.requests.filter((r) => r.path.endsWith('/siteverify'));
  expect(verify).toHaveLength(1);
  expect(verify[0].body).toMatchObject({ secret: SITE.secretKey });

  // a request that skips the widget is refused by the server
  const bot = await page.request.post(`${gateway.url}/api/user/register?turnstile=`, { data: { username: 'robot', password: 'password123' } });
  expect(await bot.json()).toMatchObject({ success: false, message: 'Turnstile token 为空' });
});

// covers S2-RESET-02, S5-VALID-60
test('Turnstile on: the reset request screen shows the widget and warns until it passes', async ({ page, gateway }) => {
  const root = await gateway.apiAs('root', '123456');
  await setOptions(root, [['TurnstileSiteKey', SITE.siteKey], ['TurnstileSecretKey', SITE.secretKey], ['TurnstileCheckEnabled', 'true']]);
  await page.goto(`${gateway.url}/reset`);
  await page.getByPlaceholder('邮箱地址').fill('nobody@example.com');
  await page.getByRole('button', { name: '提交' }).click();
  await expectToast(page, '请稍后几秒重试，Turnstile 正在检查用户环境！');
  await checkWidget(page);
  await page.getByRole('button', { name: '提交' }).click();
  // past the bot-check, the server answers about the address itself
  await expectToast(page, '该邮箱地址未注册');
});

test('Turnstile off: no widget, registration goes through without a token', async ({ page, gateway, turnstile }) => {
  await page.goto(`${gateway.url}/register`);
  await fillRegistration(page, 'plainuser');
  await expect(page.getByRole('checkbox', { name: '确认您是真人' })).toHaveCount(0);
  await page.getByRole('button', { name: '注册' }).last().click();
  await expectToast(page, '注册成功！');
  expect(turnstile.requests).toHaveLength(0);
});

// covers S2-SETTINGS-OTHER-02
test('the notice is shown once per content and can be dismissed; a new notice shows again', async ({ page, gateway }) => {
  const root = await gateway.apiAs('root', '123456');
  await setOptions(root, [['Notice', '**系统维护**：今晚 22:00 开始']]);
  await page.goto(`${gateway.url}/`);
  const dialog = page.getByRole('dialog', { name: '公告' });
  await expect(dialog.getByText('系统维护')).toBeVisible();
  await dialog.getByRole('button', { name: '我知道了' }).click();
  await expect(dialog).toBeHidden();
  await page.reload();
  await expect(page.getByRole('link', { name: '关于' })).toBeVisible();
  await page.waitForTimeout(500);
  await expect(page.getByRole('dialog', { name: '公告' })).toHaveCount(0);

  await setOptions(root, [['Notice', '维护已改到明晚']]);
  await page.reload();
  await expect(page.getByRole('dialog', { name: '公告' }).getByText('维护已改到明晚')).toBeVisible();
});

// covers S2-SETTINGS-OTHER-04
test('the dark theme chosen in other settings applies to the whole console', async ({ page, gateway }) => {
  const lightHeader = async () => page.locator('header').evaluate((el) => getComputedStyle(el).backgroundColor);
  await page.goto(`${gateway.url}/login`);
  await page.getByPlaceholder('用户名或邮箱').fill('root');
  await page.getByPlaceholder('密码').fill('123456');
  await page.locator('form').getByRole('button', { name: '登录' }).click();
  await expect(page).toHaveURL(/\/user\/edit$/);
  expect(await lightHeader()).toBe('rgb(255, 255, 255)');
  await page.goto(`${gateway.url}/setting`);
  await page.getByRole('tab', { name: '其他设置' }).click();
  const theme = page.getByRole('combobox', { name: '主题名称' });
  await pickFromPopup({
    open: () => theme.click(),
    item: page.locator('.ant-select-item-option').filter({ hasText: '深色' }),
    done: async () => ((await page.locator('.ant-select').filter({ has: theme }).textContent()) ?? '').includes('深色'),
  });
  await page.getByRole('button', { name: '保存个性化设置' }).click();
  await expectToast(page, '保存成功');
  // applied at once, and for everyone after a reload
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  // Colours may still be in their transition right after the reload: wait for them to settle dark.
  const brightness = (color: string) => color.match(/\d+/g)!.slice(0, 3).map(Number).reduce((a, c) => a + c, 0);
  await expect.poll(async () => brightness(await lightHeader())).toBeLessThan(150);
  await expect.poll(async () => brightness(await page.locator('main, .ant-layout').first().evaluate((el) => getComputedStyle(el).backgroundColor))).toBeLessThan(150);
});
