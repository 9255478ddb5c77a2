import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures.js';
import { expectToast } from '../support/toasts.js';

async function login(page: Page, url: string, username: string, password: string, landing: RegExp) {
  await page.goto(`${url}/login`);
  await page.getByPlaceholder('用户名或邮箱').fill(username);
  await page.getByPlaceholder('密码').fill(password);
  await page.locator('form').getByRole('button', { name: '登录' }).click();
  await expect(page).toHaveURL(landing);
}

// covers S2-SETTINGS-PERSONAL-01, S2-SETTINGS-PERSONAL-02, S2-SETTINGS-PERSONAL-03, S2-SETTINGS-PERSONAL-04, S2-SETTINGS-PERSONAL-05, S2-SETTINGS-PERSONAL-06, S2-SETTINGS-PERSONAL-07, S2-SETTINGS-PERSONAL-08, S2-SETTINGS-PERSONAL-09, S2-SETTINGS-PERSONAL-10, S5-VALID-09, S6-ROLES-13, S6-ROLES-14, S6-ROLES-15, S7-API-16, S7-API-17, S7-API-18, S7-API-15, S8-ERRORS-16, S8-ERRORS-17, S8-ERRORS-20
test('personal settings: system token, invite link, and deleting the own account with the username check', async ({ page, gateway, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const root = await gateway.apiAs('root', '123456');
  await root.post('/api/user/', { data: { username: 'leaver', password: 'password123' } });
  await login(page, gateway.url, 'leaver', 'password123', /\/dashboard$/);
  await page.getByRole('menuitem', { name: '设置' }).click();
  await expect(page.getByRole('tab', { name: '个人设置' })).toBeVisible();
  await expect(page.getByRole('tab', { name: '运营设置' })).toHaveCount(0);
  await expect(page.getByRole('tab', { name: '系统设置' })).toHaveCount(0);
  await expect(page.getByRole('tab', { name: '其他设置' })).toHaveCount(0);

  await page.getByRole('button', { name: '生成系统访问令牌' }).click();
  await expectToast(page, '令牌已重置并已复制到剪贴板');
  const token = await page.getByRole('textbox', { name: '系统访问令牌' }).inputValue();
  expect(token).toMatch(/^[0-9a-f]{32}$/);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  expect(await page.getByRole('textbox', { name: '系统访问令牌' }).getAttribute('readonly')).not.toBeNull();
  const viaToken = await (await fetch(`${gateway.url}/api/user/self`, { headers: { authorization: token } })).json();
  expect(viaToken.data.username).toBe('leaver');

  await page.getByRole('button', { name: '复制邀请链接' }).click();
  await expectToast(page, '邀请链接已复制到剪切板');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(new RegExp(`^${gateway.url.replace(/[.]/g, '\\.')}/register\\?aff=[A-Za-z0-9]{4}$`));

  await page.getByRole('button', { name: '更新个人信息' }).click();
  await expect(page).toHaveURL(/\/user\/edit$/);
  await page.goBack();

  await page.getByRole('button', { name: '删除个人账户' }).click();
  await page.getByPlaceholder(/输入你的账户名/).fill('someone-else');
  await page.getByRole('dialog').getByRole('button', { name: '删除' }).click();
  await expectToast(page, '请输入你的账户名以确认删除！');
  await page.getByPlaceholder(/输入你的账户名/).fill('leaver');
  await page.getByRole('dialog').getByRole('button', { name: '删除' }).click();
  await expectToast(page, '账户已删除！');
  await expect(page).toHaveURL(/\/login$/);
  expect(await page.evaluate(() => localStorage.getItem('user'))).toBeNull();
  const gone = await (await root.get('/api/user/search?keyword=leaver')).json();
  expect(gone.data).toEqual([]);
});

// covers S2-SETTINGS-OPERATION-02, S8-ERRORS-21, S2-SETTINGS-OPERATION-01, S2-SETTINGS-OPERATION-03, S2-SETTINGS-OPERATION-06, S2-SETTINGS-OPERATION-08, S2-SETTINGS-OPERATION-12, S2-SETTINGS-OPERATION-18, S4-STATES-29, S4-STATES-30, S5-VALID-11
test('operation settings: numbers saved, a checkbox sent at once, an invalid ratio refused', async ({ page, gateway }) => {
  const root = await gateway.apiAs('root', '123456');
  await login(page, gateway.url, 'root', '123456', /\/user\/edit$/);
  await page.goto(`${gateway.url}/setting`);
  await page.getByRole('tab', { name: '运营设置' }).click();
  for (const section of ['通用设置', '日志设置', '监控设置', '额度设置', '倍率设置']) await expect(page.getByText(section, { exact: true })).toBeVisible();
  const thirtyDaysAgo = new Date(Date.now() - 30 * 24 * 3600 * 1000).toISOString().slice(0, 10);
  await expect(page.getByRole('textbox', { name: '日志清理时间' })).toHaveValue(new RegExp(`^${thirtyDaysAgo}`));
  // Clearing history asks first; only the confirmation clears.
  await page.getByRole('button', { name: '清除历史日志' }).click();
  await expect(page.getByText(/之前的所有日志？此操作不可恢复。/)).toBeVisible();
  // The browser asks for reduced motion (playwright.config.ts) and the console honours it: the popup is there at
  // once, not zooming in (a click on a button still moving was lost on a busy machine).
  expect(await page.locator('.ant-popconfirm').getAttribute('class')).not.toMatch(/ant-zoom/);
  // The server's answer, not the toast (which may be gone on a busy machine by the time it is looked for).
  const cleared = page.waitForResponse((res) => res.request().method() === 'DELETE' && new URL(res.url()).pathname === '/api/log/');
  await page.locator('.ant-popconfirm').getByRole('button', { name: '清除' }).click();
  const answer = (await (await cleared).json()) as { success: boolean; data: number };
  expect(answer.success).toBe(true);
  expect(answer.data).toBeGreaterThanOrEqual(0);

  await page.getByRole('spinbutton', { name: '失败重试次数' }).fill('3');
  await page.getByRole('button', { name: '保存通用设置' }).click();
  await expectToast(page, '保存成功');
  await page.getByRole('spinbutton', { name: '新用户初始额度' }).fill('12345');
  await page.getByRole('button', { name: '保存额度设置' }).click();
  await page.getByRole('checkbox', { name: '失败时自动禁用通道' }).click();
  await expect(page.getByRole('checkbox', { name: '失败时自动禁用通道' })).toBeChecked();
  await expect.poll(async () => {
    const options = (await (await root.get('/api/option/')).json()).data as Array<{ key: string; value: string }>;
    const get = (key: string) => options.find((o) => o.key === key)?.value;
    return [get('RetryTimes'), get('QuotaForNewUser'), get('AutomaticDisableChannelEnabled')];
  }).toEqual(['3', '12345', 'true']);

  await page.getByRole('textbox', { name: '模型倍率' }).fill('{not json');
  await page.getByRole('button', { name: '保存倍率设置' }).click();
  await expect(page.getByText('模型倍率不是合法的 JSON 字符串')).toBeVisible();
  const ratio = ((await (await root.get('/api/option/')).json()).data as Array<{ key: string; value: string }>).find((o) => o.key === 'ModelRatio')!.value;
  expect(JSON.parse(ratio)['gpt-4o']).toBe(1.25);
});

// covers S4-STATES-31, S4-STATES-32, S2-SETTINGS-OTHER-03, S1-PRODUCT-02
test('turning password login off asks first; the system name shows in the top bar', async ({ page, gateway }) => {
  const root = await gateway.apiAs('root', '123456');
  await login(page, gateway.url, 'root', '123456', /\/user\/edit$/);
  await page.goto(`${gateway.url}/setting`);
  await page.getByRole('tab', { name: '系统设置' }).click();
  await page.getByRole('checkbox', { name: '允许通过密码进行登录' }).click();
  const dialog = page.locator('.ant-modal-confirm');
  await expect(dialog.locator('.ant-modal-confirm-title')).toHaveText('确定要取消密码登录吗？');
  await dialog.getByRole('button', { name: '取消' }).click();
  await expect(dialog).toHaveCount(0);
  const passwordLogin = async () => ((await (await root.get('/api/option/')).json()).data as Array<{ key: string; value: string }>).find((o) => o.key === 'PasswordLoginEnabled')!.value;
  expect(await passwordLogin()).toBe('true');

  await page.getByRole('tab', { name: '其他设置' }).click();
  await page.getByRole('textbox', { name: '系统名称' }).fill('星河网关');
  await page.getByRole('button', { name: '保存个性化设置' }).click();
  await expectToast(page, '保存成功');
  await expect(page.getByRole('banner').getByText('星河网关')).toBeVisible();
  expect((await (await root.get('/api/status')).json()).data.system_name).toBe('星河网关');
});
