import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import type { Usage } from '../../billing/usage.js';
import { seedChannel, seedToken, seedUser } from '../../test-support/seed.js';
import { settledToken } from '../../test-support/settled-token.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

/**
 * OpenAI's prompt-cache writes (GPT-5.6 and later) cost more than the input they write: 1.25 times the input price
 * for 30 minutes, and on GPT-6.1 Terra and GPT-6.2 Sol 2.5 times for 12 hours (prompt_cache_options.ttl "12h").
 * Chat Completions reports them as usage.prompt_tokens_details.cache_write_tokens, which the gateway did not read
 * (writes were billed as plain input); Responses as input_tokens_details.cache_write_tokens with
 * cache_write_tokens_details { ttl_30m_tokens, ttl_12h_tokens } (openai-node's ResponseUsage), whose 12-hour part
 * was billed at the 30-minute price. The upstream here answers as OpenAI documents those reports, whole and streamed.
 */
let t: TestApp;
let gateway: string;
let upstream: Server;

const PROMPT = 'Our refund handbook, chapter one. '.repeat(200);
const INPUT = 2_000;
const CACHED = 300;
const WRITE_30M = 500;
const WRITE_12H = 700;
const OUTPUT = 40;

function chatAnswer(model: string) {
  return {
    id: 'chatcmpl-cache-1',
    object: 'chat.completion',
    created: 1_765_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'Refunds take five days.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: INPUT, completion_tokens: OUTPUT, total_tokens: INPUT + OUTPUT, prompt_tokens_details: { cached_tokens: CACHED, cache_write_tokens: WRITE_30M + WRITE_12H } },
  };
}

function responsesAnswer(model: string, unsplit = false) {
  const split = unsplit ? {} : { cache_write_tokens_details: { ttl_30m_tokens: WRITE_30M, ttl_12h_tokens: WRITE_12H } };
  return {
    id: 'resp_cache_1',
    object: 'response',
    created_at: 1_765_000_000,
    status: 'completed',
    model,
    prompt_cache_options: { mode: 'implicit', ttl: '12h' },
    output: [{ id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Refunds take five days.', annotations: [] }] }],
    usage: {
      input_tokens: INPUT,
      input_tokens_details: { cached_tokens: CACHED, cache_write_tokens: WRITE_30M + WRITE_12H, ...split },
      output_tokens: OUTPUT,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: INPUT + OUTPUT,
    },
  };
}

/** Claude's answer with writes of both lifetimes, as Anthropic reports them (input_tokens without the cache's parts). */
function anthropicAnswer(res: ServerResponse, model: string, stream: boolean) {
  const usage = {
    input_tokens: INPUT - CACHED - WRITE_30M - WRITE_12H,
    cache_read_input_tokens: CACHED,
    cache_creation_input_tokens: WRITE_30M + WRITE_12H,
    cache_creation: { ephemeral_5m_input_tokens: WRITE_30M, ephemeral_1h_input_tokens: WRITE_12H },
    output_tokens: OUTPUT,
  };
  const message = { id: 'msg_cache_1', type: 'message', role: 'assistant', model, stop_sequence: null };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...message, content: [{ type: 'text', text: 'Refunds take five days.' }], stop_reason: 'end_turn', usage }));
    return;
  }
  const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(
    event('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }) +
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Refunds take five days.' } }) +
      event('content_block_stop', { index: 0 }) +
      event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: OUTPUT } }) +
      event('message_stop', {}),
  );
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk));
    req.on('end', () => {
      const body = JSON.parse(raw) as { model: string; stream?: boolean; metadata?: { report?: string } };
      if (req.url === '/v1/messages') {
        anthropicAnswer(res, body.model, body.stream === true);
        return;
      }
      const responses = req.url === '/v1/responses';
      // A report without the split by lifetime, as an older deployment gives it (the test asks through metadata).
      const answer = responses ? responsesAnswer(body.model, body.metadata?.report === 'unsplit') : chatAnswer(body.model);
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (responses) {
        const event = (type: string, data: Record<string, unknown>, n: number) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n, ...data })}\n\n`;
        res.end(event('response.created', { response: { ...answer, status: 'in_progress', output: [], usage: null } }, 0) + event('response.completed', { response: answer }, 1));
        return;
      }
      const chat = answer as ReturnType<typeof chatAnswer>;
      const chunk = (data: Record<string, unknown>) => `data: ${JSON.stringify({ id: chat.id, object: 'chat.completion.chunk', created: chat.created, model: chat.model, ...data })}\n\n`;
      res.end(
        chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Refunds take five days.' }, finish_reason: null }] }) +
          chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
          chunk({ choices: [], usage: chat.usage }) +
          'data: [DONE]\n\n',
      );
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t = await createTestApp();
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  await seedChannel(t.ctx.storage, { name: 'openai', type: 1, key: 'sk-upstream', baseUrl, models: 'gpt-6.1-terra,gpt-5.6-terra' });
  await seedChannel(t.ctx.storage, { name: 'anthropic', type: 14, key: 'sk-ant-upstream', baseUrl, models: 'claude-sonnet-4-5' });
});
afterAll(async () => {
  await t.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

async function client(name: string) {
  const userId = await seedUser(t.ctx.storage, name, 100_000_000, name.toUpperCase());
  const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000_000 });
  return { token, openai: new OpenAI({ apiKey: `sk-${token.key}`, baseURL: `${gateway}/v1`, maxRetries: 0 }) };
}

/** The one consume log of the key, at the price of `usage`, its writes in the log's column. */
async function expectBilled(tokenId: number, model: string, usage: Usage) {
  const after = await settledToken(t.ctx.storage, tokenId, 1);
  const [log] = after.logs;
  expect(log.content).not.toContain('用量异常');
  expect([log.prompt_tokens, log.completion_tokens, Number(log.cached_tokens), Number(log.cache_write_tokens)]).toEqual([INPUT, OUTPUT, CACHED, WRITE_30M + WRITE_12H]);
  expect(log.quota).toBe(costOf(usage, pricesFor(t.ctx.options, model, 'default')));
  expect(after.token.remain_quota).toBe(100_000_000 - log.quota);
  return log;
}

describe("OpenAI's cache writes", () => {
  it('Chat Completions: prompt_tokens_details.cache_write_tokens are billed as writes (1.25 times the input on GPT-5.6 Terra), whole and streamed', async () => {
    for (const stream of [false, true]) {
      const { token, openai } = await client(`chatwrites${stream ? 's' : 'w'}`);
      if (stream) {
        const chunks = await openai.chat.completions.create({ model: 'gpt-5.6-terra', messages: [{ role: 'user', content: PROMPT }], stream: true, stream_options: { include_usage: true } });
        let usage: OpenAI.CompletionUsage | undefined | null;
        for await (const chunk of chunks) usage = chunk.usage ?? usage;
        expect(usage?.prompt_tokens).toBe(INPUT);
      } else {
        const answer = await openai.chat.completions.create({ model: 'gpt-5.6-terra', messages: [{ role: 'user', content: PROMPT }] });
        expect(answer.choices[0].message.content).toContain('five days');
      }
      const log = await expectBilled(token.id, 'gpt-5.6-terra', { prompt_tokens: INPUT, completion_tokens: OUTPUT, cached_tokens: CACHED, cache_write_tokens: WRITE_30M + WRITE_12H });
      // US$2 per 1M input, writes at 1.25 times it, reads at 10 %: more than the same tokens as plain input.
      expect(log.quota).toBeGreaterThan(costOf({ prompt_tokens: INPUT, completion_tokens: OUTPUT, cached_tokens: CACHED }, pricesFor(t.ctx.options, 'gpt-5.6-terra', 'default')));
      expect(log.content).toContain(`缓存写入 ${WRITE_30M + WRITE_12H} × 1.25`);
    }
  });

  it("Responses: the 12-hour writes of cache_write_tokens_details are billed at GPT-6.1 Terra's 12-hour price (2.5 times), the rest at 1.25, whole and streamed", async () => {
    for (const stream of [false, true]) {
      const { token, openai } = await client(`respwrites${stream ? 's' : 'w'}`);
      if (stream) {
        const events = await openai.responses.create({ model: 'gpt-6.1-terra', input: PROMPT, stream: true });
        let completed: OpenAI.Responses.Response | undefined;
        for await (const event of events) if (event.type === 'response.completed') completed = event.response;
        // The client is told the writes it made, as OpenAI reported them.
        expect(completed?.usage?.input_tokens_details.cache_write_tokens).toBe(WRITE_30M + WRITE_12H);
      } else {
        const response = await openai.responses.create({ model: 'gpt-6.1-terra', input: PROMPT });
        expect(response.output_text).toContain('five days');
        expect(response.usage?.input_tokens_details.cache_write_tokens).toBe(WRITE_30M + WRITE_12H);
      }
      const usage = { prompt_tokens: INPUT, completion_tokens: OUTPUT, cached_tokens: CACHED, cache_write_tokens: WRITE_30M, cache_write_1h_tokens: WRITE_12H };
      const log = await expectBilled(token.id, 'gpt-6.1-terra', usage);
      // US$1 per 1M input: 500 plain + 300 read at 5 % + 500 written at 1.25 + 700 at 2.5, and 40 out at US$5.
      const prices = pricesFor(t.ctx.options, 'gpt-6.1-terra', 'default');
      expect(log.quota).toBe(Math.ceil((INPUT - CACHED - WRITE_30M - WRITE_12H + CACHED * 0.05 + WRITE_30M * 1.25 + WRITE_12H * 2.5 + OUTPUT * 5) * prices.modelRatio));
      expect(log.content).toContain(`缓存写入 ${WRITE_30M} × 1.25`);
      expect(log.content).toContain(`长时缓存写入 ${WRITE_12H} × 2.5`);
    }
  });

  it('writes said as one number are settled at the 12-hour price when the request asked for 12-hour writes (prompt_cache_options or a breakpoint), at the 30-minute one otherwise', async () => {
    const total = WRITE_30M + WRITE_12H;
    const prices = pricesFor(t.ctx.options, 'gpt-6.1-terra', 'default');
    const chat = (extra: Record<string, unknown>, content: unknown = PROMPT) => ({ model: 'gpt-6.1-terra', messages: [{ role: 'user', content }], ...extra }) as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;

    let { token, openai } = await client('chatttl1');
    await openai.chat.completions.create(chat({ prompt_cache_options: { mode: 'implicit', ttl: '12h' } }));
    let log = await expectBilled(token.id, 'gpt-6.1-terra', { prompt_tokens: INPUT, completion_tokens: OUTPUT, cached_tokens: CACHED, cache_write_1h_tokens: total });
    expect(log.content).toContain(`长时缓存写入 ${total} × 2.5`);

    ({ token, openai } = await client('chatttl2'));
    await openai.chat.completions.create(chat({}, [{ type: 'text', text: PROMPT, prompt_cache_breakpoint: { mode: 'explicit', ttl: '12h' } }]));
    await expectBilled(token.id, 'gpt-6.1-terra', { prompt_tokens: INPUT, completion_tokens: OUTPUT, cached_tokens: CACHED, cache_write_1h_tokens: total });

    ({ token, openai } = await client('chatttl3'));
    await openai.chat.completions.create(chat({ prompt_cache_options: { mode: 'implicit', ttl: '30m' } }));
    log = await expectBilled(token.id, 'gpt-6.1-terra', { prompt_tokens: INPUT, completion_tokens: OUTPUT, cached_tokens: CACHED, cache_write_tokens: total });
    expect(log.content).not.toContain('长时缓存写入');

    ({ token, openai } = await client('respttl'));
    const asked = { model: 'gpt-6.1-terra', input: PROMPT, metadata: { report: 'unsplit' }, prompt_cache_options: { mode: 'implicit', ttl: '12h' } } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming;
    await openai.responses.create(asked);
    await expectBilled(token.id, 'gpt-6.1-terra', { prompt_tokens: INPUT, completion_tokens: OUTPUT, cached_tokens: CACHED, cache_write_1h_tokens: total });
    expect(prices.cacheWrite1hRatio).toBe(2.5);
  });
  it("a Chat Completions client is told its cache writes (prompt_tokens_details.cache_write_tokens) when another vendor's report is translated: Claude's writes of both lifetimes, whole and streamed", async () => {
    for (const stream of [false, true]) {
      const { token, openai } = await client(`claudewrites${stream ? 's' : 'w'}`);
      let usage: OpenAI.CompletionUsage | undefined | null;
      if (stream) {
        const chunks = await openai.chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: PROMPT }], stream: true, stream_options: { include_usage: true } });
        for await (const chunk of chunks) usage = chunk.usage ?? usage;
      } else {
        usage = (await openai.chat.completions.create({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: PROMPT }] })).usage;
      }
      expect(usage).toMatchObject({ prompt_tokens: INPUT, completion_tokens: OUTPUT, prompt_tokens_details: { cached_tokens: CACHED, cache_write_tokens: WRITE_30M + WRITE_12H } });
      // Billed by lifetime as Anthropic split them: the 1-hour part at the longer write price.
      const log = await expectBilled(token.id, 'claude-sonnet-4-5', { prompt_tokens: INPUT, completion_tokens: OUTPUT, cached_tokens: CACHED, cache_write_tokens: WRITE_30M, cache_write_1h_tokens: WRITE_12H });
      expect(log.content).toContain(`长时缓存写入 ${WRITE_12H} × 2`);
    }
  });
});
