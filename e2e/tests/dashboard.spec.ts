import { readFile } from 'node:fs/promises';
import { formatQuota } from '@model-relay/contract';
import { expect, test } from '../support/fixtures.js';
import { pickFromPopup } from '../support/popups.js';
import { startMockUpstream } from '../support/mock-upstream.js';
import { addChannel, chat, login, userWithKey } from '../support/usage.js';

const dollars = (quota: number) => formatQuota(quota, { quotaPerUnit: 500000, displayInCurrency: true });

// issue 11: a user sees their spending by day and model; an admin sees it by user and channel and exports it
test('the dashboard: a user sees spending by day and model after real calls; an admin sees users and channels and exports a CSV', async ({ page, gateway }) => {
  const mock = await startMockUpstream();
  try {
    const root = await gateway.apiAs('root', '123456');
    await addChannel(root, { name: '上游一号', baseUrl: mock.url, models: 'gpt-4o-mini,gpt-4o' });
    const buyer = await userWithKey(gateway, root, 'buyer', 'shop-key');
    for (let i = 0; i < 3; i++) await chat(gateway.url, buyer.key, 'gpt-4o-mini');
    for (let i = 0; i < 2; i++) await chat(gateway.url, buyer.key, 'gpt-4o');

    // what the logs charged, per model: the dashboard (from the rollups) must say the same
    const logs = (await (await buyer.api.get('/api/log/self/?p=0&type=2')).json()).data as Array<{ model_name: string; quota: number }>;
    expect(logs).toHaveLength(5);
    const spent = (model: string) => logs.filter((l) => l.model_name === model).reduce((sum, l) => sum + l.quota, 0);
    const total = spent('gpt-4o-mini') + spent('gpt-4o');
    expect(spent('gpt-4o-mini')).toBeGreaterThan(0);
    const tz = -new Date().getTimezoneOffset();
    const now = Math.floor(Date.now() / 1000);
    // The ledger writes rollups in its batches: wait until they hold the five requests.
    await expect.poll(async () => (await (await buyer.api.get(`/api/dashboard/self/summary?tz=${tz}`)).json()).data.today.requests).toBe(5);

    await login(page, gateway.url, 'buyer', 'password123');
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('menuitem', { name: '仪表盘' })).toBeVisible();
    await expect(page.getByLabel('今日消费')).toContainText(dollars(total));
    await expect(page.getByLabel('今日消费')).toContainText('请求 5 次 · 110 tokens');
    await expect(page.getByLabel('所选范围合计')).toContainText(dollars(total));
    // by model
    const byModel = page.locator('.ant-card').filter({ has: page.getByText('按模型', { exact: true }) });
    const modelRow = (model: string) => byModel.getByRole('row').filter({ has: page.getByRole('cell', { name: model, exact: true }) });
    for (const [model, requests] of [['gpt-4o-mini', '3'], ['gpt-4o', '2']] as const) {
      await expect(modelRow(model).locator('td').nth(2)).toHaveText(requests);
      await expect(modelRow(model)).toContainText(dollars(spent(model)));
    }
    // by day: the last seven days, today's bar drawn
    const today = new Date((now + tz * 60) * 1000).toISOString().slice(5, 10);
    const trend = page.getByLabel('用量趋势：消费');
    await expect(trend.locator('.recharts-cartesian-axis-tick-value').filter({ hasText: today })).toBeVisible();
    await expect(trend.locator('.recharts-bar-rectangle path').first()).toBeVisible();
    await expect(page.getByLabel('模型消费占比').locator('.recharts-pie-sector').first()).toBeVisible();
    // the keys
    await expect(page.locator('.ant-card').filter({ has: page.getByText('令牌排行', { exact: true }) }).getByRole('row').filter({ hasText: 'shop-key' })).toContainText(dollars(total));
    // hour buckets
    await page.getByText('按小时').click();
    await page.getByRole('button', { name: '查询' }).click();
    await expect(page.getByLabel('用量趋势：消费').locator('.recharts-cartesian-axis-tick-value').filter({ hasText: /\d\d-\d\d \d\d:00/ }).first()).toBeVisible();

    // the admin: everyone, by user and by channel, exported
    await pickFromPopup({
      open: () => page.getByRole('button', { name: '用户菜单' }).click(),
      item: page.getByRole('menuitem', { name: '注销' }),
      done: async () => /\/login$/.test(page.url()),
    });
    await login(page, gateway.url, 'root', '123456');
    await expect(page).toHaveURL(/\/user\/edit$/);
    await page.getByRole('menuitem', { name: '仪表盘' }).click();
    await expect(page.getByRole('radio', { name: '全站用量' })).toBeChecked();
    const users = page.locator('.ant-card').filter({ has: page.getByText('用户排行', { exact: true }) });
    await expect(users.getByRole('row').filter({ hasText: 'buyer' })).toContainText(dollars(total));
    const channels = page.locator('.ant-card').filter({ has: page.getByText('渠道排行', { exact: true }) });
    await expect(channels.getByRole('row').filter({ hasText: '上游一号' })).toContainText(dollars(total));
    await expect(page.getByLabel('用户消费排行').locator('.recharts-bar-rectangle path').first()).toBeVisible();

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: /导出 CSV/ }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^usage-\d{8}-\d{8}\.csv$/);
    const bytes = await readFile((await file.path())!);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.toString('utf8').slice(1).trimEnd().split('\r\n');
    expect(lines[0]).toBe('时间,用户 ID,用户名,令牌 ID,令牌名称,模型,渠道 ID,渠道名称,请求数,失败数,输入 tokens,输出 tokens,缓存读取 tokens,推理 tokens,消费额度,金额（美元）,平均耗时（毫秒）');
    const rows = lines.slice(1).map((line) => line.split(','));
    expect(rows.map((r) => [r[2], r[4], r[5], r[7], r[8], r[10], r[11], r[14]]).sort()).toEqual(
      [
        ['buyer', 'shop-key', 'gpt-4o', '上游一号', '2', '24', '20', String(spent('gpt-4o'))],
        ['buyer', 'shop-key', 'gpt-4o-mini', '上游一号', '3', '36', '30', String(spent('gpt-4o-mini'))],
      ].sort(),
    );
    expect(rows.every((r) => r[0] === new Date((now + tz * 60) * 1000).toISOString().slice(0, 10))).toBe(true);
  } finally {
    await mock.close();
  }
});
