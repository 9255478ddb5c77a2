import { describe, expect, it } from 'vitest';
import { collectStream, emptyRequest, type ChatRequest } from '../../canonical.js';
import { RelayError } from '../../relay-error.js';
import { UpstreamStreamError } from '../shared.js';
import { bedrockConverseDialect as converse } from './index.js';
import { bedrockModelFamily } from './model-family.js';

const request = (model: string, fields: Partial<ChatRequest> = {}): ChatRequest => ({
  ...emptyRequest(model),
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
  ...fields,
});

describe('bedrock-converse requests', () => {
  it('knows the model family from ids, profiles, ARNs and Claude names', () => {
    expect(bedrockModelFamily('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('anthropic');
    expect(bedrockModelFamily('claude-3-7-sonnet-20250219')).toBe('anthropic');
    expect(bedrockModelFamily('arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-lite-v1:0')).toBe('amazon');
    expect(bedrockModelFamily('meta.llama3-8b-instruct-v1:0')).toBe('meta');
    expect(bedrockModelFamily('eu.mistral.pixtral-large-2502-v1:0')).toBe('mistral');
  });

  it('cache marks become cachePoint blocks (1-hour TTL kept), and back', () => {
    const body = converse.buildRequest(
      request('us.anthropic.claude-sonnet-4-5-20250929-v1:0', {
        system: [{ type: 'text', text: 'handbook', cache: 'ephemeral-1h' }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'question', cache: 'ephemeral' }] }],
      }),
    );
    expect(body.system).toEqual([{ text: 'handbook' }, { cachePoint: { type: 'default', ttl: '1h' } }]);
    expect(body.messages).toEqual([{ role: 'user', content: [{ text: 'question' }, { cachePoint: { type: 'default' } }] }]);
    const back = converse.parseRequest(body);
    expect(back.system).toEqual([{ type: 'text', text: 'handbook', cache: 'ephemeral-1h' }]);
    expect(back.messages[0].content).toEqual([{ type: 'text', text: 'question', cache: 'ephemeral' }]);
  });

  it("Claude's thinking and top_k go in additionalModelRequestFields; thinking drops what Claude refuses with it", () => {
    const claude = converse.buildRequest(request('claude-sonnet-4-5', { maxOutputTokens: 3000, reasoning: { effort: 'high' }, temperature: 0.3, topK: 5, topP: 0.5 }));
    expect(claude.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 2999 } });
    expect(claude.inferenceConfig).toEqual({ maxTokens: 3000 });
    const plain = converse.buildRequest(request('claude-sonnet-4-5', { temperature: 0.3, topK: 5 }));
    expect(plain).toMatchObject({ inferenceConfig: { temperature: 0.3 }, additionalModelRequestFields: { top_k: 5 } });
    // Nova takes topK in its own inferenceConfig; it has no Claude thinking.
    const nova = converse.buildRequest(request('amazon.nova-pro-v1:0', { topK: 5, reasoning: { effort: 'high' } }));
    expect(nova.additionalModelRequestFields).toEqual({ inferenceConfig: { topK: 5 } });
    expect(converse.parseRequest(nova).topK).toBe(5);
    expect(converse.buildRequest(request('meta.llama3-8b-instruct-v1:0', { topK: 5 })).additionalModelRequestFields).toBeUndefined();
  });

  it('keeps a toolConfig whenever the conversation holds tool blocks, and none for `none` otherwise', () => {
    const history = request('amazon.nova-lite-v1:0', {
      toolChoice: { type: 'none' },
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
        { role: 'assistant', content: [{ type: 'tool_call', id: 't1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
        { role: 'user', content: [{ type: 'text', text: 'thanks' }, { type: 'tool_result', callId: 't1', content: [{ type: 'text', text: '18' }], isError: true }] },
      ],
    });
    const body = converse.buildRequest(history);
    expect(body.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object', properties: {} } } } }] });
    expect((body.messages as Array<{ content: unknown[] }>)[2].content).toEqual([{ toolResult: { toolUseId: 't1', content: [{ text: '18' }], status: 'error' } }, { text: 'thanks' }]);
    const tools = [{ name: 'get_weather', parameters: { type: 'object' } }];
    expect(converse.buildRequest(request('amazon.nova-lite-v1:0', { tools, toolChoice: { type: 'none' } })).toolConfig).toBeUndefined();
    expect(converse.buildRequest(request('amazon.nova-lite-v1:0', { tools, toolChoice: { type: 'required' } })).toolConfig).toMatchObject({ toolChoice: { any: {} } });
  });

  it('opens with a user turn, skips blank text and reasoning it cannot send back', () => {
    const body = converse.buildRequest(
      request('amazon.nova-lite-v1:0', {
        messages: [
          { role: 'assistant', content: [{ type: 'reasoning', text: 'unsigned thoughts' }, { type: 'text', text: 'Earlier answer' }] },
          { role: 'user', content: [{ type: 'text', text: '  ' }, { type: 'text', text: 'Go on' }] },
        ],
      }),
    );
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: '(continue)' }] },
      { role: 'assistant', content: [{ text: 'Earlier answer' }] },
      { role: 'user', content: [{ text: 'Go on' }] },
    ]);
  });

  it('refuses images it cannot send (links, unknown formats) and media it cannot read, with a 400', () => {
    const image = (source: { kind: 'url'; url: string } | { kind: 'base64'; mediaType: string; data: string }) =>
      converse.buildRequest(request('amazon.nova-lite-v1:0', { messages: [{ role: 'user', content: [{ type: 'image', source }] }] }));
    expect(() => image({ kind: 'url', url: 'https://example.com/cat.png' })).toThrow(RelayError);
    expect(() => image({ kind: 'base64', mediaType: 'image/tiff', data: 'AA==' })).toThrow(/不支持该图片格式/);
    expect(image({ kind: 'base64', mediaType: 'image/jpg', data: 'AA==' }).messages).toEqual([{ role: 'user', content: [{ image: { format: 'jpeg', source: { bytes: 'AA==' } } }] }]);
    expect(() => converse.parseRequest({ messages: [{ role: 'user', content: [{ document: { format: 'pdf', name: 'a', source: { bytes: 'AA==' } } }] }] })).toThrow(/document/);
    expect(() => converse.parseRequest({ messages: [{ role: 'system', content: [] }] })).toThrow(RelayError);
  });

  it('caps the output of a body it passes through, keeping a thinking budget below the cap', () => {
    const body = { messages: [], inferenceConfig: { maxTokens: 8000, temperature: 1 }, additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 4000 } } };
    expect(converse.rewrite(body, { model: 'x', maxOutputTokens: 2000 })).toEqual({ messages: [], inferenceConfig: { maxTokens: 2000, temperature: 1 }, additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 1999 } } });
    expect(converse.rewrite(body, { model: 'x', maxOutputTokens: 900 }).additionalModelRequestFields).toEqual({ thinking: { type: 'disabled' } });
    expect(converse.rewrite(body, { model: 'x' })).toEqual(body);
  });
});

describe('bedrock-converse answers', () => {
  it('usage: cache reads and writes are part of the prompt, writes split by TTL', () => {
    const answer = converse.parseResponse({
      output: { message: { role: 'assistant', content: [{ text: 'ok' }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 14, outputTokens: 31, cacheReadInputTokens: 1800, cacheWriteInputTokens: 1520, cacheDetails: [{ ttl: '1h', inputTokens: 1200 }, { ttl: '5m', inputTokens: 320 }] },
    });
    expect(answer.usage).toEqual({ prompt_tokens: 3334, completion_tokens: 31, cached_tokens: 1800, cache_write_tokens: 320, cache_write_1h_tokens: 1200 });
    const written = converse.writeResponse(answer, { id: 'x', model: 'm', created: 0, includeUsage: true });
    expect((written as { usage: unknown }).usage).toEqual({ inputTokens: 14, outputTokens: 31, totalTokens: 3365, cacheReadInputTokens: 1800, cacheWriteInputTokens: 1520, cacheDetails: [{ ttl: '1h', inputTokens: 1200 }, { ttl: '5m', inputTokens: 320 }] });
    // Writes without details are 5-minute writes; totals that are not counts are marked for the gateway to count (issue 19).
    expect(converse.parseResponse({ usage: { inputTokens: -3, outputTokens: 'x', cacheWriteInputTokens: 10 } }).usage).toEqual({
      prompt_tokens: 0,
      completion_tokens: 0,
      cache_write_tokens: 10,
      unreported: { prompt: 'malformed', completion: 'malformed' },
    });
  });

  it('stop reasons map both ways', () => {
    const finish = (stopReason: string) => converse.parseResponse({ output: { message: { content: [] } }, stopReason }).finishReason;
    expect(['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'guardrail_intervened', 'content_filtered', 'model_context_window_exceeded'].map(finish)).toEqual(['stop', 'tool_calls', 'length', 'stop', 'content_filter', 'content_filter', 'length']);
  });

  it("reads the AWS SDKs' JSON form of stream events too, and an exception event ends the stream", () => {
    const reader = converse.createStreamReader();
    const parts = [
      { data: JSON.stringify({ messageStart: { role: 'assistant' } }) },
      { data: JSON.stringify({ contentBlockStart: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 't1', name: 'get_weather' } } } }) },
      { data: JSON.stringify({ contentBlockDelta: { contentBlockIndex: 0, delta: { toolUse: { input: '{"city":"Paris"}' } } } }) },
      { data: JSON.stringify({ messageStop: { stopReason: 'tool_use' } }) },
      { data: JSON.stringify({ metadata: { usage: { inputTokens: 5, outputTokens: 7 } } }) },
    ].flatMap((frame) => reader.read(frame));
    expect(collectStream(parts)).toMatchObject({ content: [{ type: 'tool_call', id: 't1', name: 'get_weather', arguments: '{"city":"Paris"}' }], finishReason: 'tool_calls', usage: { prompt_tokens: 5, completion_tokens: 7 } });
    expect(() => reader.read({ event: 'modelStreamErrorException', data: '{"message":"model failed","originalStatusCode":500}' })).toThrow(new UpstreamStreamError('modelStreamErrorException: model failed'));
    expect(() => reader.read({ data: '{"throttlingException":{"message":"slow down"}}' })).toThrow(UpstreamStreamError);
  });

  it('the stream writer opens a block per kind of content and closes with messageStop and metadata', () => {
    const writer = converse.createStreamWriter({ id: 'x', model: 'm', created: 0, includeUsage: true });
    const text =
      writer.write({ type: 'reasoning', text: 'think', signature: 'sig' }) +
      writer.write({ type: 'text', text: 'Hi' }) +
      writer.write({ type: 'tool_call', index: 3, id: 't1', name: 'f' }) +
      writer.write({ type: 'tool_call_delta', index: 3, arguments: '{}' }) +
      writer.write({ type: 'usage', usage: { prompt_tokens: 1, completion_tokens: 2 } }) +
      writer.end();
    const events = [...text.matchAll(/^event: (\w+)\ndata: (.*)$/gm)].map((m) => [m[1], JSON.parse(m[2])]);
    expect(events).toEqual([
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'think' } } }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sig' } } }],
      ['contentBlockStop', { contentBlockIndex: 0 }],
      ['contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Hi' } }],
      ['contentBlockStop', { contentBlockIndex: 1 }],
      ['contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 't1', name: 'f' } } }],
      ['contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{}' } } }],
      ['contentBlockStop', { contentBlockIndex: 2 }],
      ['messageStop', { stopReason: 'tool_use' }],
      ['metadata', { usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }, metrics: { latencyMs: 0 } }],
    ]);
    expect(writer.error('broken')).toBe('event: internalServerException\ndata: {"message":"broken"}\n\n');
  });
});
