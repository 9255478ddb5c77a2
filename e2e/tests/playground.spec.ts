import { MOCK_REPLY, startMockUpstream, type MockUpstream } from '../../packages/server/src/test-support/mock-openai.js';
import { formatQuota } from '@model-relay/contract';
import { expect, test } from '../support/fixtures.js';
import { pickFromPopup } from '../support/popups.js';
import { addChannel, login, userWithKey } from '../support/usage.js';

let mock: MockUpstream;
// A stream whose client left is read on for its usage for STREAM_DRAIN_SECONDS (default 60) before it is cut: one
// second here, so that the stopped endless answer's upstream call ends, and it is settled, within the test.
test.use({ gatewayEnv: { STREAM_DRAIN_SECONDS: '1' } });
test.beforeEach(async () => {
  mock = await startMockUpstream();
});
test.afterEach(async () => {
  await mock.close();
});

// issue 11: /playground chats through the gateway with the user's own key, streamed, with stop and the cost of each answer
test('the playground: a streamed answer from the upstream and its cost from the log; stop ends an endless one', async ({ page, gateway }) => {
  const root = await gateway.apiAs('root', '123456');
  await addChannel(root, { name: 'streaming', baseUrl: mock.url, models: 'gpt-4o-mini', key: 'ok' });
  // the mock's "endless" mode streams a word every 100 ms until the caller goes away
  await addChannel(root, { name: 'endless', baseUrl: mock.url, models: 'story-model', key: 'endless' });
  const player = await userWithKey(gateway, root, 'player', 'play-key');

  await login(page, gateway.url, 'player', 'password123');
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.getByRole('menuitem', { name: '操练场' }).click();
  await expect(page).toHaveURL(/\/playground$/);
  const picked = (name: string) => page.getByRole('combobox', { name }).locator('xpath=ancestor::*[contains(@class,"ant-select")][1]');
  await expect(picked('令牌')).toContainText('play-key');
  // the key's models come from GET /v1/models with that key
  await pickFromPopup({
    open: () => page.getByRole('combobox', { name: '模型' }).click(),
    item: page.locator('.ant-select-item-option[title="gpt-4o-mini"]'),
    done: async () => ((await picked('模型').textContent()) ?? '').includes('gpt-4o-mini'),
  });
  await page.getByRole('textbox', { name: '系统提示词' }).fill('你是一位简洁的助手');
  await page.getByRole('textbox', { name: '输入问题' }).fill('你好');
  await page.getByRole('button', { name: '发送' }).click();
  await expect(page.getByLabel('回答').first()).toHaveText(MOCK_REPLY);
  // the upstream got the conversation as the playground built it, streamed with usage asked for
  const sent = mock.requests.find((r) => r.path.endsWith('/chat/completions'))!.body as { messages: Array<{ role: string; content: string }>; stream: boolean; stream_options?: unknown };
  expect(sent.stream).toBe(true);
  expect(sent.messages.slice(0, 2)).toEqual([
    { role: 'system', content: '你是一位简洁的助手' },
    { role: 'user', content: '你好' },
  ]);
  // the cost shown is what the log row charged
  const cost = page.getByLabel('本次费用').first();
  await expect(cost).toContainText('费用 $');
  const log = (await (await player.api.get('/api/log/self/?p=0&type=2')).json()).data[0];
  await expect(cost).toHaveText(`费用 ${formatQuota(log.quota, { quotaPerUnit: 500000, displayInCurrency: true })} · 输入 ${log.prompt_tokens} tokens · 输出 ${log.completion_tokens} tokens · 耗时 ${(log.elapsed_time / 1000).toFixed(2)} 秒`);

  // stop: an answer that would go on for a minute ends at once for the user, keeps what arrived, and is charged for
  // what the upstream generated until the gateway cut it (STREAM_DRAIN_SECONDS later)
  await pickFromPopup({
    open: () => page.getByRole('combobox', { name: '模型' }).click(),
    item: page.locator('.ant-select-item-option[title="story-model"]'),
    done: async () => ((await picked('模型').textContent()) ?? '').includes('story-model'),
  });
  await page.getByRole('textbox', { name: '输入问题' }).fill('tell me a long story');
  await page.getByRole('button', { name: '发送' }).click();
  const second = page.getByLabel('回答').nth(1);
  await expect(second).toContainText('word word');
  await page.getByRole('button', { name: '停止' }).click();
  await expect(page.getByText('已停止')).toBeVisible();
  await expect(page.getByRole('button', { name: '发送' })).toBeVisible();
  const words = (await second.textContent())!;
  await page.waitForTimeout(500);
  expect(await second.textContent()).toBe(words);
  await expect.poll(() => mock.requests.filter((r) => (r.body as { model?: string }).model === 'story-model').every((r) => r.aborted)).toBe(true);
  await expect(page.getByLabel('本次费用').nth(1)).toContainText('费用 $');
});
