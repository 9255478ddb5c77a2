import { expect, test } from '../support/fixtures.js';
import { expectToast } from '../support/toasts.js';

// covers S2-TOKENS-01, S2-TOKENS-15, S2-TOKENS-07, S2-TOKENS-09, S2-TOKENS-10, S2-TOKENS-11, S2-TOKENS-14, S2-TOKENFORM-01, S5-VALID-29, S5-VALID-32, S8-ERRORS-29, S8-ERRORS-30
test('a user creates a key, copies it as sk-..., disables, enables, edits and deletes it', async ({ page, gateway, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const root = await gateway.apiAs('root', '123456');
  await root.post('/api/user/', { data: { username: 'keyuser', password: 'password123' } });
  await page.goto(`${gateway.url}/login`);
  await page.getByPlaceholder('用户名或邮箱').fill('keyuser');
  await page.getByPlaceholder('密码').fill('password123');
  await page.locator('form').getByRole('button', { name: '登录' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  // an ordinary user lands on the dashboard (issue 11); the keys are one menu item away
  await page.getByRole('menuitem', { name: '令牌' }).click();
  await expect(page).toHaveURL(/\/token$/);
  await expect(page.getByText('我的令牌')).toBeVisible();

  await page.getByRole('button', { name: '添加新的令牌' }).click();
  await expect(page).toHaveURL(/\/token\/add$/);
  await expect(page.getByRole('spinbutton', { name: '额度', exact: true })).toHaveValue('500000');
  await page.getByRole('button', { name: '提交' }).click();
  await expect(page.getByText('请输入令牌名称')).toBeVisible();
  await page.getByPlaceholder('请输入名称').fill('my-key');
  await page.getByRole('button', { name: '一小时' }).click();
  await page.getByRole('button', { name: '提交' }).click();
  await expectToast(page, '令牌创建成功，请在列表页面点击复制获取令牌！');
  await expect(page).toHaveURL(/\/token$/);
  const row = page.getByRole('row').filter({ hasText: 'my-key' });
  await expect(row.getByText('已启用')).toBeVisible();

  // The list shows the key masked; copying fetches the whole key and writes it.
  await expect(row.getByText(/^sk-[A-Za-z0-9]{4}\*{4}[A-Za-z0-9]{4}$/)).toBeVisible();
  await row.getByRole('button', { name: '复制' }).first().click();
  await expectToast(page, '已复制到剪贴板！');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toMatch(/^sk-[A-Za-z0-9]{48}$/);

  await row.getByRole('button', { name: '禁用' }).click();
  await expect(row.getByText('已禁用')).toBeVisible();
  await row.getByRole('button', { name: '启用' }).click();
  await expect(row.getByText('已启用')).toBeVisible();

  await row.getByRole('button', { name: '编辑' }).click();
  await expect(page).toHaveURL(/\/token\/edit\/\d+$/);
  await expect(page.getByPlaceholder('请输入名称')).toHaveValue('my-key');
  await page.getByPlaceholder('请输入名称').fill('renamed-key');
  await page.getByRole('button', { name: '提交' }).click();
  await expectToast(page, '令牌更新成功！');
  await expect(page).toHaveURL(/\/token$/);
  const renamed = page.getByRole('row').filter({ hasText: 'renamed-key' });
  await renamed.getByRole('button', { name: '删除' }).click();
  await page.getByRole('button', { name: '删除', exact: true }).last().click();
  await expect(page.getByRole('row').filter({ hasText: 'renamed-key' })).toHaveCount(0);
});
