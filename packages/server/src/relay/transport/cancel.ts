/**
 * What the transports and the delivery read of an abort signal: the HTTP call (upstream-call.ts), node's
 * `events.once` and the WebSocket transport use only this. A real `AbortSignal` is one too (the channel test passes a
 * timeout's).
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: AbortListener, options?: unknown): void;
  removeEventListener(type: 'abort', listener: AbortListener): void;
}

/** A function, or an object whose `handleEvent` is called (as an EventTarget takes it): no closure per listener. */
export type AbortListener = (() => void) | { handleEvent(): void };
type Listener = AbortListener;

/**
 * The relay's per-request abort controller, which is its own signal: it cancels the upstream call when the client
 * leaves. Node's AbortController costs about 0.9 KB and 12 µs per request with the listener undici adds: node sets
 * each signal's prototype after making it, which gives every signal hidden classes of its own (bench/README.md,
 * 2026-11-28 night). This one is a plain object with the same behaviour for what reads it: listeners run once, in
 * the order they were added, when `abort` is first called.
 */
export class Cancel implements CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  /** One listener as it is (the usual case: the upstream call's), several in an array. */
  private listeners: Listener | Listener[] | undefined = undefined;

  /** The signal to hand to whatever takes one: this object itself (so `cancel.signal` reads as with AbortController). */
  get signal(): CancelSignal {
    return this;
  }

  addEventListener(type: 'abort', listener: Listener): void {
    if (type !== 'abort' || this.aborted) return;
    const held = this.listeners;
    if (held === undefined) this.listeners = listener;
    else if (!Array.isArray(held)) this.listeners = [held, listener];
    else held.push(listener);
  }

  removeEventListener(type: 'abort', listener: Listener): void {
    const held = this.listeners;
    if (type !== 'abort' || held === undefined) return;
    if (held === listener) this.listeners = undefined;
    else if (Array.isArray(held)) {
      const at = held.indexOf(listener);
      if (at !== -1) held.splice(at, 1);
    }
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    const held = this.listeners;
    this.listeners = undefined;
    if (Array.isArray(held)) for (const listener of held) run(listener);
    else if (held) run(held);
  }
}

/** As an EventTarget does: a listener that throws does not stop the others, and its error is reported uncaught. */
function run(listener: Listener): void {
  try {
    if (typeof listener === 'function') listener();
    else listener.handleEvent();
  } catch (error) {
    queueMicrotask(() => {
      throw error;
    });
  }
}
