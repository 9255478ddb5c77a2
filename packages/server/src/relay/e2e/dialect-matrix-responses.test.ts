import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from '../../billing/pricing.js';
import type { Usage } from '../../billing/usage.js';
import { settledLog, startMatrixApp, WEATHER_TOOL } from '../../test-support/dialect-matrix-app.js';
import { outputLimitOf } from '../../billing/model-limits.js';
import { HANDBOOK, PROVIDERS } from '../../test-support/dialect-providers.js';
import type { TestApp } from '../../test-support/test-app.js';
import {
  callsOf,
  cannot,
  deltas,
  eventsOf,
  modeOfCall,
  passesThrough,
  recordedUsage,
  responsesUsageOf,
  seedResponsesChannels,
  type RecordingMock,
  type ResponsesModels,
} from '../../test-support/responses-matrix.js';

/**
 * The OpenAI Responses API (Codex CLI's) against every provider of the dialect matrix (dialect-matrix.test.ts),
 * through the official SDK: answers, streams, tools, reasoning and cache in Responses shape, each request charged
 * exactly what the provider reported and settled once, and faults ending in the Responses way.
 */
let t: TestApp;
let gateway: string;
let key: string;
let tokenId: number;

beforeAll(async () => {
  ({ t, gateway, key, tokenId } = await startMatrixApp());
});
afterAll(async () => {
  await t.close();
});

const logOf = (requestId: string | null) => settledLog(t, tokenId, requestId);

describe.each(PROVIDERS)('OpenAI SDK responses -> $name channel', (row) => {
  const openai = () => new OpenAI({ apiKey: `sk-${key}`, baseURL: `${gateway}/v1`, maxRetries: 0 });
  const passThrough = passesThrough(row);
  let mock: RecordingMock;
  let models: ResponsesModels;
  let okChannel: number;
  beforeAll(async () => {
    mock = await row.start();
    ({ models, okChannel } = await seedResponsesChannels(t.ctx.storage, row, mock));
    await t.ctx.options.set('RetryTimes', '2');
  });
  afterAll(() => mock.close());

  /** The request's log, charged exactly `usage` at the prices of the model the client named; settled once. */
  async function expectResponsesCharged(requestId: string | null, model: string, usage: Usage, before: number) {
    const log = await logOf(requestId);
    expect({ prompt: log.prompt_tokens, completion: log.completion_tokens }).toEqual({ prompt: usage.prompt_tokens, completion: usage.completion_tokens });
    expect(log.quota).toBe(costOf(usage, pricesFor(t.ctx.options, model, 'default')));
    await expectSettledOnce(requestId, log.quota, before);
    return log;
  }
  async function expectSettledOnce(requestId: string | null, quota: number, before: number) {
    const logs = await t.ctx.storage.db.selectFrom('logs').selectAll().where('request_id', '=', requestId!).execute();
    expect(logs).toHaveLength(1);
    expect(await remaining()).toBe(before - quota);
    expect(await t.ctx.storage.db.selectFrom('quota_reservations').selectAll().where('status', '=', 'open').execute()).toEqual([]);
  }
  /** The key's balance once every settlement the ledger holds (an earlier test's stream, say) is committed. */
  const remaining = async () => {
    await t.ctx.relay.ledger.drain();
    return (await t.ctx.storage.db.selectFrom('tokens').select('remain_quota').where('id', '=', tokenId).executeTakeFirstOrThrow()).remain_quota;
  };

  it('create: the answer in Responses shape, charged what the provider reported', async () => {
    const before = await remaining();
    const sent = { model: models.ok, instructions: 'You are terse.', input: 'Hello' };
    const { data, response } = await openai().responses.create(sent).withResponse();
    expect(data).toMatchObject({ object: 'response', status: 'completed' });
    expect(data.output_text).toBe(row.text);
    expect(data.usage).toMatchObject(responsesUsageOf(row.usage));
    await expectResponsesCharged(response.headers.get('x-request-id'), models.ok, row.usage, before);
    const upstream = callsOf(mock).at(-1)!;
    // OpenAI takes the client's body as is (model mapped, and the output the reservation covers where the client set
    // no limit: issue 19); the others get it in their own dialect.
    if (passThrough) {
      expect({ path: upstream.path, body: upstream.body }).toEqual({ path: '/v1/responses', body: { ...sent, model: row.model, max_output_tokens: outputLimitOf(row.model) } });
    }
    else expect(upstream.path).not.toBe('/v1/responses');
  });

  it('stream: events in order with their sequence numbers, response.completed carries the usage that is billed', async () => {
    const before = await remaining();
    const { data: stream, response } = await openai().responses.create({ model: models.ok, input: 'Hello', stream: true }).withResponse();
    const events = await eventsOf(stream);
    expect(events[0]).toMatchObject({ type: 'response.created', sequence_number: 0 });
    expect(deltas(events, 'response.output_text.delta')).toBe(row.text);
    const completed = events.at(-1)!;
    expect(completed.type).toBe('response.completed');
    expect((completed as OpenAI.Responses.ResponseCompletedEvent).response.usage).toMatchObject(responsesUsageOf(row.usage));
    await expectResponsesCharged(response.headers.get('x-request-id'), models.ok, row.usage, before);
    // The SDK's own stream helper assembles the same answer from the events.
    const final = await openai().responses.stream({ model: models.ok, input: 'Hello' }).finalResponse();
    expect(final.output_text).toBe(row.text);
  });

  it('function calling: the call whole and streamed, then the function_call_output turn is answered', async () => {
    const tools = [{ type: 'function' as const, ...WEATHER_TOOL, strict: false }];
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const whole = await openai().responses.create({ model: models.ok, input, tools });
    const call = whole.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'get_weather', status: 'completed' });
    expect(JSON.parse(call!.arguments)).toEqual({ city: 'Paris' });

    const events = await eventsOf(await openai().responses.create({ model: models.ok, input, tools, stream: true }));
    expect(JSON.parse(deltas(events, 'response.function_call_arguments.delta'))).toEqual({ city: 'Paris' });
    const done = events.find((e) => e.type === 'response.output_item.done' && e.item.type === 'function_call') as OpenAI.Responses.ResponseOutputItemDoneEvent;
    expect(done.item).toMatchObject({ type: 'function_call', name: 'get_weather' });
    expect(JSON.parse((done.item as OpenAI.Responses.ResponseFunctionToolCall).arguments)).toEqual({ city: 'Paris' });

    const followUp = await openai().responses.create({ model: models.ok, tools, input: [...input, ...(whole.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call!.call_id, output: '{"temperature": 18}' }] });
    expect(followUp.output_text).toBeTruthy();
  });

  // Skipped for a row whose model cannot reason at all (Amazon Nova v1 has no extended thinking): RECORDED in
  // test-support/responses-matrix.ts says which rows and why. Every other row checks the reasoning it reports.
  it.skipIf(Boolean(cannot(row, 'reasoning')))('reasoning effort: summary and encrypted reasoning come back, reasoning tokens are billed, the next turn carries them', async () => {
    const expected = recordedUsage(row, 'reasoning');
    const before = await remaining();
    const ask = { model: models.reasoning, reasoning: { effort: 'low' as const, summary: 'auto' as const }, include: ['reasoning.encrypted_content' as const], store: false };
    const { data, response } = await openai().responses.create({ ...ask, input: 'What is 27 * 453?' }).withResponse();
    const reasoning = data.output.find((item): item is OpenAI.Responses.ResponseReasoningItem => item.type === 'reasoning');
    expect(reasoning?.summary[0]?.text).toBeTruthy();
    expect(reasoning?.encrypted_content).toBeTruthy();
    expect(data.usage).toMatchObject(responsesUsageOf(expected));
    await expectResponsesCharged(response.headers.get('x-request-id'), models.reasoning, expected, before);

    // Streamed, the summary arrives as deltas and response.completed reports the reasoning tokens.
    const events = await eventsOf(await openai().responses.create({ ...ask, input: 'What is 27 * 453?', stream: true }));
    expect(deltas(events, 'response.reasoning_summary_text.delta')).toBe(reasoning!.summary.map((s) => s.text).join('\n\n'));
    expect((events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response.usage?.output_tokens_details.reasoning_tokens).toBe(expected.reasoning_tokens ?? 0);

    // The reasoning goes back as the provider needs it (OpenAI checks its encrypted content, Claude its signature).
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'What is 27 * 453?' }, ...(data.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'And twice that?' }];
    const next = await openai().responses.create({ ...ask, input });
    expect(next.status).toBe('completed');
  });

  // Skipped for the same rows: without reasoning there is nothing to send back with the call.
  it.skipIf(Boolean(cannot(row, 'reasoning')))('reasoning with function calling: the reasoning goes back with the call (Claude wants its thinking block first)', async () => {
    const tools = [{ type: 'function' as const, ...WEATHER_TOOL, strict: false }];
    const ask = { model: models.reasoning, tools, reasoning: { effort: 'medium' as const }, include: ['reasoning.encrypted_content' as const], store: false };
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const events = await eventsOf(await openai().responses.create({ ...ask, input, stream: true }));
    const output = (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response.output;
    const call = output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call')!;
    expect(call.name).toBe('get_weather');
    // Codex CLI rebuilds its history from output_item.done events: they must hold the same items.
    const done = events.flatMap((e) => (e.type === 'response.output_item.done' ? [e.item] : []));
    expect(done).toEqual(output);
    const next = await openai().responses.create({ ...ask, input: [...input, ...(done as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '18°C' }] });
    expect(next.output_text).toBeTruthy();
  });

  // Skipped for a row whose provider does not report prompt caching (none at present: see RECORDED).
  it.skipIf(Boolean(cannot(row, 'cache')))('cached input: cache reads (and writes) are reported and billed at their own prices', async () => {
    const expected = recordedUsage(row, 'cache');
    expect((expected.cached_tokens ?? 0) > 0).toBe(true);
    const before = await remaining();
    const { data, response } = await openai().responses.create({ model: models.cache, input: `${HANDBOOK}\n\nHow do I reset the router?`, prompt_cache_key: 'handbook' }).withResponse();
    expect(data.usage).toMatchObject(responsesUsageOf(expected));
    const log = await expectResponsesCharged(response.headers.get('x-request-id'), models.cache, expected, before);
    expect(log.content).toContain(`缓存读取 ${expected.cached_tokens}`);
  });

  // covers issue 15 item 1: web search runs on the provider's own where it has one, else a clear error naming it
  it('state and built-in tools: kept for OpenAI; when translated, state refused, web search on the provider\'s own or refused naming it (no charge)', async () => {
    const before = await remaining();
    const { data: first, response } = await openai().responses.create({ model: models.ok, input: 'Hello' }).withResponse();
    const charged = (await logOf(response.headers.get('x-request-id'))).quota;
    expect(before - (await remaining())).toBe(charged);
    const follow = openai().responses.create({ model: models.ok, input: 'And then?', previous_response_id: first.id });
    const search = openai().responses.create({ model: models.ok, input: 'News?', tools: [{ type: 'web_search' }] });
    if (passThrough) {
      expect((await follow).status).toBe('completed');
      expect((await search).status).toBe('completed');
    } else {
      await expect(follow).rejects.toMatchObject({ status: 400, message: expect.stringContaining('previous_response_id') });
      const searched = await search.then(
        (answer) => ({ answer, upstream: mock.requests.at(-1) }),
        (error: unknown) => ({ error }),
      );
      if ('error' in searched) {
        // A provider without a web search of its own: refused naming the tool, nothing charged.
        expect(searched.error).toMatchObject({ status: 400, message: expect.stringContaining('web_search') });
        await new Promise((r) => setTimeout(r, 50));
        expect(before - (await remaining())).toBe(charged);
      } else {
        expect(['Anthropic', 'Vertex Claude', 'Gemini', 'Vertex Gemini']).toContain(row.name);
        const tools = JSON.stringify((searched.upstream?.body as { tools?: unknown })?.tools ?? []);
        expect(tools).toMatch(/web_search_20250305|googleSearch/);
      }
    }
  });

  it('faults: 429 and 500 are retried on another channel; billed once, to the channel that answered', async () => {
    const from = mock.requests.length;
    const before = await remaining();
    const { data, response } = await openai().responses.create({ model: models.fault, input: 'Hello' }).withResponse();
    expect(data.output_text).toBe(row.text);
    expect(callsOf(mock, from).map(modeOfCall)).toEqual(['fail-429', 'fail-500', 'ok']);
    const log = await expectResponsesCharged(response.headers.get('x-request-id'), models.fault, row.usage, before);
    expect(log.channel_id).toBe(okChannel);
  });

  it('faults: a stream that breaks mid-way ends with the error event (the SDK throws it), never completed; billed once', async () => {
    const before = await remaining();
    const { data: stream, response } = await openai().responses.create({ model: models.broken, input: 'Hello', stream: true }).withResponse();
    const types: string[] = [];
    // openai 7 throws a stream's `error` event as an APIError (6.x yielded it and the response.failed after it, whose
    // order on the wire write-answers.test.ts checks): either way the client learns of the break, never of completion.
    const thrown = await (async () => {
      for await (const event of stream) types.push(event.type);
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(OpenAI.APIError);
    expect((thrown as Error).message).toContain('上游流式响应中断');
    expect(types).not.toContain('response.completed');
    expect(types).toContain('response.output_text.delta');
    const log = await logOf(response.headers.get('x-request-id'));
    expect(log.content).toContain('上游流式响应中断');
    await expectSettledOnce(response.headers.get('x-request-id'), log.quota, before);
  });

  it('faults: a client that aborts mid-stream is billed once, at the usage the upstream reports at its end (read on, relayed to nobody)', async () => {
    const before = await remaining();
    const from = mock.requests.length;
    const abort = new AbortController();
    const res = await fetch(`${gateway}/v1/responses`, {
      method: 'POST',
      signal: abort.signal,
      headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: models.slow, input: 'Hello', stream: true }),
    });
    await res.body!.getReader().read();
    abort.abort();
    const log = await logOf(res.headers.get('x-request-id'));
    expect(log.content).toContain('客户端中途断开');
    await expectSettledOnce(res.headers.get('x-request-id'), log.quota, before);
    expect(log.content).not.toContain('用量异常');
    expect(callsOf(mock, from)[0].aborted).toBeFalsy();
  });
});
