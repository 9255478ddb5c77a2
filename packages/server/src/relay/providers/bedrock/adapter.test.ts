import { describe, expect, it } from 'vitest';
import type { BuildInput, ChannelTarget } from '../types.js';
import { bedrockAdapter, classifyBedrockError, unwrapInvokeChunk } from './adapter.js';
import { invokeModelBody } from './invoke-body.js';
import { bedrockModelId } from './model-ids.js';

const channel = (region: string, baseUrl = ''): ChannelTarget => ({
  type: 33,
  baseUrl,
  key: `AK|SK|${region}`,
  other: '',
  config: {},
  credentials: { kind: 'aws', accessKeyId: 'AK', secretAccessKey: 'SK', region },
});
const input = (fields: Partial<BuildInput>): BuildInput => ({
  endpoint: 'chat',
  dialect: 'bedrock-converse',
  channel: channel('us-east-1'),
  model: 'amazon.nova-lite-v1:0',
  stream: false,
  body: { messages: [] },
  path: '/v1/chat/completions',
  ...fields,
});

describe('Bedrock adapter', () => {
  it('speaks Anthropic then Converse for Claude, Converse for every other family; chat only', () => {
    expect(bedrockAdapter.dialects(channel('us-east-1'), 'claude-3-7-sonnet-20250219')).toEqual(['anthropic', 'bedrock-converse']);
    expect(bedrockAdapter.dialects(channel('us-east-1'), 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toEqual(['anthropic', 'bedrock-converse']);
    expect(bedrockAdapter.dialects(channel('us-east-1'), 'meta.llama3-8b-instruct-v1:0')).toEqual(['bedrock-converse']);
    expect(bedrockAdapter.supports('embeddings')).toBe(false);
  });

  it("calls the region's runtime endpoint (or the channel's base URL) with the model id encoded in the path, to be SigV4-signed", () => {
    const converse = bedrockAdapter.build(input({ stream: true }));
    expect(converse).toMatchObject({
      url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-lite-v1%3A0/converse-stream',
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/vnd.amazon.eventstream' },
      body: '{"messages":[]}',
      sign: { scheme: 'aws-sigv4', service: 'bedrock' },
    });
    const arn = 'arn:aws:bedrock:eu-west-1:123456789012:application-inference-profile/abc123';
    expect(bedrockAdapter.build(input({ channel: channel('eu-west-1', 'http://127.0.0.1:9'), model: arn })).url).toBe(`http://127.0.0.1:9/model/${encodeURIComponent(arn)}/converse`);
  });

  it('Claude through InvokeModel: bedrock-2023-05-31, no model or stream, betas Bedrock knows', () => {
    const request = bedrockAdapter.build(
      input({
        dialect: 'anthropic',
        model: 'claude-sonnet-4-5-20250929',
        channel: channel('eu-central-1'),
        stream: true,
        body: { model: 'claude-sonnet-4-5-20250929', stream: true, max_tokens: 10, metadata: { user_id: 'u' }, container: 'c', messages: [{ role: 'user', content: 'hi' }] },
        forwardHeaders: { 'anthropic-beta': 'claude-code-20250219, interleaved-thinking-2025-05-14,context-1m-2025-08-07' },
      }),
    );
    expect(request.url).toBe('https://bedrock-runtime.eu-central-1.amazonaws.com/model/eu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream');
    expect(JSON.parse(request.body as string)).toEqual({ anthropic_version: 'bedrock-2023-05-31', anthropic_beta: ['interleaved-thinking-2025-05-14', 'context-1m-2025-08-07'], max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(invokeModelBody({ anthropic_beta: ['oauth-2025-04-20'], max_tokens: 1, messages: [] })).toEqual({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 1, messages: [] });
  });

  it('maps Claude names to Bedrock ids, with the inference profile of the region where Claude needs one', () => {
    expect(bedrockModelId('claude-3-haiku-20240307', 'us-east-1')).toBe('anthropic.claude-3-haiku-20240307-v1:0');
    expect(bedrockModelId('claude-3-5-sonnet-20241022', 'us-west-2')).toBe('anthropic.claude-3-5-sonnet-20241022-v2:0');
    expect(bedrockModelId('claude-3-7-sonnet-20250219', 'us-west-2')).toBe('us.anthropic.claude-3-7-sonnet-20250219-v1:0');
    expect(bedrockModelId('anthropic.claude-opus-4-1-20250805-v1:0', 'ap-northeast-1')).toBe('apac.anthropic.claude-opus-4-1-20250805-v1:0');
    expect(bedrockModelId('claude-haiku-4-5', 'us-gov-west-1')).toBe('us-gov.anthropic.claude-haiku-4-5-20251001-v1:0');
    expect(bedrockModelId('global.anthropic.claude-sonnet-4-5-20250929-v1:0', 'eu-west-1')).toBe('global.anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(bedrockModelId('meta.llama3-8b-instruct-v1:0', 'us-east-1')).toBe('meta.llama3-8b-instruct-v1:0');
  });

  it("unwraps InvokeModel's base64 chunk frames into the model's own events; Converse frames are the events", () => {
    const event = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}';
    expect(unwrapInvokeChunk({ event: 'chunk', data: JSON.stringify({ bytes: Buffer.from(event).toString('base64'), p: 'abc' }) })).toEqual({ event: 'content_block_delta', data: event });
    expect(unwrapInvokeChunk({ event: 'chunk', data: '{"p":"abc"}' })).toBeUndefined();
    const converse = { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"Hi"}}' };
    expect(unwrapInvokeChunk(converse)).toBe(converse);
  });

  it('a quota exceeded (400) is worth another channel; a body without a message still gets a readable one', () => {
    expect(classifyBedrockError(400, '{"message":"Your request exceeds the service quota for your account."}')).toMatchObject({ retry: true, disableChannel: false });
    expect(classifyBedrockError(424, '{"message":"The model failed"}')).toMatchObject({ retry: true, disableChannel: false });
    expect(classifyBedrockError(403, '{"Message":"User is not authorized"}')).toEqual({ retry: true, disableChannel: true, message: 'User is not authorized' });
    expect(classifyBedrockError(502, '{}').message).toBe('upstream returned HTTP 502');
  });
});
