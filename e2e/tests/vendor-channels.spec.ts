import OpenAI from 'openai';
import type { Locator, Page } from '@playwright/test';
import { MOCK_MODELS, MOCK_REPLY, startMockUpstream } from '../../packages/server/src/test-support/mock-openai.js';
import { LIBRARY_ID, startMockAiProxyLibrary } from '../../packages/server/src/test-support/upstreams/aiproxy-library.js';
import { baiduKey, startMockBaidu } from '../../packages/server/src/test-support/upstreams/baidu.js';
import { COHERE_MODELS, startMockCohere } from '../../packages/server/src/test-support/upstreams/cohere.js';
import { cozeToken, startMockCoze } from '../../packages/server/src/test-support/upstreams/coze.js';
import { deeplKey, startMockDeepL } from '../../packages/server/src/test-support/upstreams/deepl.js';
import { hunyuanKey, startMockHunyuan } from '../../packages/server/src/test-support/upstreams/hunyuan.js';
import { OLLAMA_ANSWER, OLLAMA_MODELS, startMockOllama } from '../../packages/server/src/test-support/upstreams/ollama.js';
import { SPARK_TEXT, sparkKey, startMockSpark } from '../../packages/server/src/test-support/upstreams/spark.js';
import { expect, test } from '../support/fixtures.js';
import { pickFromPopup } from '../support/popups.js';
import { expectToast } from '../support/toasts.js';
import { login, userWithKey } from '../support/usage.js';

/**
 * Issue 18's vendors in the browser: for each type an admin adds the channel through the channel form as a user
 * would (the type, a name, the key in that vendor's format and its own fields, the base URL of a local mock that
 * checks what the vendor checks, the models — from the form's 获取模型列表 where the vendor has a list), tests it with
 * the channel list's 测试 button, and a user's key then gets one answer through the official OpenAI SDK; the answer is
 * the vendor's, it is one consume log row, and the user paid exactly what that row says.
 */
interface Upstream {
  url: string;
  requests: Array<{ path: string }>;
  close(): Promise<void>;
}

interface Log {
  quota: number;
  model_name: string;
  prompt_tokens: number;
  completion_tokens: number;
}

interface VendorRow {
  /** The type as the form's select names it. */
  type: string;
  /** The model the channel serves (picked from the upstream's list when `listed` is set). */
  model: string;
  /** What the upstream's own list holds: the form's 获取模型列表 reads it. Unset: the vendor has none. */
  listed?: readonly string[];
  /** The question and the vendor's answer to it. */
  ask: string;
  answer: string;
  start(): Promise<{ upstream: Upstream; baseUrl: string; fill(page: Page): Promise<void> }>;
  /** The vendor reports no usage: the gateway counts the tokens it bills (and tells the client none). */
  countsTokens?: boolean;
  /** What the key field asks for: the vendor's key format. */
  keyHint?: string;
  /** Every path the upstream was asked at (the list, the test, the relay call), when the vendor's own matter. */
  paths?: string[];
  /** What else the log row must say. */
  check?(log: Log): void;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const keyField = (page: Page) => page.getByRole('textbox', { name: '密钥', exact: true });
const withKey = (key: string) => (page: Page) => keyField(page).fill(key);
const plain = (start: () => Promise<Upstream>, key: string) => async () => {
  const upstream = await start();
  return { upstream, baseUrl: upstream.url, fill: withKey(key) };
};

const ROWS: VendorRow[] = [
  {
    type: '百度文心千帆',
    model: 'ERNIE-4.0-8K',
    ask: '你好',
    answer: '你好！有什么可以帮你的吗？',
    keyHint: 'APIKey|SecretKey',
    paths: ['/oauth/2.0/token', '/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro'],
    // APIKey|SecretKey: the gateway exchanges it for an access token at the mock's OAuth endpoint first.
    start: plain(startMockBaidu, baiduKey('ok')),
  },
  {
    type: '讯飞星火认知',
    model: 'Spark-Max',
    ask: '你好',
    answer: SPARK_TEXT,
    keyHint: 'APPID|APISecret|APIKey',
    // Spark Max's version path of the WebSocket API (its HTTP API would be /v1/chat/completions).
    paths: ['/v3.5/chat'],
    async start() {
      const upstream = await startMockSpark();
      // Spark's WebSocket API: the base URL is ws://, the handshake URL signed with the APISecret.
      return { upstream, baseUrl: upstream.wsUrl, fill: withKey(sparkKey('ok')) };
    },
  },
  {
    type: '腾讯混元',
    model: 'hunyuan-turbos-latest',
    ask: '你好',
    answer: '你好！有什么我可以帮你的吗？',
    keyHint: 'AppId|SecretId|SecretKey',
    // Tencent Cloud API 3.0 (its OpenAI-compatible API would be /v1/chat/completions).
    paths: ['/'],
    // AppId|SecretId|SecretKey: every request signed with TC3-HMAC-SHA256.
    start: plain(startMockHunyuan, hunyuanKey('ok')),
  },
  {
    type: 'Coze',
    model: 'bot-7379462189365198898',
    ask: 'What day of the week is 1 October 2024?',
    answer: '1 October 2024 is a Tuesday.',
    paths: ['/v3/chat'],
    async start() {
      const upstream = await startMockCoze();
      return {
        upstream,
        baseUrl: upstream.url,
        async fill(page) {
          await keyField(page).fill(cozeToken('ok'));
          await page.getByPlaceholder('生成该密钥的用户 ID').fill('user-42');
        },
      };
    },
  },
  {
    type: 'Cohere',
    model: 'command-a-03-2025',
    listed: COHERE_MODELS,
    ask: 'Hello',
    answer: 'Hello! How can I help you today?',
    paths: ['/v1/models', '/v2/chat'],
    start: plain(startMockCohere, 'ok'),
  },
  {
    type: 'DeepL',
    model: 'deepl-zh',
    ask: 'Hello, World!',
    answer: '你好，世界！',
    paths: ['/v2/translate'],
    start: plain(startMockDeepL, deeplKey('ok')),
    // Billed by the characters DeepL counts of the source text; the translation's are its completion.
    check: (log) => expect({ prompt: log.prompt_tokens, completion: log.completion_tokens }).toEqual({ prompt: 'Hello, World!'.length, completion: [...'你好，世界！'].length }),
  },
  {
    type: '知识库：AI Proxy',
    model: 'gpt-3.5-turbo',
    ask: 'How do I reset my router?',
    countsTokens: true,
    paths: ['/api/library/ask'],
    answer:
      'Hold the reset button on the back for ten seconds, until the power light blinks.' +
      '\n\n参考文档：\n1. [Router handbook, chapter 3: Resetting](https://docs.example.com/router/reset)\n2. [Troubleshooting FAQ](https://docs.example.com/router/faq)',
    async start() {
      const upstream = await startMockAiProxyLibrary();
      return {
        upstream,
        baseUrl: upstream.url,
        async fill(page) {
          await keyField(page).fill('ok');
          await page.getByPlaceholder('请输入知识库 ID').fill(LIBRARY_ID);
        },
      };
    },
  },
  {
    type: 'Ollama',
    model: 'llama3.2:latest',
    listed: OLLAMA_MODELS,
    ask: 'Why is the sky blue?',
    answer: OLLAMA_ANSWER,
    paths: ['/api/tags', '/api/chat'],
    start: plain(startMockOllama, 'ok'),
  },
  // OpenAI-compatible at the vendor's own path (/api/paas/v4, /compatible-mode/v1): the mock answers any .../chat/completions and .../models.
  {
    type: '智谱 ChatGLM',
    model: 'glm-4-plus',
    listed: MOCK_MODELS,
    ask: 'Hello',
    answer: MOCK_REPLY,
    start: plain(startMockUpstream, 'ok'),
    paths: ['/api/paas/v4/models', '/api/paas/v4/chat/completions'],
  },
  {
    type: '阿里通义千问',
    model: 'qwen-turbo',
    listed: MOCK_MODELS,
    ask: 'Hello',
    answer: MOCK_REPLY,
    start: plain(startMockUpstream, 'ok'),
    paths: ['/compatible-mode/v1/models', '/compatible-mode/v1/chat/completions'],
  },
];

/** A select's box (what it holds), by the select's name. */
const selectBox = (page: Page, name: string): Locator => page.getByRole('combobox', { name, exact: true }).locator('xpath=ancestor::*[contains(concat(" ", normalize-space(@class), " "), " ant-select ")][1]');

async function chooseType(page: Page, type: string): Promise<void> {
  const select = page.getByRole('combobox', { name: '渠道类型' });
  await pickFromPopup({
    open: async () => {
      await select.click();
      await select.fill(type);
    },
    item: page.locator('.ant-select-item-option').filter({ hasText: new RegExp(`^${escaped(type)}$`) }),
    done: async () => ((await selectBox(page, '渠道类型').textContent()) ?? '').includes(type),
  });
  await expect(selectBox(page, '渠道类型')).toContainText(type);
}

for (const row of ROWS) {
  // covers S2-ROUTES-08
  test(`${row.type}: added in the channel form with its own key and fields, tested with its button, answered through the OpenAI SDK and billed per log`, async ({ page, gateway }) => {
    // A whole admin session and a relay call: given room for a machine busy with other specs.
    test.slow();
    const { upstream, baseUrl, fill } = await row.start();
    try {
      const root = await gateway.apiAs('root', '123456');
      await login(page, gateway.url, 'root', '123456');
      await expect(page).toHaveURL(/\/user\/edit$/);

      const name = `vendor ${row.type}`;
      await page.goto(`${gateway.url}/channel/add`);
      await chooseType(page, row.type);
      await page.getByPlaceholder('请为渠道命名').fill(name);
      await page.getByPlaceholder('请输入代理地址').fill(baseUrl);
      if (row.keyHint) await expect(keyField(page)).toHaveAttribute('placeholder', new RegExp(escaped(row.keyHint)));
      await fill(page);
      await page.getByRole('button', { name: '清除所有模型' }).click();
      await page.getByRole('button', { name: '获取模型列表' }).click();
      if (row.listed) {
        // The upstream's own list, read with the key in the form: all of it new, the admin keeps one model.
        const dialog = page.getByRole('dialog', { name: '上游模型列表' });
        await expect(dialog).toContainText(`上游共列出 ${row.listed.length} 个模型，其中 ${row.listed.length} 个是本渠道还没有的。`);
        for (const model of row.listed) await expect(dialog.getByRole('checkbox', { name: new RegExp(`^${escaped(model)}\\s*新$`) })).toBeChecked();
        await dialog.getByRole('checkbox', { name: '全选' }).uncheck();
        await dialog.getByRole('checkbox', { name: new RegExp(`^${escaped(row.model)}\\s*新$`) }).check();
        await dialog.getByRole('button', { name: '添加选中的 1 个模型' }).click();
        await expect(dialog).toBeHidden();
      } else {
        // No list to read: the form says so, and the model is typed in.
        await expectToast(page, '没有可查询的模型列表接口，请手动填写模型');
        await page.getByPlaceholder('输入自定义模型名称').fill(row.model);
        await page.getByRole('button', { name: '填入', exact: true }).click();
      }
      await expect(selectBox(page, '模型')).toContainText(row.model);
      await page.getByRole('button', { name: '提交' }).click();
      await expectToast(page, '渠道创建成功！');
      await expect(page).toHaveURL(/\/channel$/);

      // The list's test button asks the vendor in its own protocol.
      const channelRow = page.getByRole('row').filter({ hasText: name });
      await channelRow.getByRole('button', { name: '测试', exact: true }).click();
      await expectToast(page, `通道 ${name} 测试成功，模型 ${row.model}`);

      const { api, key } = await userWithKey(gateway, root, 'sdkuser', 'sdk-key');
      const openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const chat = await openai.chat.completions.create({ model: row.model, messages: [{ role: 'user', content: row.ask }] });
      expect(chat.choices[0].message.content).toBe(row.answer);

      // One consume row, the usage the client was told, and the owner paid exactly what it says.
      await expect.poll(async () => (await (await api.get('/api/log/self?p=0&type=2')).json()).data.length).toBe(1);
      const [log] = (await (await api.get('/api/log/self?p=0&type=2')).json()).data as Log[];
      expect(log.model_name).toBe(row.model);
      expect(log.quota).toBeGreaterThan(0);
      if (row.countsTokens) expect(log.prompt_tokens > 0 && log.completion_tokens > 0).toBe(true);
      else expect({ prompt: log.prompt_tokens, completion: log.completion_tokens }).toEqual({ prompt: chat.usage?.prompt_tokens, completion: chat.usage?.completion_tokens });
      row.check?.(log);
      if (row.paths) expect([...new Set(upstream.requests.map((r) => r.path))].sort()).toEqual([...row.paths].sort());
      const self = (await (await api.get('/api/user/self')).json()).data;
      expect(self.used_quota).toBe(log.quota);
      expect(self.quota + self.used_quota).toBe(100_000_000);
      expect(self.request_count).toBe(1);
    } finally {
      await upstream.close();
    }
  });
}

test('Google PaLM2: the form says Google shut the PaLM API down and names Gemini instead', async ({ page, gateway }) => {
  await login(page, gateway.url, 'root', '123456');
  await expect(page).toHaveURL(/\/user\/edit$/);
  await page.goto(`${gateway.url}/channel/add`);
  const warning = page.locator('form').getByRole('alert');
  // The form's default type (OpenAI) has no warning.
  await expect(selectBox(page, '渠道类型')).toContainText('OpenAI');
  await expect(warning).toHaveCount(0);
  await chooseType(page, 'Google PaLM2');
  await expect(warning).toContainText('Google 已于 2024 年关闭 PaLM API');
  await expect(warning).toContainText('Google Gemini');
  // Nor has the replacement it names.
  await chooseType(page, 'Google Gemini');
  await expect(warning).toHaveCount(0);
});
