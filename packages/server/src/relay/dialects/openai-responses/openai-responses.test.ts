import { ResponseStream } from 'openai/lib/responses/ResponseStream';
import { describe, expect, it } from 'vitest';
import { collectStream, type ChatResponse, type StreamPart } from '../../canonical.js';
import { RelayError } from '../../relay-error.js';
import { responsesMemory, responsesProblem } from '../../../test-support/mock-openai-responses.js';
import { anthropicDialect } from '../anthropic/index.js';
import { SseDecoder } from '../../transport/frame-decoders.js';
import { UpstreamStreamError } from '../shared.js';
import { carry } from './carrier.js';
import { FREEFORM_PARAMETERS } from './freeform.js';
import { openAiResponsesDialect as responses } from './index.js';
import { ResponsesStreamReader } from './stream.js';
import { mediaBoundsFor } from '../../../billing/media-bounds.js';

const context = { id: 'resp_abc', model: 'claude-sonnet-4-5', created: 1700000000, includeUsage: true };
const refusal = (body: Record<string, unknown>) => {
  try {
    responses.parseRequest({ model: 'm', input: 'hi', ...body });
  } catch (error) {
    expect(error).toBeInstanceOf(RelayError);
    expect((error as RelayError).status).toBe(400);
    return (error as RelayError).message;
  }
  throw new Error('not refused');
};
const framesOf = (text: string) => {
  const decoder = new SseDecoder();
  return [...decoder.push(Buffer.from(text)), ...decoder.end()];
};
const readAll = (text: string) => {
  const reader = responses.createStreamReader();
  return framesOf(text).flatMap((f) => reader.read(f));
};

describe('a Responses request translated for another channel', () => {
  it('reads what Codex CLI sends: instructions, developer and user messages, calls with their outputs, its reasoning', () => {
    const request = responses.parseRequest({
      model: 'claude-sonnet-4-5',
      instructions: 'You are a coding agent.',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions>' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files' }] },
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'I should run ls.' }], encrypted_content: carry({ signature: 'sig-1' }) },
        { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'toolu_1' },
        { type: 'function_call_output', call_id: 'toolu_1', output: 'README.md' },
        // OpenAI's own encrypted reasoning (from an earlier turn on an OpenAI channel) means nothing elsewhere.
        { type: 'reasoning', summary: [], encrypted_content: 'gAAAAABopenai' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'There is a README.', annotations: [] }] },
      ],
      tools: [{ type: 'function', name: 'shell', description: 'Runs a command', strict: false, parameters: { type: 'object', properties: { command: { type: 'array' } } } }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: { effort: 'high', summary: 'auto' },
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'session-1',
    });
    expect(request.system.map((p) => p.text)).toEqual(['You are a coding agent.', '<permissions>']);
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: '<environment_context>' }, { type: 'text', text: 'List the files' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'I should run ls.', signature: 'sig-1' },
          { type: 'tool_call', id: 'toolu_1', name: 'shell', arguments: '{"command":["ls"]}' },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', callId: 'toolu_1', name: 'shell', content: [{ type: 'text', text: 'README.md' }] }] },
      { role: 'assistant', content: [{ type: 'text', text: 'There is a README.' }] },
    ]);
    expect(request).toMatchObject({ stream: true, parallelToolCalls: false, toolChoice: { type: 'auto' }, reasoning: { effort: 'high' }, tools: [{ name: 'shell', description: 'Runs a command' }] });
  });

  it('maps tool_choice, allowed tools, efforts and structured output', () => {
    const tools = [
      { type: 'function', name: 'a', parameters: {} },
      { type: 'function', name: 'b', parameters: {} },
    ];
    expect(responses.parseRequest({ model: 'm', input: 'x', tools, tool_choice: { type: 'function', name: 'b' } }).toolChoice).toEqual({ type: 'tool', name: 'b' });
    const allowed = responses.parseRequest({ model: 'm', input: 'x', tools, tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'a' }] } });
    expect({ tools: allowed.tools.map((t) => t.name), choice: allowed.toolChoice }).toEqual({ tools: ['a'], choice: { type: 'required' } });
    expect(responses.parseRequest({ model: 'm', input: 'x', reasoning: { effort: 'none' } }).reasoning).toEqual({ enabled: false });
    expect(responses.parseRequest({ model: 'm', input: 'x', reasoning: { effort: 'xhigh' } }).reasoning).toEqual({ effort: 'high' });
    const format = { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true };
    expect(responses.parseRequest({ model: 'm', input: 'x', text: { format } }).responseFormat).toEqual(format);
    expect(responses.parseRequest({ model: 'm', input: 'x', max_output_tokens: 300, temperature: 0.2, top_p: 0.9 })).toMatchObject({ maxOutputTokens: 300, temperature: 0.2, topP: 0.9 });
  });

  it("custom (free-text) tools, as Codex CLI's apply_patch: a function with one string `input`, the grammar in its description; calls and outputs round trip", () => {
    const grammar = 'start: begin_patch hunk+ end_patch';
    const request = responses.parseRequest({
      model: 'gpt-5',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the typo' }] },
        { type: 'custom_tool_call', call_id: 'call_1', name: 'apply_patch', input: '*** Begin Patch\n*** End Patch' },
        { type: 'custom_tool_call_output', call_id: 'call_1', output: 'Done!' },
      ],
      tools: [{ type: 'custom', name: 'apply_patch', description: 'Edits files.', format: { type: 'grammar', syntax: 'lark', definition: grammar } }],
      tool_choice: { type: 'custom', name: 'apply_patch' },
    });
    expect(request.tools).toEqual([{ name: 'apply_patch', description: `Edits files.\n\nThe input must follow this lark grammar:\n${grammar}`, parameters: FREEFORM_PARAMETERS }]);
    expect(request.toolChoice).toEqual({ type: 'tool', name: 'apply_patch' });
    expect(request.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_call', id: 'call_1', name: 'apply_patch', arguments: JSON.stringify({ input: '*** Begin Patch\n*** End Patch' }) }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'call_1', name: 'apply_patch', content: [{ type: 'text', text: 'Done!' }] }] },
    ]);
    // The facts tell the writers which calls go back as custom_tool_call items.
    expect(responses.inspect({ model: 'gpt-5', input: 'x', tools: [{ type: 'function', name: 'shell' }, { type: 'custom', name: 'apply_patch' }] }, mediaBoundsFor).clientTools).toEqual([['apply_patch', { kind: 'custom', name: 'apply_patch' }]]);
    expect(responses.inspect({ model: 'gpt-5', input: 'x' }, mediaBoundsFor).clientTools).toBeUndefined();
  });

  it('refuses what only OpenAI can do with a clear 400', () => {
    expect(refusal({ tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] })).toContain('file_search');
    expect(refusal({ tools: [{ type: 'custom' }] })).toContain('name');
    expect(refusal({ input: [{ type: 'custom_tool_call', call_id: 'c1', input: 'x' }] })).toContain('custom_tool_call');
    expect(refusal({ tools: [{ type: 'namespace', name: 'ns', tools: [{ type: 'web_search' }] }] })).toContain('namespace');
    expect(refusal({ tool_choice: { type: 'web_search_preview' } })).toContain('web_search_preview');
    expect(refusal({ tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] })).toContain('code_interpreter');
    expect(refusal({ previous_response_id: 'resp_1' })).toContain('previous_response_id');
    expect(refusal({ conversation: 'conv_1' })).toContain('conversation');
    expect(refusal({ prompt: { id: 'pmpt_1' } })).toContain('prompt');
    expect(refusal({ input: [{ type: 'item_reference', id: 'msg_1' }] })).toContain('item_reference');
    expect(refusal({ input: [{ type: 'web_search_call', id: 'ws_1', status: 'completed' }] })).toContain('web_search_call');
    expect(refusal({ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] })).toContain('input_file');
    expect(refusal({ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] })).toContain('file_id');
    expect(refusal({ input: [] })).toContain('input');
    expect(refusal({ input: [{ type: 'function_call_output', output: 'x' }] })).toContain('call_id');
    expect(refusal({ model: '' })).toContain('model');
  });
});

describe('a canonical request written for a Responses upstream', () => {
  it('an Anthropic conversation becomes a body OpenAI takes: non-strict tools, outputs after their calls, reasoning only for reasoning models', () => {
    const canonical = anthropicDialect.parseRequest({
      model: 'o4-mini',
      max_tokens: 2048,
      system: 'Be brief.',
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '15°C' }, { type: 'text', text: 'Thanks' }] },
      ],
    });
    const body = responses.buildRequest(canonical);
    expect(responsesProblem(body, responsesMemory())).toBeUndefined();
    expect(body).toMatchObject({
      instructions: 'Be brief.',
      max_output_tokens: 2048,
      reasoning: { effort: 'low' },
      store: false,
      tools: [{ type: 'function', name: 'get_weather', strict: false }],
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
        { type: 'function_call', call_id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'toolu_1', output: '15°C' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
      ],
    });
    expect(responses.buildRequest({ ...canonical, model: 'gpt-4.1' }).reasoning).toBeUndefined();
  });

  it('thinking signatures, redacted thinking and tool-call signatures survive a Responses client round trip', () => {
    const canonical = responses.parseRequest({ model: 'm', input: 'x' });
    canonical.messages.push(
      { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm', signature: 'sig' }, { type: 'reasoning', text: '', redacted: 'opaque' }, { type: 'tool_call', id: 'c1', name: 'f', arguments: '{}', signature: 'thought-sig' }] },
      { role: 'user', content: [{ type: 'tool_result', callId: 'c1', name: 'f', content: [{ type: 'text', text: 'ok' }] }] },
    );
    expect(responses.parseRequest(responses.buildRequest(canonical))).toEqual(canonical);
  });
});

describe('answers written to a Responses client', () => {
  const answer: ChatResponse = {
    id: 'msg_1',
    model: 'claude',
    content: [
      { type: 'reasoning', text: 'Let me think.', signature: 'sig-a' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_call', id: 'toolu_9', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ],
    finishReason: 'tool_calls',
    usage: { prompt_tokens: 3334, completion_tokens: 31, cached_tokens: 1800, cache_write_tokens: 320, cache_write_1h_tokens: 1200, reasoning_tokens: 12 },
  };

  it('whole: a response object with its items, status and usage details', () => {
    const body = responses.writeResponse(answer, context) as Record<string, any>;
    expect(body).toMatchObject({ id: 'resp_abc', object: 'response', created_at: 1700000000, status: 'completed', model: 'claude-sonnet-4-5', error: null, incomplete_details: null });
    expect(body.output.map((item: { type: string }) => item.type)).toEqual(['reasoning', 'message', 'function_call']);
    expect(body.output[0]).toMatchObject({ summary: [{ type: 'summary_text', text: 'Let me think.' }], encrypted_content: carry({ signature: 'sig-a' }) });
    expect(body.output[2]).toMatchObject({ call_id: 'toolu_9', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' });
    expect(body.usage).toEqual({
      input_tokens: 3334,
      input_tokens_details: { cached_tokens: 1800, cache_write_tokens: 1520 },
      output_tokens: 31,
      output_tokens_details: { reasoning_tokens: 12 },
      total_tokens: 3365,
    });
    expect(new Set(body.output.map((item: { id: string }) => item.id)).size).toBe(3);
    expect(responses.writeResponse({ ...answer, finishReason: 'length' }, context)).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });

  const partsOf = (response: ChatResponse): StreamPart[] => [
    { type: 'start' },
    { type: 'reasoning', text: 'Let me ' },
    { type: 'reasoning', text: 'think.' },
    { type: 'reasoning', text: '', signature: 'sig-a' },
    { type: 'text', text: 'Check' },
    { type: 'text', text: 'ing.' },
    { type: 'tool_call', index: 2, id: 'toolu_9', name: 'get_weather', signature: 'thought' },
    { type: 'tool_call_delta', index: 2, arguments: '{"city":' },
    { type: 'tool_call_delta', index: 2, arguments: '"Paris"}' },
    { type: 'usage', usage: response.usage! },
    { type: 'finish', reason: response.finishReason },
  ];

  it('streamed: the official SDK assembles the same response from the events', async () => {
    const writer = responses.createStreamWriter(context);
    const text = partsOf(answer).map((p) => writer.write(p)).join('') + writer.end();
    const sequences = framesOf(text).map((f) => JSON.parse(f.data).sequence_number);
    expect(sequences).toEqual(sequences.map((_, i) => i));
    // fromReadableStream takes the events as JSON lines (the SDK's SSE parsing is exercised end to end).
    const lines = framesOf(text).map((f) => f.data).join('\n');
    const final = await ResponseStream.fromReadableStream(new Response(lines).body!).finalResponse();
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe('Checking.');
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'reasoning', 'function_call']);
    expect(final.output[3]).toMatchObject({ type: 'function_call', call_id: 'toolu_9', arguments: '{"city":"Paris"}', status: 'completed' });
    expect(final.usage?.output_tokens_details.reasoning_tokens).toBe(12);
    // And the gateway reads its own stream back to the same answer, signatures included.
    const back = collectStream(readAll(text));
    expect(back.content).toEqual([
      { type: 'reasoning', text: 'Let me think.', signature: 'sig-a' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_call', id: 'toolu_9', name: 'get_weather', arguments: '{"city":"Paris"}', signature: 'thought' },
    ]);
    expect(back.finishReason).toBe('tool_calls');
  });

  it('a call to a custom tool goes back as custom_tool_call with its text, whole and streamed (the SDK assembles it)', async () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch';
    const args = JSON.stringify({ input: patch });
    const freeform = { ...context, clientTools: new Map([['apply_patch', { kind: 'custom' as const, name: 'apply_patch' }]]) };
    const called: ChatResponse = { id: 'x', model: 'm', content: [{ type: 'tool_call', id: 'toolu_p', name: 'apply_patch', arguments: args }, { type: 'tool_call', id: 'toolu_s', name: 'shell', arguments: '{"command":["ls"]}' }], finishReason: 'tool_calls', usage: { prompt_tokens: 5, completion_tokens: 7 } };
    const body = responses.writeResponse(called, freeform) as Record<string, any>;
    expect(body.output).toMatchObject([
      { type: 'custom_tool_call', status: 'completed', call_id: 'toolu_p', name: 'apply_patch', input: patch },
      { type: 'function_call', call_id: 'toolu_s', name: 'shell', arguments: '{"command":["ls"]}' },
    ]);

    const writer = responses.createStreamWriter(freeform);
    const parts: StreamPart[] = [
      { type: 'start' },
      { type: 'tool_call', index: 0, id: 'toolu_p', name: 'apply_patch' },
      { type: 'tool_call_delta', index: 0, arguments: args.slice(0, 20) },
      { type: 'tool_call_delta', index: 0, arguments: args.slice(20) },
      { type: 'usage', usage: called.usage! },
      { type: 'finish', reason: 'tool_calls' },
    ];
    const text = parts.map((p) => writer.write(p)).join('') + writer.end();
    const events = framesOf(text).map((f) => JSON.parse(f.data));
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[3]).toMatchObject({ delta: patch, output_index: 0 });
    const final = await ResponseStream.fromReadableStream(new Response(framesOf(text).map((f) => f.data).join('\n')).body!).finalResponse();
    expect(final.output).toMatchObject([{ type: 'custom_tool_call', call_id: 'toolu_p', name: 'apply_patch', input: patch }]);
    // The gateway reads its own stream back to the same call.
    expect(collectStream(readAll(text)).content).toEqual([{ type: 'tool_call', id: 'toolu_p', name: 'apply_patch', arguments: args }]);
  });

  it('a broken stream ends with error and response.failed, the output so far marked incomplete', () => {
    const writer = responses.createStreamWriter(context);
    const text = writer.write({ type: 'text', text: 'Half an ans' }) + writer.error('上游流式响应中断');
    const events = framesOf(text).map((f) => JSON.parse(f.data));
    expect(events.slice(-2).map((e) => e.type)).toEqual(['error', 'response.failed']);
    expect(events.at(-2)).toMatchObject({ code: 'stream_broken', message: '上游流式响应中断' });
    expect(events.at(-1).response).toMatchObject({ status: 'failed', error: { code: 'server_error' }, output: [{ type: 'message', status: 'incomplete', content: [{ text: 'Half an ans' }] }] });
    expect(() => readAll(text)).toThrow(UpstreamStreamError);
  });

  it('ending a pass-through that broke, the error events continue the upstream numbering and response id', () => {
    const reader = new ResponsesStreamReader();
    for (const frame of framesOf(
      'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_up","model":"gpt-4.1","status":"in_progress","output":[]}}\n\n' +
        'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":7,"output_index":0,"content_index":0,"item_id":"msg_1","delta":"Hi"}\n\n',
    ))
      reader.read(frame);
    const events = framesOf(responses.createStreamWriter(context, reader).error('broken')).map((f) => JSON.parse(f.data));
    expect(events.map((e) => [e.type, e.sequence_number])).toEqual([
      ['error', 8],
      ['response.failed', 9],
    ]);
    expect(events[1].response.id).toBe('resp_up');
  });
});

describe('reading a Responses stream', () => {
  const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const usage = { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 16, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 36 };

  it('response.incomplete is a cut answer, billed with its usage', () => {
    const parts = readAll(event('response.output_text.delta', { output_index: 0, delta: 'Once' }) + event('response.incomplete', { response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage } }));
    expect(collectStream(parts)).toMatchObject({ finishReason: 'length', usage: { prompt_tokens: 20, completion_tokens: 16 } });
  });

  it('items sent whole (no deltas) still count', () => {
    const parts = readAll(
      event('response.output_item.done', { output_index: 0, item: { type: 'message', content: [{ type: 'output_text', text: 'Whole.' }] } }) +
        event('response.output_item.done', { output_index: 1, item: { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":1}' } }) +
        event('response.completed', { response: { status: 'completed', usage } }),
    );
    expect(collectStream(parts)).toMatchObject({ content: [{ type: 'text', text: 'Whole.' }, { type: 'tool_call', id: 'c1', name: 'f', arguments: '{"a":1}' }], finishReason: 'tool_calls' });
  });

  it('response.failed and error events break the stream with the upstream message', () => {
    expect(() => readAll(event('response.failed', { response: { status: 'failed', error: { code: 'server_error', message: 'boom' } } }))).toThrow('boom');
    expect(() => readAll(event('error', { code: 'rate_limit_exceeded', message: 'slow down', param: null }))).toThrow('slow down');
  });
});

// covers issue 15 item 1: every client-run tool kind reaches other providers as a function and comes back in its shape
describe('client-run tools of every kind', () => {
  const ctx = { id: 'resp_t', model: 'm', created: 1, includeUsage: true };
  const tools = [
    { type: 'namespace', name: 'multi_agent_v1', description: 'Sub-agents.', tools: [{ type: 'function', name: 'spawn_agent', parameters: { type: 'object', properties: {} } }, { type: 'custom', name: 'note' }] },
    { type: 'local_shell' },
    { type: 'shell' },
    { type: 'apply_patch' },
    { type: 'tool_search', execution: 'server' },
    { type: 'function', name: 'read_file', defer_loading: true, parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  ];

  it('all become functions (tool search left out, deferred tools offered directly)', () => {
    const canonical = responses.parseRequest({ model: 'm', input: 'x', tools });
    expect(canonical.tools.map((t) => t.name)).toEqual(['multi_agent_v1__spawn_agent', 'multi_agent_v1__note', 'local_shell', 'shell', 'apply_patch', 'read_file']);
    expect(canonical.tools[2].parameters).toMatchObject({ required: ['command'] });
  });

  it('calls go back in the shape each tool was declared with, and come in again from history', () => {
    const clientTools = new Map(responses.inspect({ model: 'm', input: 'x', tools }, mediaBoundsFor).clientTools);
    const call = (id: string, name: string, args: unknown) => ({ type: 'tool_call' as const, id, name, arguments: JSON.stringify(args) });
    const answer: ChatResponse = {
      id: 'x', model: 'm', finishReason: 'tool_calls',
      content: [
        call('c1', 'multi_agent_v1__spawn_agent', { message: 'go' }),
        call('c2', 'multi_agent_v1__note', { input: 'remember' }),
        call('c3', 'local_shell', { command: ['ls', '-la'], working_directory: '/w' }),
        call('c4', 'shell', { commands: ['pwd'], timeout_ms: 1000 }),
        call('c5', 'apply_patch', { type: 'create_file', path: 'a.txt', diff: '+hi' }),
      ],
    };
    const output = (responses.writeResponse(answer, { ...ctx, clientTools }) as { output: Array<Record<string, unknown>> }).output;
    expect(output).toMatchObject([
      { type: 'function_call', namespace: 'multi_agent_v1', name: 'spawn_agent', call_id: 'c1', arguments: '{"message":"go"}' },
      { type: 'custom_tool_call', namespace: 'multi_agent_v1', name: 'note', call_id: 'c2', input: 'remember' },
      { type: 'local_shell_call', call_id: 'c3', action: { type: 'exec', command: ['ls', '-la'], working_directory: '/w', env: {} } },
      { type: 'shell_call', call_id: 'c4', action: { commands: ['pwd'], timeout_ms: 1000 } },
      { type: 'apply_patch_call', call_id: 'c5', operation: { type: 'create_file', path: 'a.txt', diff: '+hi' } },
    ]);
    // The same items sent back with their results are the same canonical calls and results.
    const results = [
      { type: 'function_call_output', call_id: 'c1', output: 'agent-1' },
      { type: 'custom_tool_call_output', call_id: 'c2', output: 'ok' },
      { type: 'local_shell_call_output', call_id: 'c3', output: 'a.txt' },
      { type: 'shell_call_output', call_id: 'c4', output: [{ stdout: '/w', stderr: '', outcome: { type: 'exit', exit_code: 0 } }] },
      { type: 'apply_patch_call_output', call_id: 'c5', status: 'completed', output: 'Created a.txt' },
    ];
    const next = responses.parseRequest({ model: 'm', tools, input: [{ role: 'user', content: 'x' }, ...output, ...results] });
    expect(next.messages[1].content.map((p) => (p.type === 'tool_call' ? [p.name, JSON.parse(p.arguments)] : p.type))).toEqual([
      ['multi_agent_v1__spawn_agent', { message: 'go' }],
      ['multi_agent_v1__note', { input: 'remember' }],
      ['local_shell', { command: ['ls', '-la'], working_directory: '/w', env: {} }],
      ['shell', { commands: ['pwd'], timeout_ms: 1000 }],
      ['apply_patch', { type: 'create_file', path: 'a.txt', diff: '+hi' }],
    ]);
    expect(next.messages[2].content.map((p) => (p.type === 'tool_result' ? [p.callId, p.name, p.content.map((c) => (c.type === 'text' ? c.text : ''))] : p.type))).toEqual([
      ['c1', 'multi_agent_v1__spawn_agent', ['agent-1']],
      ['c2', 'multi_agent_v1__note', ['ok']],
      ['c3', 'local_shell', ['a.txt']],
      ['c4', 'shell', ['/w\nexit code 0']],
      ['c5', 'apply_patch', ['completed: Created a.txt']],
    ]);
  });

  it('streamed: a built-in client tool call is one whole item; a namespaced function streams its arguments', () => {
    const clientTools = new Map(responses.inspect({ model: 'm', input: 'x', tools }, mediaBoundsFor).clientTools);
    const writer = responses.createStreamWriter({ ...ctx, clientTools });
    const text = [
      writer.write({ type: 'start' }),
      writer.write({ type: 'tool_call', index: 0, id: 'c3', name: 'local_shell' }),
      writer.write({ type: 'tool_call_delta', index: 0, arguments: '{"command":' }),
      writer.write({ type: 'tool_call_delta', index: 0, arguments: '["ls"]}' }),
      writer.write({ type: 'tool_call', index: 1, id: 'c1', name: 'multi_agent_v1__spawn_agent' }),
      writer.write({ type: 'tool_call_delta', index: 1, arguments: '{"message":"go"}' }),
      writer.write({ type: 'finish', reason: 'tool_calls' }),
      writer.end(),
    ].join('');
    const events = text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as { type: string; item?: Record<string, unknown>; response?: { output: unknown[] } });
    const added = events.filter((e) => e.type === 'response.output_item.added').map((e) => e.item);
    expect(added).toMatchObject([
      { type: 'local_shell_call', call_id: 'c3', action: { type: 'exec', command: ['ls'] } },
      { type: 'function_call', namespace: 'multi_agent_v1', name: 'spawn_agent' },
    ]);
    expect(events.at(-1)?.response?.output).toMatchObject([{ type: 'local_shell_call' }, { type: 'function_call', namespace: 'multi_agent_v1', arguments: '{"message":"go"}' }]);
  });
});
