import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedChannel, seedToken } from '../../test-support/seed.js';
import { settledToken } from '../../test-support/settled-token.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';
import { LIBRARY_ID, startMockAiProxyLibrary } from '../../test-support/upstreams/aiproxy-library.js';
import { baiduKey, startMockBaidu } from '../../test-support/upstreams/baidu.js';
import { startMockCohere } from '../../test-support/upstreams/cohere.js';
import { cozeToken, startMockCoze } from '../../test-support/upstreams/coze.js';
import { deeplKey, startMockDeepL } from '../../test-support/upstreams/deepl.js';
import { hunyuanKey, startMockHunyuan } from '../../test-support/upstreams/hunyuan.js';
import type { MockHandle } from '../../test-support/upstreams/mock-server.js';
import { startMockOllama } from '../../test-support/upstreams/ollama.js';
import { sparkKey, startMockSpark, type MockSpark } from '../../test-support/upstreams/spark.js';

/**
 * Every vendor whose answers a codec writes (its own wire read back as OpenAI's) tells the client the usage the
 * gateway bills: the vendor's report as checked, or the gateway's own count when the vendor reports none (the AI
 * Proxy knowledge base, DeepL's translation). Whole answers carry it as `usage`; a stream carries it in its last
 * chunk when the client asked for it (`stream_options.include_usage`) and not otherwise; an Anthropic client gets it
 * as the message's usage. Each time it is exactly what the log row bills.
 */
interface Vendor {
  name: string;
  type: number;
  model: string;
  key: string;
  baseUrl: () => string;
  other?: string;
  config?: string;
  question?: string;
}

let t: TestApp;
let gateway: string;
let userId: number;
const mocks: Record<string, MockHandle> = {};

const VENDORS: Vendor[] = [
  { name: 'AI Proxy knowledge base (no usage reported)', type: 21, model: 'gpt-3.5-turbo', key: 'ok', baseUrl: () => mocks.library.url, other: LIBRARY_ID, question: 'How do I reset the router?' },
  { name: 'Baidu ERNIE', type: 15, model: 'ERNIE-3.5-8K', key: baiduKey('ok'), baseUrl: () => mocks.baidu.url },
  { name: 'Cohere', type: 35, model: 'command-a-03-2025', key: 'ok', baseUrl: () => mocks.cohere.url },
  { name: 'Coze', type: 34, model: 'bot-7379462189365198898', key: cozeToken('ok'), baseUrl: () => mocks.coze.url, config: JSON.stringify({ user_id: 'user-42' }) },
  { name: 'DeepL (billed characters)', type: 38, model: 'deepl-zh', key: deeplKey('ok'), baseUrl: () => mocks.deepl.url, question: 'Hello, World!' },
  { name: 'Tencent Hunyuan', type: 23, model: 'hunyuan-turbos-latest', key: hunyuanKey('ok'), baseUrl: () => mocks.hunyuan.url },
  { name: 'Ollama', type: 30, model: 'llama3.2', key: '', baseUrl: () => mocks.ollama.url },
  { name: 'iFlytek Spark (WebSocket)', type: 18, model: 'Spark-Max', key: sparkKey('ok'), baseUrl: () => (mocks.spark as MockSpark).wsUrl },
];

const openai = (key: string) => new OpenAI({ apiKey: `sk-${key}`, baseURL: `${gateway}/v1`, maxRetries: 0 });
const anthropic = (key: string) => new Anthropic({ apiKey: `sk-${key}`, baseURL: gateway, maxRetries: 0 });

/** The tokens the one log row of a key bills. */
async function billed(tokenId: number): Promise<{ prompt_tokens: number; completion_tokens: number }> {
  const after = await settledToken(t.ctx.storage, tokenId, 1);
  expect(after.logs).toHaveLength(1);
  expect(after.open).toEqual([]);
  return { prompt_tokens: after.logs[0].prompt_tokens, completion_tokens: after.logs[0].completion_tokens };
}

async function setUp(vendor: Vendor) {
  await seedChannel(t.ctx.storage, { name: vendor.name, type: vendor.type, key: vendor.key, baseUrl: vendor.baseUrl(), models: vendor.model, other: vendor.other, config: vendor.config });
  const token = await seedToken(t.ctx.storage, userId, { remain_quota: 10_000_000 });
  return { token, messages: [{ role: 'user' as const, content: vendor.question ?? 'Hello' }] };
}

beforeAll(async () => {
  [mocks.library, mocks.baidu, mocks.cohere, mocks.coze, mocks.deepl, mocks.hunyuan, mocks.ollama, mocks.spark] = await Promise.all([
    startMockAiProxyLibrary(),
    startMockBaidu(),
    startMockCohere(),
    startMockCoze(),
    startMockDeepL(),
    startMockHunyuan(),
    startMockOllama(),
    startMockSpark(),
  ]);
  t = await createTestApp({ RELAY_TIMEOUT_SECONDS: '5' });
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  userId = (await t.ctx.repositories.users.findByUsername('root'))!.id;
  await t.ctx.options.set('ModelRatio', JSON.stringify(Object.fromEntries(VENDORS.map((v) => [v.model, 0.5]))));
});
afterAll(async () => {
  t.app.server.closeAllConnections();
  await t.close();
  await Promise.all(Object.values(mocks).map((m) => m.close()));
});
beforeEach(async () => {
  await t.ctx.storage.db.deleteFrom('abilities').execute();
  await t.ctx.storage.db.deleteFrom('channels').execute();
  await t.ctx.options.set('RetryTimes', '0');
});

describe.each(VENDORS)('$name: the client is told the usage it is billed', (vendor) => {
  it('a whole answer carries it as usage', async () => {
    const { token, messages } = await setUp(vendor);
    const answer = await openai(token.key).chat.completions.create({ model: vendor.model, messages });
    expect(answer.choices[0].message.content).toBeTruthy();
    const charged = await billed(token.id);
    expect(charged.prompt_tokens).toBeGreaterThan(0);
    expect(answer.usage).toMatchObject({ ...charged, total_tokens: charged.prompt_tokens + charged.completion_tokens });
  });

  it('a stream with include_usage ends with one usage chunk, the billed usage', async () => {
    const { token, messages } = await setUp(vendor);
    const stream = await openai(token.key).chat.completions.create({ model: vendor.model, messages, stream: true, stream_options: { include_usage: true } });
    const usages: OpenAI.CompletionUsage[] = [];
    let text = '';
    let last: OpenAI.ChatCompletionChunk | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usages.push(chunk.usage);
      last = chunk;
    }
    expect(text).toBeTruthy();
    expect(usages).toHaveLength(1);
    expect(last?.usage).toBe(usages[0]);
    expect(last?.choices).toEqual([]);
    const charged = await billed(token.id);
    expect(usages[0]).toMatchObject({ ...charged, total_tokens: charged.prompt_tokens + charged.completion_tokens });
  });

  it('a stream without include_usage carries none', async () => {
    const { token, messages } = await setUp(vendor);
    const stream = await openai(token.key).chat.completions.create({ model: vendor.model, messages, stream: true });
    let usage = false;
    for await (const chunk of stream) usage ||= Boolean(chunk.usage);
    expect(usage).toBe(false);
    await billed(token.id);
  });

  it('an Anthropic client gets it as the message usage', async () => {
    const { token, messages } = await setUp(vendor);
    const message = await anthropic(token.key).messages.create({ model: vendor.model, max_tokens: 512, messages });
    const charged = await billed(token.id);
    expect(message.usage).toMatchObject({ input_tokens: charged.prompt_tokens, output_tokens: charged.completion_tokens });
  });
});
