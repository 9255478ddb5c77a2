import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import type { Page } from '@playwright/test';
import { startMockAnthropic } from '../../packages/server/src/test-support/upstreams/anthropic.js';
import { bedrockCredentials, startMockBedrock } from '../../packages/server/src/test-support/upstreams/bedrock.js';
import { startMockGemini } from '../../packages/server/src/test-support/upstreams/gemini.js';
import { startMockVertex } from '../../packages/server/src/test-support/upstreams/vertex.js';
import { expect, test } from '../support/fixtures.js';
import { pickFromPopup } from '../support/popups.js';
import { expectToast } from '../support/toasts.js';
import { login, userWithKey } from '../support/usage.js';

/**
 * Issue 8's "done when", in the browser: a Claude, a Gemini, a Vertex AI and an AWS Bedrock channel are added
 * through the channel form as an admin fills it in (each type's own fields), tested with the list's test button,
 * then called with the official OpenAI, Anthropic and Gemini SDKs through the gateway; every call is one consume
 * log row, and the key's owner is charged exactly what the log rows say. Each provider is a local mock that checks
 * what the real service checks (Anthropic's x-api-key and version, Gemini's key, Bedrock's SigV4 signature,
 * Vertex AI's bearer token from its own token endpoint).
 */
interface Upstream {
  url: string;
  close(): Promise<void>;
}

interface NativeRow {
  type: string;
  model: string;
  start(): Promise<{ upstream: Upstream; fill(page: Page): Promise<void> }>;
}

const HELLO = 'Hello! How can I help you today?';
const keyField = (page: Page) => page.getByRole('textbox', { name: '密钥' });

const ROWS: NativeRow[] = [
  {
    type: 'Anthropic Claude',
    model: 'claude-sonnet-4-5-20250929',
    async start() {
      const upstream = await startMockAnthropic();
      return { upstream, fill: (page) => keyField(page).fill('ok') };
    },
  },
  {
    type: 'Google Gemini',
    model: 'gemini-2.5-flash',
    async start() {
      const upstream = await startMockGemini();
      return { upstream, fill: (page) => keyField(page).fill('ok') };
    },
  },
  {
    type: 'VertexAI',
    model: 'gemini-2.5-pro',
    async start() {
      const upstream = await startMockVertex();
      const account = upstream.serviceAccount({ mode: 'ok' });
      return {
        upstream,
        async fill(page) {
          await page.getByPlaceholder('Vertex AI 区域 Region，例如：us-east5').fill('us-central1');
          await page.getByPlaceholder('Vertex AI Project ID').fill(account.project_id);
          // Pasted as downloaded from Google Cloud: pretty-printed over many lines.
          await page.getByPlaceholder('Google Cloud Application Default Credentials JSON').fill(JSON.stringify(account, null, 2));
        },
      };
    },
  },
  {
    type: 'AWS',
    model: 'amazon.nova-lite-v1:0',
    async start() {
      const upstream = await startMockBedrock({ region: 'us-east-1' });
      const { accessKeyId, secretAccessKey } = bedrockCredentials('ok');
      return {
        upstream,
        async fill(page) {
          await page.getByPlaceholder('AWS IAM Access Key (AK)').fill(accessKeyId);
          await page.getByPlaceholder('AWS IAM Secret Key (SK)').fill(secretAccessKey);
          await page.getByPlaceholder('区域 Region，例如：us-west-2').fill('us-east-1');
        },
      };
    },
  },
];

for (const row of ROWS) {
  // covers S2-ROUTES-08
  test(`${row.type}: added in the channel form, tested with its button, used from the OpenAI, Anthropic and Gemini SDKs and billed per log`, async ({ page, gateway }) => {
    const { upstream, fill } = await row.start();
    try {
      const root = await gateway.apiAs('root', '123456');
      await login(page, gateway.url, 'root', '123456');
      await expect(page).toHaveURL(/\/user\/edit$/);

      const name = `native ${row.type}`;
      await page.goto(`${gateway.url}/channel/add`);
      const typeBox = page.getByRole('combobox', { name: '渠道类型' });
      await pickFromPopup({
        open: async () => {
          await typeBox.click();
          await typeBox.fill(row.type);
        },
        item: page.locator('.ant-select-item-option').filter({ hasText: new RegExp(`^${row.type}$`) }),
        done: async () => ((await page.locator('.ant-select').filter({ has: typeBox }).textContent()) ?? '').includes(row.type),
      });
      await page.getByPlaceholder('请为渠道命名').fill(name);
      await page.getByPlaceholder('请输入代理地址').fill(upstream.url);
      await page.getByRole('button', { name: '清除所有模型' }).click();
      await page.getByPlaceholder('输入自定义模型名称').fill(row.model);
      await page.getByRole('button', { name: '填入', exact: true }).click();
      await fill(page);
      await page.getByRole('button', { name: '提交' }).click();
      await expectToast(page, '渠道创建成功！');
      await expect(page).toHaveURL(/\/channel$/);

      // The list's test button calls the provider in its own protocol.
      const channelRow = page.getByRole('row').filter({ hasText: name });
      await channelRow.getByRole('button', { name: '测试', exact: true }).click();
      await expectToast(page, `通道 ${name} 测试成功，模型 ${row.model}`);

      // One key, three client dialects.
      const { api, key } = await userWithKey(gateway, root, 'sdkuser', 'sdk-key');
      const openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const chat = await openai.chat.completions.create({ model: row.model, messages: [{ role: 'user', content: 'Hello' }] });
      expect(chat.choices[0].message.content).toBe(HELLO);
      let streamed = '';
      for await (const chunk of await openai.chat.completions.create({ model: row.model, messages: [{ role: 'user', content: 'Hello' }], stream: true })) streamed += chunk.choices[0]?.delta?.content ?? '';
      expect(streamed).toBe(HELLO);

      const anthropic = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
      const message = await anthropic.messages.create({ model: row.model, max_tokens: 512, messages: [{ role: 'user', content: 'Hello' }] });
      expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: HELLO })]);

      const genai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway.url } });
      const generated = await genai.models.generateContent({ model: row.model, contents: 'Hello' });
      expect(generated.text).toBe(HELLO);

      // Four calls, four consume rows on this channel, and the owner paid exactly their sum.
      await expect
        .poll(async () => (await (await api.get('/api/log/self?p=0&type=2')).json()).data.length)
        .toBe(4);
      const logs = (await (await api.get('/api/log/self?p=0&type=2')).json()).data as Array<{ quota: number; model_name: string; prompt_tokens: number; completion_tokens: number }>;
      expect(logs.every((l) => l.model_name === row.model && l.prompt_tokens > 0 && l.completion_tokens > 0 && l.quota > 0)).toBe(true);
      const self = (await (await api.get('/api/user/self')).json()).data;
      expect(self.used_quota).toBe(logs.reduce((sum, l) => sum + l.quota, 0));
      expect(self.quota + self.used_quota).toBe(100_000_000);
      expect(self.request_count).toBe(4);
    } finally {
      await upstream.close();
    }
  });
}
