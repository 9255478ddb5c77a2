import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../billing/pricing.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { settledToken } from '../test-support/settled-token.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';

/**
 * Tools OpenAI runs itself in the Responses API and bills per call beside the tokens (billing/tool-calls.ts): file
 * search US$2.50 per 1,000 calls, code interpreter US$0.03 per container, the image generation tool per image by
 * quality and size. Passed through as they are, they were served free. The upstream here answers as OpenAI
 * documents a response that ran them: a file_search_call, two code_interpreter_call items in one container, an
 * image_generation_call (low quality, 1024 x 1024), then the message; streamed, the same in response.completed.
 */
let t: TestApp;
let gateway: string;
let upstream: Server;
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

function answer(model: string) {
  return {
    id: 'resp_hosted_1',
    object: 'response',
    created_at: 1_765_000_000,
    status: 'completed',
    model,
    output: [
      { id: 'fs_1', type: 'file_search_call', status: 'completed', queries: ['refund policy'], results: null },
      { id: 'ci_1', type: 'code_interpreter_call', status: 'completed', code: 'print(6*7)', container_id: 'cntr_1', outputs: null },
      { id: 'ci_2', type: 'code_interpreter_call', status: 'completed', code: 'print(7*8)', container_id: 'cntr_1', outputs: null },
      { id: 'ig_1', type: 'image_generation_call', status: 'completed', result: PNG, quality: 'low', size: '1024x1024', output_format: 'png', background: 'opaque', revised_prompt: 'A banana' },
      { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Refunds take 5 days; 6*7 is 42; here is a banana.', annotations: [] }] },
    ],
    usage: { input_tokens: 1_200, input_tokens_details: { cached_tokens: 0 }, output_tokens: 60, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1_260 },
  };
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk));
    req.on('end', () => {
      const body = JSON.parse(raw) as { model: string; stream?: boolean };
      const response = answer(body.model);
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response));
        return;
      }
      const event = (type: string, data: Record<string, unknown>, n: number) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n, ...data })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(event('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } }, 0) + event('response.completed', { response }, 1));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t = await createTestApp();
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await seedChannel(t.ctx.storage, { name: 'openai', type: 1, key: 'sk-upstream', baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, models: 'gpt-4.1' });
});
afterAll(async () => {
  await t.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

const HOSTED = [
  { type: 'file_search' as const, vector_store_ids: ['vs_handbook'] },
  { type: 'code_interpreter' as const, container: { type: 'auto' as const } },
  { type: 'image_generation' as const, quality: 'low' as const, size: '1024x1024' as const },
];

async function client(name: string) {
  const userId = await seedUser(t.ctx.storage, name, 100_000_000, name.toUpperCase());
  const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000_000 });
  return { token, openai: new OpenAI({ apiKey: `sk-${token.key}`, baseURL: `${gateway}/v1`, maxRetries: 0 }) };
}

/** At the default QuotaPerUnit (500,000 a dollar): a file search 1,250 units, a container 15,000, a low 1024 image 5,500. */
function expectToolsBilled(log: { quota: number; prompt_tokens: number; completion_tokens: number; content: string }, fileSearch = 1_250) {
  const prices = pricesFor(t.ctx.options, 'gpt-4.1', 'default');
  const tokens = costOf({ prompt_tokens: 1_200, completion_tokens: 60 }, prices);
  expect(log.quota).toBe(Math.ceil(1_200 * 1 + 60 * 4) + fileSearch + 15_000 + 5_500);
  expect(log.quota).toBe(tokens + fileSearch + 15_000 + 5_500);
  expect(log.content).toContain(`托管工具 file_search 1 次 × ${fileSearch} 额度`);
  expect(log.content).toContain('托管工具 code_interpreter 1 次 × 15000 额度');
  expect(log.content).toContain('托管工具 image_generation:low:1024x1024 1 次 × 5500 额度');
  expect(log.content).not.toContain('用量异常');
}

describe('tools OpenAI runs in the Responses API', () => {
  it('are billed per call, whole: one file search, one container for two runs of code, one low-quality image', async () => {
    const { token, openai } = await client('hosted1');
    const response = await openai.responses.create({ model: 'gpt-4.1', input: 'What is our refund policy? Also compute 6*7 and draw a banana.', tools: HOSTED });
    expect(response.output_text).toContain('banana');
    const after = await settledToken(t.ctx.storage, token.id, 1);
    expectToolsBilled(after.logs[0]);
    expect(after.token.remain_quota).toBe(100_000_000 - after.logs[0].quota);
  });

  it('are billed per call, streamed (read from response.completed), at the admin\'s ToolCallPrice when set', async () => {
    await t.ctx.options.set('ToolCallPrice', JSON.stringify({ file_search: 4 }));
    try {
      const { token, openai } = await client('hosted2');
      const stream = await openai.responses.create({ model: 'gpt-4.1', input: 'Refund policy?', tools: HOSTED, stream: true });
      let completed = false;
      for await (const event of stream) if (event.type === 'response.completed') completed = true;
      expect(completed).toBe(true);
      const after = await settledToken(t.ctx.storage, token.id, 1);
      expectToolsBilled(after.logs[0], 2_000);
    } finally {
      await t.ctx.options.set('ToolCallPrice', '{}');
    }
  });

  it('are not billed to a request that gave no such tool, whatever the upstream reports (a usage anomaly)', async () => {
    const { token, openai } = await client('hosted3');
    await openai.responses.create({ model: 'gpt-4.1', input: 'Hello' });
    const after = await settledToken(t.ctx.storage, token.id, 1);
    const [log] = after.logs;
    // Its tokens only (the prompt held to what "Hello" can be: also an anomaly), no tool.
    expect(log.quota).toBe(costOf({ prompt_tokens: log.prompt_tokens, completion_tokens: log.completion_tokens }, pricesFor(t.ctx.options, 'gpt-4.1', 'default')));
    expect(log.content).not.toMatch(/托管工具 \S+ \d+ 次 ×/);
    expect(log.content).toContain('用量异常');
    expect(log.content).toContain('但本次请求没有该类工具，不计费');
  });
});
