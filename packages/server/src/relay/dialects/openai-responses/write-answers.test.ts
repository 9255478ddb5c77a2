import { ResponseStream } from 'openai/lib/responses/ResponseStream';
import { describe, expect, it } from 'vitest';
import { collectStream, type ChatResponse, type StreamPart } from '../../canonical.js';
import { SseDecoder } from '../../transport/frame-decoders.js';
import { UpstreamStreamError } from '../shared.js';
import { carry } from './carrier.js';
import { openAiResponsesDialect as responses } from './index.js';
import { ResponsesStreamReader } from './stream.js';

/** Responses answers: answers written to a Responses client (whole and streamed), and a Responses upstream's stream read. */
const context = { id: 'resp_abc', model: 'claude-sonnet-4-5', created: 1700000000, includeUsage: true };
const framesOf = (text: string) => {
  const decoder = new SseDecoder();
  return [...decoder.push(Buffer.from(text)), ...decoder.end()];
};
const readAll = (text: string) => {
  const reader = responses.createStreamReader();
  return framesOf(text).flatMap((f) => reader.read(f));
};

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
