import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from '../transport/send-upstream.js';
import type { Cancel } from '../transport/cancel.js';
import type { StreamRelay } from './deliver-stream.js';

/**
 * The events that drive an open stream's relay (deliver-stream.ts), heard through functions every stream shares rather
 * than closures of its own: the upstream body's listeners, the client's buffer draining, and the client leaving before
 * the end (the upstream then read on for its usage, for a time). Each finds its stream's relay on the body or the
 * response (`RELAY`).
 */

/** The relay a body's shared listeners (below) reach through the body itself: no closure per open stream. */
export const RELAY = Symbol('stream relay');
export type PumpedBody = UpstreamResponse['body'] & { [RELAY]?: StreamRelay };
export type RelayedResponse = ServerResponse & { [RELAY]?: StreamRelay };

/**
 * The client of an open stream left before its end. The answer's cost is known only from the usage the upstream
 * reports at its end (hidden reasoning, media, cache writes are in no text the client was sent), so the upstream is
 * read on, relayed to nobody, until its end or for at most the plan's `drainMs`; it is cancelled then. Answers
 * false when the stream takes no such turn (not open, over, or draining off): the caller cancels the upstream at once.
 */
export function drainAfterClientLeft(res: ServerResponse): boolean {
  const relay = (res as RelayedResponse)[RELAY];
  return relay !== undefined && relay.clientLeft();
}

/** A stream read on after its client left has run out of time: the upstream is cancelled, and it is settled as read. */
export function drainTimedOut(relay: StreamRelay): void {
  relay.drainTimer = undefined;
  relay.abort.abort();
}

function relayOf(body: PumpedBody): StreamRelay {
  return body[RELAY]!;
}

export function onBodyData(this: PumpedBody, buffer: Buffer): void {
  const relay = relayOf(this);
  let waiting: Promise<unknown> | undefined;
  try {
    waiting = relay.chunk(buffer);
  } catch (error) {
    return relay.stop(error);
  }
  if (!waiting) return;
  this.pause();
  waiting.then(
    () => !relay.stopped && this.resume(),
    (error: unknown) => relay.stop(error),
  );
}

export function onBodyEnd(this: PumpedBody): void {
  relayOf(this).stop();
}

/** Closed without its end or an error (destroyed without a reason): cut short all the same. After 'end' or 'error', 'close' finds the pump stopped already. */
export function onBodyClose(this: PumpedBody): void {
  relayOf(this).stop(this.errored ?? new Error('upstream body closed before its end'));
}

export function onBodyError(this: PumpedBody, error: unknown): void {
  relayOf(this).stop(error ?? new Error('upstream body failed'));
}

/** Resolves once the client's buffer has drained; rejects when the request is cancelled (the client left) or its response fails. */
export function drained(res: ServerResponse, cancel: Cancel): Promise<void> {
  return new Promise((resolve, reject) => {
    if (cancel.aborted) return reject(cancel.reason);
    const done = (error?: unknown) => {
      res.off('drain', onDrain);
      res.off('error', done);
      cancel.removeEventListener('abort', onCancel);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onDrain = () => done();
    const onCancel = () => done(cancel.reason);
    res.on('drain', onDrain);
    res.on('error', done);
    cancel.addEventListener('abort', onCancel);
  });
}
