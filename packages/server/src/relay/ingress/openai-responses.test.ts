import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MOCK_PATCH, MOCK_REPLY, startMockUpstream, type MockUpstream } from '../../test-support/mock-openai.js';
import { seedChannel, seedToken } from '../../test-support/seed.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

// POST /v1/responses beyond the dialect matrix: what is refused on every channel, a Chat-only vendor reached by
// translation, and the endings of a passed-through stream that peers bill wrongly.
let t: TestApp;
let mock: MockUpstream;
let gateway: string;
let userId: number;

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp();
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  userId = (await t.ctx.repositories.users.findByUsername('root'))!.id;
  await t.ctx.options.set('ModelRatio', JSON.stringify({ 'gpt-4o-mini': 0.075, 'deepseek-chat': 0.135 }));
  await t.ctx.options.set('CompletionRatio', JSON.stringify({ 'gpt-4o-mini': 4, 'deepseek-chat': 2 }));
});
afterAll(async () => {
  await t.close();
  await mock.close();
});
beforeEach(async () => {
  await t.ctx.storage.db.deleteFrom('abilities').execute();
  await t.ctx.storage.db.deleteFrom('channels').execute();
  mock.requests.length = 0;
});

const client = (key: string) => new OpenAI({ apiKey: `sk-${key}`, baseURL: `${gateway}/v1`, maxRetries: 0 });

async function logsOf(tokenId: number, count: number) {
  for (let i = 0; i < 200; i++) {
    const logs = await t.ctx.storage.db.selectFrom('logs').selectAll().where('token_id', '=', tokenId).where('type', '=', 2).execute();
    const open = await t.ctx.storage.db.selectFrom('quota_reservations').selectAll().where('status', '=', 'open').execute();
    if (logs.length >= count && open.length === 0) return logs;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('not settled');
}

async function streamTypes(key: string, body: Record<string, unknown>) {
  const res = await fetch(`${gateway}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
  const text = await res.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; sequence_number: number; response?: { status: string; usage?: unknown } });
}

describe('POST /v1/responses', () => {
  it('background mode is refused on every channel: its usage could never be billed', async () => {
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    await expect(client(token.key).responses.create({ model: 'gpt-4o-mini', input: 'Hi', background: true })).rejects.toMatchObject({ status: 400, message: expect.stringContaining('background') });
    expect(mock.requests).toEqual([]);
    const token2 = await t.ctx.storage.db.selectFrom('tokens').selectAll().where('id', '=', token.id).executeTakeFirstOrThrow();
    expect(token2.remain_quota).toBe(100_000);
  });

  it('input tokens are counted without an upstream call; stored responses are not kept, and say so', async () => {
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    const openai = client(token.key);
    const counted = await openai.responses.inputTokens.count({ model: 'gpt-4o-mini', input: 'Hello there, how many tokens is this?' });
    expect(counted).toMatchObject({ object: 'response.input_tokens', input_tokens: expect.any(Number) });
    expect(counted.input_tokens).toBeGreaterThan(5);
    await expect(openai.responses.retrieve('resp_1')).rejects.toMatchObject({ status: 404, message: expect.stringContaining('网关不保存') });
    await expect(openai.responses.cancel('resp_1')).rejects.toMatchObject({ status: 404 });
    await expect(client('nope').responses.retrieve('resp_1')).rejects.toMatchObject({ status: 401 });
    expect(mock.requests).toEqual([]);
  });

  it('a malformed body gets an OpenAI-shaped 400', async () => {
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    const res = await fetch(`${gateway}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' }, body: '[1,2]' });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ type: 'invalid_request_error', message: expect.any(String) });
  });

  it('a Chat-only vendor (custom channel) is reached by translation: answer, stream, tool call and its output', async () => {
    await seedChannel(t.ctx.storage, { type: 8, key: 'ok', baseUrl: mock.url, models: 'deepseek-chat' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    const openai = client(token.key);
    const answer = await openai.responses.create({ model: 'deepseek-chat', instructions: 'Be brief.', input: 'Hello' });
    expect(answer).toMatchObject({ object: 'response', status: 'completed', output_text: MOCK_REPLY, usage: { input_tokens: 12, output_tokens: 10 } });
    expect(mock.requests[0]).toMatchObject({ path: '/v1/chat/completions', body: { model: 'deepseek-chat', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello' }] } });

    const events = await streamTypes(token.key, { model: 'deepseek-chat', input: 'Hello' });
    expect(events.at(-1)).toMatchObject({ type: 'response.completed', response: { status: 'completed', usage: { input_tokens: 12, output_tokens: 10 } } });
    expect((mock.requests[1].body as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });

    const tools = [{ type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const call = await openai.responses.create({ model: 'deepseek-chat', input, tools });
    const fc = call.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call')!;
    expect(fc).toMatchObject({ name: 'get_weather', arguments: '{"city": "Paris"}' });
    const next = await openai.responses.create({ model: 'deepseek-chat', tools, input: [...input, ...(call.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: fc.call_id, output: '18°C' }] });
    expect(next.output_text).toBe(MOCK_REPLY);
    expect((mock.requests.at(-1)!.body as { messages: unknown[] }).messages.slice(-2)).toMatchObject([{ role: 'assistant', tool_calls: [{ id: fc.call_id }] }, { role: 'tool', tool_call_id: fc.call_id, content: '18°C' }]);
    // cost of each plain answer: ceil((12 + 10 x 2) x 0.135) = 5
    const logs = await logsOf(token.id, 4);
    expect(logs.slice(0, 2).map((l) => l.quota)).toEqual([5, 5]);
  });

  it("Codex CLI's apply_patch (a custom free-text tool) through a Chat-only vendor: a custom_tool_call with the patch, whole and streamed, and its output goes back", async () => {
    await seedChannel(t.ctx.storage, { type: 8, key: 'ok', baseUrl: mock.url, models: 'deepseek-chat' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    const openai = client(token.key);
    const tools: OpenAI.Responses.Tool[] = [{ type: 'custom', name: 'apply_patch', description: 'Edit files.', format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch" /(.|\\n)*/' } }];
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Add hello.txt' }];
    const call = await openai.responses.create({ model: 'deepseek-chat', input, tools });
    expect(call.output).toMatchObject([{ type: 'custom_tool_call', name: 'apply_patch', input: MOCK_PATCH, status: 'completed' }]);
    // The vendor saw a function with one string parameter, the grammar in its description.
    expect((mock.requests[0].body as { tools: unknown[] }).tools).toMatchObject([{ type: 'function', function: { name: 'apply_patch', description: expect.stringContaining('lark grammar'), parameters: { required: ['input'] } } }]);

    const stream = openai.responses.stream({ model: 'deepseek-chat', input, tools });
    const deltas: string[] = [];
    stream.on('response.custom_tool_call_input.delta', (event) => deltas.push(event.delta));
    const streamed = await stream.finalResponse();
    expect(streamed.output).toMatchObject([{ type: 'custom_tool_call', name: 'apply_patch', input: MOCK_PATCH }]);
    expect(deltas.join('')).toBe(MOCK_PATCH);

    const ctc = call.output[0] as OpenAI.Responses.ResponseCustomToolCall;
    const next = await openai.responses.create({ model: 'deepseek-chat', tools, input: [...input, ctc, { type: 'custom_tool_call_output', call_id: ctc.call_id, output: 'Done!' }] });
    expect(next.output_text).toBe(MOCK_REPLY);
    expect((mock.requests.at(-1)!.body as { messages: unknown[] }).messages.slice(-2)).toMatchObject([
      { role: 'assistant', tool_calls: [{ id: ctc.call_id, function: { name: 'apply_patch', arguments: JSON.stringify({ input: MOCK_PATCH }) } }] },
      { role: 'tool', tool_call_id: ctc.call_id, content: 'Done!' },
    ]);
    const logs = await logsOf(token.id, 3);
    expect(logs).toHaveLength(3);
  });

  // covers issue 15 item 1: Codex's namespace tools reach every channel and come back inside their namespace
  it("Codex CLI's namespace tools (multi_agent_v1) through a Chat-only vendor: functions there, calls back inside the namespace, whole and streamed", async () => {
    await seedChannel(t.ctx.storage, { type: 8, key: 'ok', baseUrl: mock.url, models: 'deepseek-chat' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    const openai = client(token.key);
    const spawn = { type: 'function' as const, name: 'spawn_agent', description: 'Start a sub-agent.', parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] }, strict: false };
    const tools = [{ type: 'namespace', name: 'multi_agent_v1', description: 'Sub-agents.', tools: [spawn, { ...spawn, name: 'wait' }] }] as unknown as OpenAI.Responses.Tool[];
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Split the work.' }];
    const call = await openai.responses.create({ model: 'deepseek-chat', input, tools });
    expect(call.output).toMatchObject([{ type: 'function_call', namespace: 'multi_agent_v1', name: 'spawn_agent', arguments: '{"city": "Paris"}', status: 'completed' }]);
    expect((mock.requests[0].body as { tools: unknown[] }).tools).toMatchObject([
      { type: 'function', function: { name: 'multi_agent_v1__spawn_agent', description: 'Start a sub-agent.' } },
      { type: 'function', function: { name: 'multi_agent_v1__wait' } },
    ]);

    const stream = openai.responses.stream({ model: 'deepseek-chat', input, tools });
    const added: unknown[] = [];
    stream.on('response.output_item.added', (event) => added.push(event.item));
    const streamed = await stream.finalResponse();
    expect(added).toMatchObject([{ type: 'function_call', namespace: 'multi_agent_v1', name: 'spawn_agent' }]);
    expect(streamed.output).toMatchObject([{ type: 'function_call', namespace: 'multi_agent_v1', name: 'spawn_agent', arguments: '{"city": "Paris"}' }]);

    const fc = call.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    const next = await openai.responses.create({ model: 'deepseek-chat', tools, input: [...input, fc, { type: 'function_call_output', call_id: fc.call_id, output: 'agent-1' }] });
    expect(next.output_text).toBe(MOCK_REPLY);
    expect((mock.requests.at(-1)!.body as { messages: unknown[] }).messages.slice(-2)).toMatchObject([
      { role: 'assistant', tool_calls: [{ id: fc.call_id, function: { name: 'multi_agent_v1__spawn_agent' } }] },
      { role: 'tool', tool_call_id: fc.call_id, content: 'agent-1' },
    ]);
  });

  it('passed through, an answer cut at max_output_tokens (response.incomplete) is billed its usage, whole and streamed', async () => {
    await seedChannel(t.ctx.storage, { key: 'incomplete', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    const whole = await client(token.key).responses.create({ model: 'gpt-4o-mini', input: 'Hello' });
    expect(whole.status).toBe('incomplete');
    const events = await streamTypes(token.key, { model: 'gpt-4o-mini', input: 'Hello' });
    expect(events.at(-1)).toMatchObject({ type: 'response.incomplete', response: { status: 'incomplete' } });
    // ceil((12 + 10 x 4) x 0.075) = 4, twice
    const logs = await logsOf(token.id, 2);
    expect(logs.map((l) => [l.prompt_tokens, l.completion_tokens, l.quota])).toEqual([
      [12, 10, 4],
      [12, 10, 4],
    ]);
  });

  it('passed through, a stream the upstream ends with response.failed reaches the client as is, once; billed as broken', async () => {
    await seedChannel(t.ctx.storage, { key: 'stream-error', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    const events = await streamTypes(token.key, { model: 'gpt-4o-mini', input: 'Hello' });
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0].type).toBe('response.created');
    expect(events.filter((e) => e.type === 'response.failed')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'response.failed', response: { status: 'failed' } });
    expect(events.map((e) => e.type)).not.toContain('response.completed');
    const [log] = await logsOf(token.id, 1);
    expect(log.content).toContain('上游流式响应中断');
    expect(log.completion_tokens).toBeGreaterThan(0);
  });

  // covers issue 15: a completed answer is not logged as cut short when the client leaves right after it
  it('a client that closes as soon as response.completed arrives (Codex) is billed and logged as a whole answer', async () => {
    await seedChannel(t.ctx.storage, { key: 'linger', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    const controller = new AbortController();
    const res = await fetch(`${gateway}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${token.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', input: 'Hello', stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('response.completed')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    controller.abort();
    const [log] = await logsOf(token.id, 1);
    expect(log.content).not.toContain('客户端中途断开');
    expect([log.prompt_tokens, log.completion_tokens, log.quota]).toEqual([12, 10, 4]);
  });
});
