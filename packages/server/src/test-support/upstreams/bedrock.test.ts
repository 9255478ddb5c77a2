import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  CountTokensCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { Hash } from '@smithy/core/serde';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bedrockApiKey, bedrockCredentials, startMockBedrock, type MockBedrock } from './bedrock.js';
import { fixtures } from './fixtures.js';

// Self-test of the Bedrock mock with the official @aws-sdk/client-bedrock-runtime: the SDK signs every request with
// SigV4 and parses event-stream frames, so passing here proves the mock's signature check and framing are real.
// The client defaults to HTTP/2 (which Bedrock offers over TLS); the mock is plain HTTP/1.1 on loopback, like the
// relay's undici pools, so the SDK gets its HTTP/1.1 handler.
const fx = fixtures('bedrock');
const anthropic = fixtures('anthropic');
const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
let mock: MockBedrock;

const client = (mode: Parameters<typeof bedrockCredentials>[0] = 'ok', credentials = bedrockCredentials(mode)) =>
  new BedrockRuntimeClient({ region: 'us-east-1', endpoint: mock.url, credentials, maxAttempts: 1, requestHandler: new NodeHttpHandler() });
const withoutPadding = ({ p: _p, ...rest }: Record<string, any>) => rest;

async function collect(stream: AsyncIterable<ConverseStreamOutput> | undefined) {
  const events: Array<[string, any]> = [];
  for await (const event of stream!) {
    const [name] = Object.keys(event).filter((k) => k !== '$unknown');
    events.push([name, (event as any)[name]]);
  }
  return events;
}

beforeAll(async () => {
  mock = await startMockBedrock();
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.requests.length = 0;
});

describe('Converse and ConverseStream through the AWS SDK', () => {
  it('Converse answers the recorded text; the model id is URL-encoded in the path and the request SigV4-signed', async () => {
    const out = await client().send(new ConverseCommand({ modelId: CLAUDE, ...fx.json('text.request.json') }));
    const { $metadata: _meta, ...response } = out;
    expect(response).toEqual(fx.json('text.response.json'));
    const [sent] = mock.requests;
    expect(sent.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse');
    expect(String(sent.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=ok\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=.*host.*x-amz-date.*, Signature=[0-9a-f]{64}$/);
    expect(sent.body).toEqual(fx.json('text.request.json'));
  });

  it('ConverseStream decodes the recorded frames in order, usage in the metadata event', async () => {
    const out = await client().send(new ConverseStreamCommand({ modelId: CLAUDE, ...fx.json('text.request.json') }));
    const events = await collect(out.stream);
    const recorded = (fx.json('text.stream.frames.json') as any[]).map((f) => [f.headers[':event-type'], withoutPadding(f.payload)]);
    expect(events.map(([name, body]) => [name, withoutPadding(body)])).toEqual(recorded);
    expect(mock.requests[0].path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream');
  });

  it('streams tool arguments as toolUse input deltas; the tool result gets the final answer', async () => {
    const events = await collect((await client().send(new ConverseStreamCommand({ modelId: CLAUDE, ...fx.json('tools.request.json') }))).stream);
    expect(events.find(([n, e]) => n === 'contentBlockStart' && e.start.toolUse)?.[1].start.toolUse).toMatchObject({ name: 'get_weather' });
    const input = events.filter(([n, e]) => n === 'contentBlockDelta' && e.delta.toolUse).map(([, e]) => e.delta.toolUse.input);
    expect(input).toEqual(['{"city": ', '"Paris"}']);
    expect(events.find(([n]) => n === 'messageStop')?.[1].stopReason).toBe('tool_use');
    const answer = await client().send(new ConverseCommand({ modelId: CLAUDE, ...fx.json('tool-result.request.json') }));
    expect(answer.output?.message?.content?.[0].text).toBe("It's 15°C and partly cloudy in Paris.");
  });

  it('reasons with thinking on; with tools the reasoning block must come back unchanged', async () => {
    const reasoning = await client().send(new ConverseCommand({ modelId: CLAUDE, ...fx.json('reasoning.request.json') }));
    expect(reasoning.output?.message?.content?.[0].reasoningContent?.reasoningText?.text).toMatch(/^Split 453/);
    const events = await collect((await client().send(new ConverseStreamCommand({ modelId: CLAUDE, ...fx.json('reasoning.request.json') }))).stream);
    expect(events.filter(([n, e]) => n === 'contentBlockDelta' && e.delta.reasoningContent).map(([, e]) => Object.keys(e.delta.reasoningContent)[0])).toEqual(['text', 'text', 'signature']);

    const request = { ...fx.json('tools.request.json'), inferenceConfig: { maxTokens: 4096 }, additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: 2048 } } };
    const call = await client().send(new ConverseCommand({ modelId: CLAUDE, ...request }));
    const content = call.output!.message!.content!;
    expect(content.map((b) => Object.keys(b).find((k) => k !== '$unknown'))).toEqual(['reasoningContent', 'text', 'toolUse']);
    const toolUseId = content[2].toolUse!.toolUseId!;
    const next = (assistant: unknown[]) => ({ ...request, messages: [request.messages[0], { role: 'assistant', content: assistant }, { role: 'user', content: [{ toolResult: { toolUseId, content: [{ text: '15°C' }] } }] }] });
    expect((await client().send(new ConverseCommand({ modelId: CLAUDE, ...next(content) } as any))).stopReason).toBe('end_turn');
    await expect(client().send(new ConverseCommand({ modelId: CLAUDE, ...next(content.slice(1)) } as any))).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringMatching(/Expected `thinking` or `redacted_thinking`, but found `text`/) });
  });

  it('reports cache reads and writes with the 5-minute / 1-hour split', async () => {
    const out = await client().send(new ConverseCommand({ modelId: CLAUDE, ...fx.json('cache.request.json') }));
    expect(out.usage).toEqual(fx.json('cache.response.json').usage);
    expect(out.usage).toMatchObject({ cacheReadInputTokens: 1800, cacheWriteInputTokens: 1520, cacheDetails: [{ ttl: '1h', inputTokens: 1200 }, { ttl: '5m', inputTokens: 320 }] });
  });

  it('serves another family (Amazon Nova) and images through Converse; counts tokens', async () => {
    const nova = await client().send(new ConverseCommand({ modelId: 'us.amazon.nova-lite-v1:0', ...fx.json('nova-text.request.json') }));
    expect(nova.usage).toEqual(fx.json('nova-text.response.json').usage);
    const image = fx.json('image.request.json');
    image.messages[0].content[0].image.source.bytes = Buffer.from(image.messages[0].content[0].image.source.bytes, 'base64');
    expect((await client().send(new ConverseCommand({ modelId: CLAUDE, ...image }))).output?.message?.content?.[0].text).toBe('A single red pixel.');
    const count = await client().send(new CountTokensCommand({ modelId: CLAUDE, input: { converse: fx.json('text.request.json') } }));
    expect(count.inputTokens).toBe(12);
  });
});

describe('InvokeModel for Claude through the AWS SDK', () => {
  it('InvokeModel returns the Anthropic body with Bedrock ids and token-count headers', async () => {
    const out = await client().send(new InvokeModelCommand({ modelId: CLAUDE, contentType: 'application/json', accept: 'application/json', body: JSON.stringify(fx.json('invoke-text.request.json')) }));
    expect(JSON.parse(Buffer.from(out.body).toString())).toEqual(fx.json('invoke-text.response.json'));
    const res = await fetchSigned(`/model/${encodeURIComponent(CLAUDE)}/invoke`, fx.json('invoke-text.request.json'));
    expect(res.headers.get('x-amzn-bedrock-input-token-count')).toBe('12');
    expect(res.headers.get('x-amzn-bedrock-output-token-count')).toBe('12');
  });

  it('InvokeModelWithResponseStream sends the recorded chunk frames (base64 Anthropic events)', async () => {
    for (const name of ['text', 'tools']) {
      const out = await client().send(new InvokeModelWithResponseStreamCommand({ modelId: CLAUDE, contentType: 'application/json', body: JSON.stringify(fx.json(`invoke-${name}.request.json`)) }));
      const chunks: string[] = [];
      for await (const event of out.body!) chunks.push(Buffer.from(event.chunk!.bytes!).toString('base64'));
      expect(chunks).toEqual(fx.json(`invoke-${name}.stream.frames.json`).map((f: any) => f.payload.bytes));
    }
    const events = fx.json('invoke-tools.stream.frames.json').map((f: any) => JSON.parse(Buffer.from(f.payload.bytes, 'base64').toString()));
    expect(events.map((e: any) => e.type)).toEqual(anthropicTypes('tools'));
    expect(events.at(-1)['amazon-bedrock-invocationMetrics']).toMatchObject({ inputTokenCount: 389, outputTokenCount: 58 });
  });

  it('refuses the model and stream keys in the body, as Bedrock does', async () => {
    await expect(client().send(new InvokeModelCommand({ modelId: CLAUDE, body: JSON.stringify({ ...fx.json('invoke-text.request.json'), model: 'claude' }) }))).rejects.toMatchObject({
      name: 'ValidationException',
      message: 'Malformed input request: #: extraneous key [model] is not permitted, please reformat your input and try again.',
    });
  });
});

function anthropicTypes(name: string): string[] {
  return anthropic
    .text(`${name}.stream.txt`)
    .split('\n')
    .filter((l) => l.startsWith('event: '))
    .map((l) => l.slice(7));
}

async function fetchSigned(path: string, body: unknown, { secret = bedrockCredentials('ok').secretAccessKey, tamper = false, region = 'us-east-1', service = 'bedrock' } = {}) {
  const url = new URL(mock.url + path);
  const payload = JSON.stringify(body);
  const signer = new SignatureV4({ service, region, credentials: { accessKeyId: 'ok', secretAccessKey: secret }, sha256: Hash.bind(null, 'sha256'), uriEscapePath: true });
  const signed = await signer.sign({ method: 'POST', protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: url.pathname, headers: { host: url.host, 'content-type': 'application/json' }, body: payload });
  return fetch(url, { method: 'POST', headers: signed.headers, body: tamper ? payload.replace('Hello', 'Hullo') : payload });
}

describe('SigV4 and validation', () => {
  const path = `/model/${encodeURIComponent(CLAUDE)}/converse`;
  it('accepts a correct signature; a wrong secret or an altered body is 403 InvalidSignatureException', async () => {
    expect((await fetchSigned(path, fx.json('text.request.json'))).status).toBe(200);
    for (const res of [await fetchSigned(path, fx.json('text.request.json'), { secret: 'not-the-secret' }), await fetchSigned(path, fx.json('text.request.json'), { tamper: true })]) {
      expect(res.status).toBe(403);
      expect(res.headers.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);
      expect(await res.json()).toEqual(fx.json('errors.json').signature_mismatch.body);
    }
    const wrongService = await fetchSigned(path, fx.json('text.request.json'), { service: 'sagemaker' });
    expect(await wrongService.json()).toEqual({ message: "Credential should be scoped to correct service: 'bedrock'. " });
  });

  it('the SDK with a wrong secret or an unknown access key gets the AWS errors', async () => {
    await expect(client('ok', { accessKeyId: 'ok', secretAccessKey: 'wrong' }).send(new ConverseCommand({ modelId: CLAUDE, ...fx.json('text.request.json') }))).rejects.toMatchObject({ name: 'InvalidSignatureException', $metadata: { httpStatusCode: 403 } });
    await expect(client('ok', { accessKeyId: 'AKIAUNKNOWN', secretAccessKey: 'x' }).send(new ConverseCommand({ modelId: CLAUDE, ...fx.json('text.request.json') }))).rejects.toMatchObject({ name: 'UnrecognizedClientException' });
    const unsigned = await fetch(mock.url + path, { method: 'POST', body: '{}' });
    expect([unsigned.status, await unsigned.json()]).toEqual([403, { message: 'Missing Authentication Token' }]);
  });

  it('a Bedrock API key works as a bearer token', async () => {
    const res = await fetch(mock.url + path, { method: 'POST', headers: { authorization: `Bearer ${bedrockApiKey('ok')}`, 'content-type': 'application/json' }, body: JSON.stringify(fx.json('text.request.json')) });
    expect(res.status).toBe(200);
  });

  it('refuses what Converse refuses', async () => {
    const send = (request: Record<string, any>, modelId = CLAUDE) => client().send(new ConverseCommand({ modelId, ...request }));
    const text = fx.json('text.request.json');
    const cases: Array<[Promise<unknown>, string]> = [
      [send({ ...text, messages: [{ role: 'assistant', content: [{ text: 'Hi' }] }] }), 'A conversation must start with a user message. Try again with a conversation that starts with a user message.'],
      [send({ ...text, messages: [text.messages[0], text.messages[0]] }), 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.'],
      [send({ ...fx.json('tool-result.request.json'), toolConfig: undefined }), 'The toolConfig field must be defined when using toolUse and toolResult content blocks.'],
      [send({ ...text, messages: [{ role: 'user', content: [{ text: ' ' }] }] }), 'The text field in the ContentBlock object at messages.0.content.0 is blank. Add text to the text field, and try again.'],
      [send(text, 'anthropic.claude-sonnet-4-5-20250929-v1:0'), 'Invocation of model ID anthropic.claude-sonnet-4-5-20250929-v1:0 with on-demand throughput isn’t supported. Retry your request with the ID or ARN of an inference profile that contains this model.'],
      [send(text, 'acme.model-v1'), 'The provided model identifier is invalid.'],
      [client().send(new ConverseStreamCommand({ modelId: 'meta.llama3-1-8b-instruct-v1:0', ...fx.json('tools.request.json') })), "This model doesn't support tool use in streaming mode."],
    ];
    for (const [promise, message] of cases) await expect(promise).rejects.toMatchObject({ name: 'ValidationException', message });
  });

  it('failure modes: throttling, and streams that break or end with an exception frame', async () => {
    await expect(client('fail-429').send(new ConverseCommand({ modelId: CLAUDE, ...fx.json('text.request.json') }))).rejects.toMatchObject({ name: 'ThrottlingException', $metadata: { httpStatusCode: 429 } });
    const streamOf = async (mode: 'break' | 'stream-error') => collect((await client(mode).send(new ConverseStreamCommand({ modelId: CLAUDE, ...fx.json('text.request.json') }))).stream);
    await expect(streamOf('stream-error')).rejects.toMatchObject({ name: 'ThrottlingException' });
    await expect(streamOf('break')).rejects.toThrow();
  });

  it('a signature scoped to another region is refused when the mock serves one region', async () => {
    const west = await startMockBedrock({ region: 'us-west-2' });
    try {
      const east = new BedrockRuntimeClient({ region: 'us-east-1', endpoint: west.url, credentials: bedrockCredentials('ok'), maxAttempts: 1, requestHandler: new NodeHttpHandler() });
      await expect(east.send(new ConverseCommand({ modelId: CLAUDE, ...fx.json('text.request.json') }))).rejects.toMatchObject({ name: 'InvalidSignatureException', message: 'Credential should be scoped to a valid region. ' });
    } finally {
      await west.close();
    }
  });
});
