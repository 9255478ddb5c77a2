import { EventEmitter } from 'node:events';
import type { Dispatcher } from 'undici';
import { util } from 'undici';
import type { CancelSignal } from './cancel.js';

/** A body's listener, as EventEmitter and Readable type theirs. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Listener = (...args: any[]) => void;

/** What the relay reads of an upstream answer's body: the part of a `Readable` it uses, and the whole text. */
export interface UpstreamBody {
  readonly destroyed: boolean;
  readonly errored: unknown;
  /** `data` (a Buffer), `end`, `error` (the reason) and `close`, as a flowing Readable's. */
  on(event: 'data' | 'end' | 'close' | 'error', listener: Listener): this;
  off(event: 'data' | 'end' | 'close' | 'error', listener: Listener): this;
  pause(): this;
  resume(): this;
  isPaused(): boolean;
  destroy(error?: Error): this;
  text(): Promise<string>;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  contentType: string;
  body: UpstreamBody;
}

/** undici's own body (a Readable) buffers up to 64 KiB before it pauses the socket. */
const HIGH_WATER_MARK = 64 * 1024;

type Settle = (response: UpstreamResponse) => void;

/**
 * One HTTP call to an upstream through undici's `dispatch`, which is both the call's handler and its answer's body.
 * undici's `request` wraps the same dispatch in an async resource, a promise and a full `Readable` (its state, its
 * buffer list, a second parse of the headers); an open stream held all of them. This object is the one thing a
 * call keeps: the body's events are those of a flowing `Readable` as the relay uses them (`data` once a listener is
 * added and while not paused, then `end` and `close`; on a failure `error` and `close`, and nothing after). What
 * arrives while it is paused or before anybody listens (the relay reads only once its reservation is committed)
 * waits in the call, and undici stops reading the socket once 64 KiB wait, as it would for its own body.
 */
export class UpstreamCall extends EventEmitter implements Dispatcher.DispatchHandler, UpstreamBody {
  destroyed = false;
  errored: Error | null = null;
  /** null until a `data` listener or `resume()` starts the flow, false while paused (Readable's `readableFlowing`). */
  private flowing: boolean | null = null;
  /** Chunks that arrived while paused or before anybody listened, in order, and their bytes. */
  private queue: Buffer[] | undefined = undefined;
  private queued = 0;
  /** undici delivered the last chunk. */
  private complete = false;
  /** A tick is due to deliver the queue (and the end). */
  private scheduled = false;
  private abortCall: ((reason?: Error) => void) | undefined = undefined;
  private resumeSocket: (() => void) | undefined = undefined;
  /** The call's answer, until its head arrives; then undefined. */
  private settle: Settle | undefined;
  private fail: ((error: unknown) => void) | undefined;
  /** Why the call was cancelled before it connected. */
  private cancelled: Error | undefined = undefined;

  constructor(
    private readonly signal: CancelSignal | undefined,
    settle: Settle,
    fail: (error: unknown) => void,
  ) {
    super();
    this.settle = settle;
    this.fail = fail;
    if (!signal) return;
    if (signal.aborted) this.cancelled = reasonOf(signal);
    else signal.addEventListener('abort', this);
  }

  /**
   * The caller's signal fired (the call is the signal's listener itself, not a closure of its own): the call is
   * aborted, before its head (the promise rejects) or during its body (the body fails).
   */
  handleEvent(): void {
    const reason = reasonOf(this.signal!);
    if (this.settle === undefined) this.destroy(reason);
    else if (this.abortCall) this.abortCall(reason);
    else this.cancelled = reason;
  }

  // undici's side (the dispatch handler)

  onConnect(abort: (reason?: Error) => void): void {
    if (this.cancelled) return abort(this.cancelled);
    this.abortCall = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    const settle = this.settle!;
    this.settle = undefined;
    this.fail = undefined;
    this.resumeSocket = resume;
    const headers = util.parseHeaders(rawHeaders) as Record<string, string | string[] | undefined>;
    settle({ status: statusCode, headers, contentType: String(headers['content-type'] ?? ''), body: this });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.destroyed) return false;
    if (this.flowing === true && this.queue === undefined) {
      this.emit('data', chunk);
      // Paused by the listener, the next chunks wait in the queue (up to the high-water mark), as a Readable's would.
      return !this.destroyed;
    }
    (this.queue ??= []).push(chunk);
    this.queued += chunk.length;
    // As much as a Readable would take in before it asks undici to stop reading (a whole answer usually fits).
    return this.queued < HIGH_WATER_MARK;
  }

  onComplete(): void {
    this.complete = true;
    if (this.flowing === true) this.schedule();
  }

  onError(error: Error): void {
    // undici has let go of the call: nothing is left to abort.
    this.abortCall = undefined;
    if (this.settle !== undefined) {
      this.unwatch();
      const fail = this.fail!;
      this.settle = this.fail = undefined;
      fail(error);
      return;
    }
    if (!this.destroyed) this.destroy(error);
  }

  // The relay's side (the body)

  override on(event: string | symbol, listener: Listener): this {
    super.on(event, listener);
    // As a Readable: a data listener starts the flow, unless the body was paused on purpose.
    if (event === 'data' && this.flowing !== false) this.resume();
    return this;
  }

  override addListener(event: string | symbol, listener: Listener): this {
    return this.on(event, listener);
  }

  pause(): this {
    if (this.flowing !== false) this.flowing = false;
    return this;
  }

  resume(): this {
    if (this.flowing === true || this.destroyed) return this;
    this.flowing = true;
    if (this.queue !== undefined || this.complete) this.schedule();
    else this.resumeSocket?.();
    return this;
  }

  isPaused(): boolean {
    return this.flowing === false;
  }

  destroy(error?: Error): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.queue = undefined;
    if (error) this.errored = error;
    this.unwatch();
    // Cut before its end: the connection goes (undici answers onError, which finds the body destroyed).
    if (!this.complete) this.abortCall?.(error ?? new Error('upstream body destroyed'));
    process.nextTick(emitFailure, this, error);
    return this;
  }

  text(): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.destroyed) return reject(this.errored ?? new Error('upstream body closed before it was read'));
      const chunks: Buffer[] = [];
      this.on('error', reject);
      this.on('close', () => reject(new Error('upstream body closed before its end')));
      this.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      this.on('data', (chunk: Buffer) => chunks.push(chunk));
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    process.nextTick(flow, this);
  }

  /** Delivers what waited, as long as the body flows; the end once everything is delivered. */
  flowQueued(): void {
    this.scheduled = false;
    const { queue } = this;
    if (queue !== undefined) {
      while (this.flowing === true && !this.destroyed && queue.length > 0) {
        const chunk = queue.shift()!;
        this.queued -= chunk.length;
        this.emit('data', chunk);
      }
      if (queue.length > 0 || this.destroyed) return;
      this.queue = undefined;
    }
    if (this.flowing !== true) return;
    if (!this.complete) {
      this.resumeSocket?.();
      return;
    }
    this.destroyed = true;
    this.unwatch();
    this.emit('end');
    this.emit('close');
  }

  private unwatch(): void {
    this.signal?.removeEventListener('abort', this);
  }
}

function flow(call: UpstreamCall): void {
  call.flowQueued();
}

/** A failure's events, a tick after the destroy as a Readable's: `error` when there is a reason (and a listener), then `close`. */
function emitFailure(call: UpstreamCall, error: Error | undefined): void {
  if (error && call.listenerCount('error') > 0) call.emit('error', error);
  call.emit('close');
}

function reasonOf(signal: CancelSignal): Error {
  return (signal.reason as Error) ?? new Error('This operation was aborted');
}
