import type { Worker } from 'node:worker_threads';
import { moduleWorker } from '../../lib/module-worker.js';
import { isRecord } from '../dialects/shared.js';
import type { RequestFacts } from '../dialects/types.js';
import type { UpstreamSpec } from '../pipeline/build-upstream.js';
import type { UpstreamRequest } from '../providers/types.js';
import { RelayError } from '../relay-error.js';
import { readFacts, type Reading } from './read-facts.js';

/**
 * A /v1 JSON body this large is never parsed on the event loop. Parsing, measuring and translating a body costs
 * a few microseconds per JSON value: a body of a megabyte of small values holds the loop for tens of
 * milliseconds, one of 24 MB (600,000 Gemini `contents`) for seconds, and with it every stream and
 * GET /api/status. Such a body stays bytes here and lives on a body worker (body-worker.ts), which parses it once
 * and answers the relay's questions: its facts, its prompt's text, each channel's upstream request.
 */
export const LARGE_JSON_BYTES = 1024 * 1024;

/** A large JSON body as the content-type parser left it: bytes, handed to a body worker when first read. */
export class LargeJson {
  /** Set once a worker holds the parsed body. */
  slot?: { worker: BodyWorker; handle: number };
  constructor(public bytes: Buffer | undefined) {}
}

interface Pending {
  resolve(value: Record<string, unknown>): void;
  reject(error: Error): void;
}

class BodyWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Bodies this worker holds: the least loaded worker takes the next one. */
  held = 0;
  dead = false;

  constructor(onExit: () => void) {
    this.worker = moduleWorker(import.meta.url, './body-worker');
    this.worker.unref();
    this.worker.on('message', (message: { id: number; error?: { status: number; message: string; type: string; code: string | null } } & Record<string, unknown>) => {
      const pending = this.pending.get(message.id);
      if (!pending) return;
      this.pending.delete(message.id);
      if (message.error) pending.reject(new RelayError(message.error.status, message.error.message, message.error.type, message.error.code));
      else pending.resolve(message);
    });
    const lost = () => {
      if (this.dead) return;
      this.dead = true;
      for (const pending of this.pending.values()) pending.reject(new RelayError(503, '网关繁忙，请稍后重试', 'server_error'));
      this.pending.clear();
      onExit();
    };
    this.worker.on('error', lost);
    this.worker.on('exit', lost);
  }

  ask(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<Record<string, unknown>> {
    if (this.dead) return Promise.reject(new RelayError(503, '网关繁忙，请稍后重试', 'server_error'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message }, transfer);
    });
  }

  terminate(): Promise<number> {
    this.dead = true;
    return this.worker.terminate();
  }
}

/**
 * The body workers: started on the first large body, at most WORKERS of them, each body held by the least loaded.
 * A body is released when its request has settled (and, should a path forget, when its LargeJson is collected).
 */
export class BodyWorkers {
  private static readonly WORKERS = 2;
  private readonly workers: BodyWorker[] = [];
  private nextHandle = 1;
  private readonly collected = new FinalizationRegistry<{ worker: BodyWorker; handle: number }>((slot) => this.close(slot));

  /** Parses a large body on a worker: its facts (the prompt's text read there when needed) and its problem, if any. */
  async open(body: LargeJson, reading: Reading, defaultModel?: string): Promise<{ facts: RequestFacts; problem?: string; background: boolean }> {
    const worker = this.pick();
    const handle = this.nextHandle++;
    const bytes = body.bytes!;
    body.bytes = undefined;
    // The bytes move to the worker without a copy when they own their memory.
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const view = whole ? new Uint8Array(bytes.buffer, 0, bytes.byteLength) : new Uint8Array(bytes);
    worker.held++;
    body.slot = { worker, handle };
    this.collected.register(body, body.slot, body);
    const answer = (await worker.ask({ op: 'open', handle, bytes: view, reading, defaultModel }, [view.buffer as ArrayBuffer])) as {
      facts: Omit<RequestFacts, 'promptText'>;
      problem?: string;
      background: boolean;
    };
    const facts: RequestFacts = { ...answer.facts, promptText: async () => String((await worker.ask({ op: 'prompt', handle, reading })).text ?? '') };
    return { facts, problem: answer.problem, background: answer.background };
  }

  /** The upstream request for one channel, built on the worker that holds the body. */
  async build(body: LargeJson, spec: UpstreamSpec): Promise<UpstreamRequest> {
    if (!body.slot) throw new RelayError(500, '请求体未打开');
    const { request } = (await body.slot.worker.ask({ op: 'build', handle: body.slot.handle, spec })) as { request: Omit<UpstreamRequest, 'body'> & { body?: Uint8Array } };
    return { ...request, body: request.body ? Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength) : undefined };
  }

  release(body: LargeJson): void {
    if (!body.slot) return;
    this.collected.unregister(body);
    this.close(body.slot);
    body.slot = undefined;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((worker) => worker.terminate()));
  }

  private close(slot: { worker: BodyWorker; handle: number }): void {
    slot.worker.held--;
    slot.worker.ask({ op: 'close', handle: slot.handle }).catch(() => undefined);
  }

  private pick(): BodyWorker {
    const live = this.workers.filter((w) => !w.dead);
    if (live.length < BodyWorkers.WORKERS) {
      const worker = new BodyWorker(() => {
        const at = this.workers.indexOf(worker);
        if (at >= 0) this.workers.splice(at, 1);
      });
      this.workers.push(worker);
      return worker;
    }
    return live.reduce((a, b) => (b.held < a.held ? b : a));
  }
}

/**
 * A client's JSON body as an ingress reads it: parsed here, or on a body worker when it is large; with its facts,
 * what makes it unusable (for the conversation endpoints), and whether it asks for background mode. `defaultModel`
 * fills in a missing `model` (OpenAI endpoints whose clients may leave it out).
 */
export async function readJsonBody(
  bodies: BodyWorkers,
  raw: unknown,
  reading: Reading,
  defaultModel?: string,
): Promise<{ body: Record<string, unknown> | LargeJson; facts: RequestFacts; problem?: string; background: boolean }> {
  if (raw instanceof LargeJson) return { body: raw, ...(await bodies.open(raw, reading, defaultModel)) };
  if (!isRecord(raw)) throw new RelayError(400, '请求体必须是 JSON 对象');
  const body = defaultModel && !(typeof raw.model === 'string' && raw.model) ? { ...raw, model: defaultModel } : raw;
  return { body, ...readFacts(body, reading), background: body.background === true };
}
