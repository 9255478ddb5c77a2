import { expect, test } from '../support/fixtures.js';
import { addChannel } from '../support/usage.js';

// issue 11: /pricing lists every model of the group with its prices per million tokens; GET /api/pricing as new-api
test('the pricing page: visitors see the default group\'s models with input, output and cache prices; an admin can close it to visitors', async ({ page, gateway }) => {
  const root = await gateway.apiAs('root', '123456');
  await addChannel(root, { name: 'prices', baseUrl: 'http://127.0.0.1:9', models: 'gpt-4o-mini,acme-private-1' });

  // what chat clients read
  const api = await (await fetch(`${gateway.url}/api/pricing`)).json();
  expect(api).toMatchObject({ success: true, group_ratio: { default: 1 }, usable_group: { default: '默认分组' } });
  expect(api.data.find((m: { model_name: string }) => m.model_name === 'gpt-4o-mini')).toMatchObject({ quota_type: 0, model_ratio: 0.075, completion_ratio: 4, model_price: 0, enable_groups: ['default'] });

  await page.goto(gateway.url);
  await page.getByRole('menuitem', { name: '定价' }).click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page.getByText(/价格单位：美元 \/ 每百万 tokens；默认分组 default/)).toBeVisible();
  // gpt-4o-mini at its default ratios is OpenAI's list price: $0.15 in, $0.60 out, $0.075 cached per million tokens
  const mini = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'gpt-4o-mini', exact: true }) });
  await expect(mini.locator('td')).toHaveText(['gpt-4o-mini', '$0.15', '$0.60', '$0.075', '$0.15']);
  // a model without a configured ratio is priced at the (expensive) default ratio 30, and says so
  const unpriced = page.getByRole('row').filter({ hasText: 'acme-private-1' });
  await expect(unpriced.locator('td').nth(0)).toHaveText('acme-private-1默认倍率');
  await expect(unpriced.locator('td').nth(1)).toHaveText('$60.00');
  await page.getByPlaceholder('搜索模型名称').fill('acme');
  await expect(mini).toHaveCount(0);
  await expect(unpriced).toBeVisible();

  // closed to visitors: the menu entry goes, the page says so; a signed-in user still sees the prices
  await root.put('/api/option/', { data: { key: 'PricingPageEnabled', value: 'false' } });
  await page.goto(`${gateway.url}/pricing`);
  await expect(page.getByText('定价页面未开放')).toBeVisible();
  await expect(page.getByRole('menuitem', { name: '定价' })).toHaveCount(0);
  expect(await (await fetch(`${gateway.url}/api/pricing`)).json()).toEqual({ success: false, message: '管理员未开放定价页面，请登录后查看' });
  await root.post('/api/user/', { data: { username: 'reader', password: 'password123' } });
  // the page's own sign-in button brings the visitor back here afterwards
  await page.locator('.ant-result').getByRole('button', { name: '登录' }).click();
  await page.getByPlaceholder('用户名或邮箱').fill('reader');
  await page.getByPlaceholder('密码').fill('password123');
  await page.locator('form').getByRole('button', { name: '登录' }).click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(mini.locator('td').nth(1)).toHaveText('$0.15');
});
