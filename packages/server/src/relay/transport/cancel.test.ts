import { describe, expect, it } from 'vitest';
import { Cancel } from './cancel.js';

describe('Cancel (the relay abort controller)', () => {
  it('runs each listener once, in order, on the first abort only; removed listeners do not run', () => {
    const cancel = new Cancel();
    const calls: string[] = [];
    const a = () => calls.push('a');
    const b = () => calls.push('b');
    const c = () => calls.push('c');
    cancel.addEventListener('abort', a);
    cancel.addEventListener('abort', b);
    cancel.addEventListener('abort', c);
    cancel.removeEventListener('abort', b);
    expect(cancel.aborted).toBe(false);
    cancel.abort();
    cancel.abort('again');
    expect(calls).toEqual(['a', 'c']);
    expect(cancel.aborted).toBe(true);
    expect(cancel.reason).toBeInstanceOf(DOMException);
    expect((cancel.reason as DOMException).name).toBe('AbortError');
    // A listener added after the abort is not kept (nothing would call it).
    cancel.addEventListener('abort', a);
    expect(calls).toEqual(['a', 'c']);
  });

  it('keeps the reason given, and a single listener removed leaves none', () => {
    const cancel = new Cancel();
    let called = false;
    const only = () => (called = true);
    cancel.addEventListener('abort', only);
    cancel.removeEventListener('abort', only);
    const reason = new Error('client left');
    cancel.abort(reason);
    expect(called).toBe(false);
    expect(cancel.reason).toBe(reason);
    expect(cancel.signal).toBe(cancel);
  });

  it('takes objects with handleEvent as listeners, as an EventTarget does, in order with functions', () => {
    const cancel = new Cancel();
    const calls: string[] = [];
    const object = { handleEvent: () => calls.push('object') };
    const removed = { handleEvent: () => calls.push('removed') };
    cancel.addEventListener('abort', object);
    cancel.addEventListener('abort', () => calls.push('function'));
    cancel.addEventListener('abort', removed);
    cancel.removeEventListener('abort', removed);
    cancel.abort();
    expect(calls).toEqual(['object', 'function']);

    const alone = new Cancel();
    alone.addEventListener('abort', object);
    alone.abort();
    expect(calls).toEqual(['object', 'function', 'object']);
  });

  it('a listener that throws does not stop the others', () => {
    const cancel = new Cancel();
    const calls: string[] = [];
    const reported: unknown[] = [];
    const original = globalThis.queueMicrotask;
    globalThis.queueMicrotask = (task) => {
      try {
        task();
      } catch (error) {
        reported.push(error);
      }
    };
    try {
      cancel.addEventListener('abort', () => {
        throw new Error('listener failed');
      });
      cancel.addEventListener('abort', () => calls.push('second'));
      cancel.abort();
    } finally {
      globalThis.queueMicrotask = original;
    }
    expect(calls).toEqual(['second']);
    expect(reported).toHaveLength(1);
  });
});
