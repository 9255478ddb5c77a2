import { expect, test } from '../support/fixtures.js';
import { pickFromPopup } from '../support/popups.js';
import { expectToast } from '../support/toasts.js';
import { startMockUpstream } from '../support/mock-upstream.js';

// covers S2-ROUTES-08, S2-ROUTES-16, S6-ROLES-07, S6-ROLES-10, S8-ERRORS-27
test('an admin adds a channel in the browser; a user creates a key, calls the gateway with it, and sees the log row and the lower quota', async ({ page, gateway, context }) => {
  const mock = await startMockUpstream();
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const root = await gateway.apiAs('root', '123456');
    await root.post('/api/user/', { data: { username: 'buyer', password: 'password123' } });
    const buyer = (await (await root.get('/api/user/search?keyword=buyer')).json()).data[0];
    await root.put('/api/user/', { data: { id: buyer.id, quota: 1_000_000 } });

    // admin: add a channel pointing at the mock upstream
    await page.goto(`${gateway.url}/login`);
    await page.getByPlaceholder('用户名或邮箱').fill('root');
    await page.getByPlaceholder('密码').fill('123456');
    await page.locator('form').getByRole('button', { name: '登录' }).click();
    await expect(page).toHaveURL(/\/user\/edit$/);
    await page.getByRole('menuitem', { name: '渠道' }).click();
    await page.getByRole('button', { name: '添加新的渠道' }).click();
    await page.getByPlaceholder('请为渠道命名').fill('mock-openai');
    await page.getByPlaceholder('请输入代理地址').fill(mock.url);
    await page.getByRole('combobox', { name: '模型' }).click();
    await page.getByPlaceholder('输入自定义模型名称').fill('gpt-4o-mini');
    await page.getByRole('button', { name: '填入', exact: true }).click();
    await page.getByRole('textbox', { name: '密钥' }).fill('sk-upstream-key');
    await page.getByRole('button', { name: '提交' }).click();
    await expectToast(page, '渠道创建成功！');
    await expect(page).toHaveURL(/\/channel$/);
    await expect(page.getByRole('row').filter({ hasText: 'mock-openai' })).toBeVisible();
    await pickFromPopup({
      open: () => page.getByRole('button', { name: '用户菜单' }).click(),
      item: page.getByRole('menuitem', { name: '注销' }),
      done: async () => /\/login$/.test(page.url()),
    });
    await expect(page).toHaveURL(/\/login$/);

    // user: create a key and copy it
    await page.getByPlaceholder('用户名或邮箱').fill('buyer');
    await page.getByPlaceholder('密码').fill('password123');
    await page.locator('form').getByRole('button', { name: '登录' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    // an ordinary user lands on the dashboard (issue 11); the keys are one menu item away
    await page.getByRole('menuitem', { name: '令牌' }).click();
    await expect(page).toHaveURL(/\/token$/);
    await page.getByRole('button', { name: '添加新的令牌' }).click();
    await page.getByPlaceholder('请输入名称').fill('shop-key');
    await page.getByRole('button', { name: '提交' }).click();
    const row = page.getByRole('row').filter({ hasText: 'shop-key' });
    await row.getByRole('button', { name: '复制' }).first().click();
    // The whole key is fetched for the copy (the list shows it masked): read the clipboard once it is written.
    await expectToast(page, '已复制到剪贴板！');
    const key = await page.evaluate(() => navigator.clipboard.readText());
    expect(key).toMatch(/^sk-/);

    // call the gateway with it, as any OpenAI client would
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBe('hello from the mock');

    // the log row and the lower quota show in the console: cost = ceil((12 + 10 x 4) x 0.075) = 4
    await page.getByRole('menuitem', { name: '日志' }).click();
    const logRow = page.getByRole('row').filter({ hasText: 'gpt-4o-mini' });
    await expect(logRow).toBeVisible();
    await expect(logRow.getByText('shop-key')).toBeVisible();
    await expect(logRow.getByText('消费')).toBeVisible();
    await page.getByRole('button', { name: '点击查看总消耗额度' }).click();
    // The one money rule: 4 units are $0.000008, never a misleading $0.00.
    await expect(page.getByText('总消耗额度：$0.000008', { exact: true })).toBeVisible();
    await page.getByRole('menuitem', { name: '令牌' }).click();
    await expect(page.getByRole('row').filter({ hasText: 'shop-key' }).getByText('$1.00')).toBeVisible();
    const self = await (await page.request.get(`${gateway.url}/api/user/self`)).json();
    expect(self.data.quota).toBe(1_000_000 - 4);
    expect(self.data.used_quota).toBe(4);
  } finally {
    await mock.close();
  }
});
