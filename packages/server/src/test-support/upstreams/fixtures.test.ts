import { EventStreamCodec } from '@smithy/core/event-streams';
import { fromUtf8, Hash, toUtf8 } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import { createSign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockAnthropic } from './anthropic.js';
import { bedrockCredentials, startMockBedrock } from './bedrock.js';
import { fixtures, parseSse } from './fixtures.js';
import { startMockGemini } from './gemini.js';
import type { MockHandle } from './mock-server.js';
import { startMockVertex, type MockVertex } from './vertex.js';

// The recorded fixtures and the mocks must never disagree: every scenario's request, sent to its mock, comes back
// exactly as recorded (non-stream and stream, byte for byte), and every recorded stream adds up to its non-stream
// answer (text, tool arguments, thinking, usage).
const SCENARIOS = ['text', 'tools', 'tool-result', 'image', 'reasoning', 'cache'];
let anthropic: MockHandle;
let gemini: MockHandle;
let vertex: MockVertex;
let bedrock: MockHandle;
let vertexToken: string;

async function post(url: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

beforeAll(async () => {
  [anthropic, gemini, vertex, bedrock] = await Promise.all([startMockAnthropic(), startMockGemini(), startMockVertex(), startMockBedrock()]);
  const key = vertex.serviceAccount();
  const now = Math.floor(Date.now() / 1000);
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const head = `${enc({ alg: 'RS256', typ: 'JWT' })}.${enc({ iss: key.client_email, scope: 'https://www.googleapis.com/auth/cloud-platform', aud: key.token_uri, iat: now, exp: now + 3600 })}`;
  const jwt = `${head}.${createSign('RSA-SHA256').update(head).sign(key.private_key).toString('base64url')}`;
  const res = await fetch(vertex.tokenUri, { method: 'POST', body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: jwt }) });
  vertexToken = ((await res.json()) as { access_token: string }).access_token;
});
afterAll(() => Promise.all([anthropic, gemini, vertex, bedrock].map((m) => m.close())));

describe('Anthropic fixtures', () => {
  const fx = fixtures('anthropic');
  const headers = { 'x-api-key': 'ok', 'anthropic-version': '2023-06-01' };
  for (const name of [...SCENARIOS, 'web-search']) {
    it(`${name}: the mock answers the recorded response and stream; the stream adds up to the response`, async () => {
      const request = fx.json(`${name}.request.json`);
      const plain = await post(`${anthropic.url}/v1/messages`, request, headers);
      expect(JSON.parse(plain.bytes.toString())).toEqual(fx.json(`${name}.response.json`));
      const streamed = await post(`${anthropic.url}/v1/messages`, { ...request, stream: true }, headers);
      expect(streamed.bytes.toString()).toBe(fx.text(`${name}.stream.txt`));
      expect(rebuildClaude(parseSse(fx.text(`${name}.stream.txt`)).map((e) => e.data))).toEqual(fx.json(`${name}.response.json`));
    });
  }
});

/** Folds Anthropic stream events into the Message they describe. */
function rebuildClaude(events: any[]) {
  const start = events[0];
  expect(start.type).toBe('message_start');
  for (const e of events) if (e.type !== 'ping') expect(e.type in { message_start: 1, content_block_start: 1, content_block_delta: 1, content_block_stop: 1, message_delta: 1, message_stop: 1 }).toBe(true);
  expect(events.at(-1).type).toBe('message_stop');
  const message = structuredClone(start.message);
  const json: Record<number, string> = {};
  for (const e of events) {
    if (e.type === 'content_block_start') message.content[e.index] = structuredClone(e.content_block);
    if (e.type === 'content_block_delta') {
      const block = message.content[e.index];
      if (e.delta.type === 'text_delta') block.text += e.delta.text;
      if (e.delta.type === 'thinking_delta') block.thinking += e.delta.thinking;
      if (e.delta.type === 'signature_delta') block.signature = e.delta.signature;
      if (e.delta.type === 'citations_delta') (block.citations ??= []).push(e.delta.citation);
      if (e.delta.type === 'input_json_delta') json[e.index] = (json[e.index] ?? '') + e.delta.partial_json;
    }
    if (e.type === 'content_block_stop' && json[e.index] !== undefined) message.content[e.index].input = JSON.parse(json[e.index]);
    if (e.type === 'message_delta') {
      Object.assign(message, e.delta);
      Object.assign(message.usage, e.usage);
    }
  }
  return message;
}

describe('Gemini and Vertex (Gemini) fixtures', () => {
  for (const provider of ['gemini', 'vertex'] as const) {
    const fx = fixtures(provider);
    for (const name of [...SCENARIOS, 'draw']) {
      it(`${provider} ${name}: generateContent, SSE and JSON-array streams as recorded; the chunks add up to the response`, async () => {
        // An answer with a drawn image comes from an image model.
        const model = name === 'draw' ? 'gemini-2.5-flash-image' : 'gemini-2.5-flash';
        const base =
          provider === 'gemini' ? `${gemini.url}/v1beta/models/${model}` : `${vertex.url}/v1/projects/relay-test-project/locations/us-central1/publishers/google/models/${model}`;
        const headers: Record<string, string> = provider === 'gemini' ? { 'x-goog-api-key': 'ok' } : { authorization: `Bearer ${vertexToken}` };
        const request = fx.json(`${name}.request.json`);
        expect(JSON.parse((await post(`${base}:generateContent`, request, headers)).bytes.toString())).toEqual(fx.json(`${name}.response.json`));
        expect((await post(`${base}:streamGenerateContent?alt=sse`, request, headers)).bytes.toString()).toBe(fx.text(`${name}.stream.txt`));
        expect((await post(`${base}:streamGenerateContent`, request, headers)).bytes.toString()).toBe(fx.text(`${name}.stream.json`));
        const chunks = JSON.parse(fx.text(`${name}.stream.json`));
        expect(chunks).toEqual(parseSse(fx.text(`${name}.stream.txt`)).map((e) => e.data));
        const response = fx.json(`${name}.response.json`);
        const joined = joinParts(chunks.flatMap((c: any) => c.candidates[0].content.parts));
        expect(joined).toEqual(response.candidates[0].content.parts);
        expect(chunks.at(-1).usageMetadata).toEqual(response.usageMetadata);
        expect(chunks.at(-1).candidates[0].finishReason).toBe(response.candidates[0].finishReason);
      });
    }
  }
});

/** Streamed Gemini parts of the same kind follow each other; join consecutive text parts of one kind. */
function joinParts(parts: any[]) {
  const out: any[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (last && part.text !== undefined && last.text !== undefined && Boolean(last.thought) === Boolean(part.thought) && !last.thoughtSignature) {
      last.text += part.text;
      if (part.thoughtSignature) last.thoughtSignature = part.thoughtSignature;
    } else out.push({ ...part });
  }
  return out;
}

describe('Vertex (Claude) fixtures', () => {
  const fx = fixtures('vertex');
  for (const name of ['text', 'tools']) {
    it(`claude-${name}: rawPredict and streamRawPredict answer as recorded`, async () => {
      const base = `${vertex.url}/v1/projects/relay-test-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929`;
      const headers = { authorization: `Bearer ${vertexToken}` };
      const request = fx.json(`claude-${name}.request.json`);
      expect(JSON.parse((await post(`${base}:rawPredict`, request, headers)).bytes.toString())).toEqual(fx.json(`claude-${name}.response.json`));
      expect((await post(`${base}:streamRawPredict`, { ...request, stream: true }, headers)).bytes.toString()).toBe(fx.text(`claude-${name}.stream.txt`));
    });
  }
});

describe('Bedrock fixtures', () => {
  const fx = fixtures('bedrock');
  const signed = async (operation: string, body: unknown, modelId: string) => {
    const url = new URL(`${bedrock.url}/model/${encodeURIComponent(modelId)}/${operation}`);
    const payload = JSON.stringify(body);
    const signer = new SignatureV4({ service: 'bedrock', region: 'us-east-1', credentials: bedrockCredentials('ok'), sha256: Hash.bind(null, 'sha256'), uriEscapePath: true });
    const request = await signer.sign({ method: 'POST', protocol: 'http:', hostname: url.hostname, path: url.pathname, headers: { host: url.host, 'content-type': 'application/json' }, body: payload });
    return post(url.toString(), payload, request.headers);
  };
  const decode = (bytes: Buffer) => {
    const codec = new EventStreamCodec(toUtf8, fromUtf8);
    const frames = [];
    // Each frame starts with its total length (prelude, big-endian uint32).
    for (let at = 0; at < bytes.length; at += bytes.readUInt32BE(at)) {
      const m = codec.decode(bytes.subarray(at, at + bytes.readUInt32BE(at)));
      frames.push({ headers: Object.fromEntries(Object.entries(m.headers).map(([k, v]) => [k, v.value])), payload: JSON.parse(toUtf8(m.body)) });
    }
    return frames;
  };
  for (const name of [...SCENARIOS, 'nova-text']) {
    it(`${name}: Converse and ConverseStream answer as recorded; the frames add up to the response`, async () => {
      const modelId = name === 'nova-text' ? 'us.amazon.nova-lite-v1:0' : 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
      const request = fx.json(`${name}.request.json`);
      expect(JSON.parse((await signed('converse', request, modelId)).bytes.toString())).toEqual(fx.json(`${name}.response.json`));
      const frames = decode((await signed('converse-stream', request, modelId)).bytes);
      expect(frames).toEqual(fx.json(`${name}.stream.frames.json`));
      const response = fx.json(`${name}.response.json`);
      const content: any[] = [];
      for (const { headers, payload } of frames) {
        const i = payload.contentBlockIndex;
        if (headers[':event-type'] === 'contentBlockStart') content[i] = { toolUse: { ...payload.start.toolUse, input: '' } };
        if (headers[':event-type'] === 'contentBlockDelta') {
          const d = payload.delta;
          if (d.text !== undefined) content[i] = { text: (content[i]?.text ?? '') + d.text };
          if (d.toolUse) content[i].toolUse.input += d.toolUse.input;
          if (d.reasoningContent?.text !== undefined) content[i] = { reasoningContent: { reasoningText: { text: (content[i]?.reasoningContent.reasoningText.text ?? '') + d.reasoningContent.text } } };
          if (d.reasoningContent?.signature) content[i].reasoningContent.reasoningText.signature = d.reasoningContent.signature;
        }
        if (headers[':event-type'] === 'contentBlockStop' && content[i].toolUse) content[i].toolUse.input = JSON.parse(content[i].toolUse.input);
      }
      expect(content).toEqual(response.output.message.content);
      expect(frames.at(-1)!.payload.usage).toEqual(response.usage);
    });
  }
  for (const name of ['text', 'tools']) {
    it(`invoke-${name}: InvokeModel and InvokeModelWithResponseStream answer as recorded`, async () => {
      const request = fx.json(`invoke-${name}.request.json`);
      expect(JSON.parse((await signed('invoke', request, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).bytes.toString())).toEqual(fx.json(`invoke-${name}.response.json`));
      expect(decode((await signed('invoke-with-response-stream', request, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0')).bytes)).toEqual(fx.json(`invoke-${name}.stream.frames.json`));
    });
  }
});
