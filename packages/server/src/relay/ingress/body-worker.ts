/**
 * The body worker's thread (see large-json.ts): holds large client bodies, parsed here, and answers what the
 * relay asks of them, so that neither parsing nor translating a many-megabyte body stops the event loop.
 *   { op: 'open', handle, bytes, reading, defaultModel } -> { facts, problem, background } | { error }
 *   { op: 'prompt', handle, reading } -> { text }
 *   { op: 'build', handle, spec } -> { request } (its body's bytes transferred) | { error }
 *   { op: 'close', handle }
 */
import { parentPort } from 'node:worker_threads';
import secureJson from 'secure-json-parse';
import { MAX_JSON_DEPTH, jsonNestedDeeperThan } from '../../http/body-limits.js';
import type { ChatRequest } from '../canonical.js';
import { isRecord } from '../dialects/shared.js';
import { buildUpstream, type UpstreamSpec } from '../pipeline/build-upstream.js';
import { RelayError } from '../relay-error.js';
import { readFacts, type Reading } from './read-facts.js';

type Message =
  | { id: number; op: 'open'; handle: number; bytes: Uint8Array; reading: Reading; defaultModel?: string }
  | { id: number; op: 'prompt'; handle: number; reading: Reading }
  | { id: number; op: 'build'; handle: number; spec: UpstreamSpec }
  | { id: number; op: 'close'; handle: number };

const bodies = new Map<number, { body: Record<string, unknown>; canonical: { request?: ChatRequest } }>();

function held(handle: number) {
  const entry = bodies.get(handle);
  if (!entry) throw new RelayError(500, '请求体已释放');
  return entry;
}

function answer(message: Message): { result: unknown; transfer?: ArrayBuffer[] } {
  switch (message.op) {
    case 'open': {
      const text = Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength).toString('utf8');
      if (jsonNestedDeeperThan(text, MAX_JSON_DEPTH)) throw new RelayError(400, `请求体嵌套层级过深（最多 ${MAX_JSON_DEPTH} 层）`);
      let body: unknown;
      try {
        body = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'ignore' });
      } catch {
        throw new RelayError(400, '请求体不是合法的 JSON');
      }
      if (!isRecord(body)) throw new RelayError(400, '请求体必须是 JSON 对象');
      if (message.defaultModel && !(typeof body.model === 'string' && body.model)) body.model = message.defaultModel;
      const { facts, problem } = readFacts(body, message.reading);
      bodies.set(message.handle, { body, canonical: {} });
      const { promptText: _text, ...data } = facts;
      return { result: { facts: data, problem, background: body.background === true } };
    }
    case 'prompt': {
      const { facts } = readFacts(held(message.handle).body, message.reading);
      return { result: { text: facts.promptText() } };
    }
    case 'build': {
      const entry = held(message.handle);
      const request = buildUpstream(entry.body, message.spec, entry.canonical);
      const bytes = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
      // The bytes go to the main thread without a copy when they own their memory (large buffers are not pooled).
      const whole = bytes && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const owned = bytes ? (whole ? new Uint8Array(bytes.buffer, 0, bytes.byteLength) : new Uint8Array(bytes)) : undefined;
      return { result: { request: { ...request, body: owned } }, transfer: owned ? [owned.buffer as ArrayBuffer] : [] };
    }
    case 'close':
      bodies.delete(message.handle);
      return { result: {} };
  }
}

parentPort!.on('message', (message: Message) => {
  try {
    const { result, transfer } = answer(message);
    parentPort!.postMessage({ id: message.id, ...(result as object) }, transfer ?? []);
  } catch (error) {
    const relay = error instanceof RelayError ? error : new RelayError(500, '网关内部错误', 'internal_error');
    parentPort!.postMessage({ id: message.id, error: { status: relay.status, message: relay.message, type: relay.type, code: relay.code } });
  }
});
