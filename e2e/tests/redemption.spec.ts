import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { expect, test } from '../support/fixtures.js';
import { expectToast } from '../support/toasts.js';

async function login(page: Page, url: string, username: string, password: string) {
  await page.goto(`${url}/login`);
  await page.getByPlaceholder('用户名或邮箱').fill(username);
  await page.getByPlaceholder('密码').fill(password);
  await page.locator('form').getByRole('button', { name: '登录' }).click();
}

// covers S2-ROUTES-10, S2-REDEMPTIONFORM-01, S2-REDEMPTIONFORM-02, S2-REDEMPTIONFORM-03, S2-REDEMPTIONS-12, S5-VALID-55, S5-VALID-56, S7-API-65, S7-API-66, S8-ERRORS-31
test('an admin creates redemption codes in the browser and gets them as a text file named after the name', async ({ page, gateway }) => {
  await login(page, gateway.url, 'root', '123456');
  await expect(page).toHaveURL(/\/user\/edit$/);
  await page.getByRole('menuitem', { name: '兑换' }).click();
  await expect(page).toHaveURL(/\/redemption$/);
  await expect(page.getByText('还没有兑换码')).toBeVisible();
  await page.getByRole('button', { name: '添加新的兑换码' }).first().click();
  await expect(page).toHaveURL(/\/redemption\/add$/);
  await expect(page.getByRole('spinbutton', { name: '额度' })).toHaveValue('100000');
  await expect(page.getByRole('spinbutton', { name: '生成数量' })).toHaveValue('1');
  await page.getByRole('button', { name: '提交' }).click();
  await expect(page.getByText('请输入兑换码名称')).toBeVisible();

  await page.getByPlaceholder('请输入名称').fill('launch-gift');
  await page.getByRole('spinbutton', { name: '额度' }).fill('2500000');
  await page.getByRole('spinbutton', { name: '生成数量' }).fill('3');
  await expect(page.getByText('额度（$5.00）')).toBeVisible();
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: '提交' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('launch-gift.txt');
  const lines = (await readFile(await download.path(), 'utf8')).split('\n');
  expect(lines.pop()).toBe('');
  expect(lines).toHaveLength(3);
  for (const code of lines) expect(code).toMatch(/^[0-9a-f]{32}$/);
  await expectToast(page, '兑换码创建成功！已生成 3 个并下载');

  // The file holds exactly the codes the server keeps, unused, with the chosen quota.
  await expect(page).toHaveURL(/\/redemption$/);
  const rows = page.getByRole('row').filter({ hasText: 'launch-gift' });
  await expect(rows).toHaveCount(3);
  await expect(rows.filter({ hasText: '未使用' }).filter({ hasText: '$5.00' })).toHaveCount(3);
  const root = await gateway.apiAs('root', '123456');
  const stored = (await (await root.get('/api/redemption/search?keyword=launch-gift')).json()).data as Array<{ key: string; quota: number; status: number }>;
  expect(stored.map((r) => r.key).sort()).toEqual([...lines].sort());
  expect(stored.every((r) => r.quota === 2_500_000 && r.status === 1)).toBe(true);
});

// covers S2-ROUTES-15, S2-SHELL-04, S2-TOPUP-01, S2-TOPUP-03, S2-TOPUP-04, S6-ROLES-06, S7-API-20, S8-ERRORS-33
test('a user redeems a code on the top-up screen and sees the balance change everywhere, once', async ({ page, gateway }) => {
  const root = await gateway.apiAs('root', '123456');
  await root.post('/api/user/', { data: { username: 'buyer', password: 'password123' } });
  const [code] = (await (await root.post('/api/redemption/', { data: { name: 'welcome', quota: 5_000_000, count: 1 } })).json()).data as string[];

  await login(page, gateway.url, 'buyer', 'password123');
  await expect(page).toHaveURL(/\/dashboard$/);
  // The own balance is in the top bar on every screen.
  const balance = page.getByRole('link', { name: '账户余额' });
  await expect(balance).toHaveText('$0.00');
  await page.getByRole('menuitem', { name: '充值' }).click();
  await expect(page).toHaveURL(/\/topup$/);
  const remaining = page.locator('.ant-statistic').filter({ hasText: '剩余额度' });
  await expect(remaining).toContainText('$0.00');

  await page.getByRole('button', { name: '兑换' }).click();
  await expectToast(page, '请输入兑换码！');
  await page.getByRole('textbox', { name: '兑换码' }).fill(code);
  await page.getByRole('button', { name: '兑换' }).click();
  await expectToast(page, '充值成功！');
  await expect(page.getByText('已成功兑换 $10.00')).toBeVisible();
  await expect(remaining).toContainText('$10.00');
  await expect(balance).toHaveText('$10.00');

  // The same code again: refused, nothing added.
  await page.getByRole('textbox', { name: '兑换码' }).fill(code);
  await page.getByRole('button', { name: '兑换' }).click();
  await expectToast(page, '该兑换码已被使用');
  await page.reload();
  await expect(remaining).toContainText('$10.00');
  await expect(balance).toHaveText('$10.00');

  // The user menu shows the account's figures; the log has the top-up row.
  await page.getByRole('button', { name: '用户菜单' }).click();
  await expect(page.getByLabel('账户统计')).toContainText('剩余额度：$10.00');
  await page.keyboard.press('Escape');
  await page.getByRole('menuitem', { name: '日志' }).click();
  const topUp = page.getByRole('row').filter({ hasText: '充值' }).filter({ hasText: '通过兑换码充值 $10.00' });
  await expect(topUp).toHaveCount(1);
  await expect(topUp.getByText('$10.00', { exact: true })).toBeVisible();

  // The admin sees the code as used.
  const used = (await (await root.get('/api/redemption/search?keyword=welcome')).json()).data[0];
  expect(used.status).toBe(3);
});
