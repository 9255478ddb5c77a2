import type { UpstreamResponse } from '../transport/send-upstream.js';

/**
 * Calls `onChunk` for each chunk of a body as it arrives, pausing the body while a returned promise (the client's
 * buffer is full) is pending; resolves at its end, rejects on its error or `onChunk`'s. Event-driven rather than
 * `for await`: an async iterator keeps a generator, its promises and closures alive for every open stream.
 */
export function pumpBody(body: UpstreamResponse['body'], onChunk: (chunk: Buffer) => Promise<unknown> | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    // A body that failed (or was destroyed) before anything listened has no events left to give: the upstream broke
    // while the relay waited to read it (the reservation's commit). Waiting for its events would hold the client's
    // stream and the reservation open for ever.
    if (body.destroyed) return reject(body.errored ?? new Error('upstream body closed before it was read'));
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      body.off('end', finish);
      body.off('close', onClose);
      if (error === undefined) resolve();
      else {
        body.destroy();
        reject(error);
      }
    };
    function onData(chunk: Buffer) {
      let waiting: Promise<unknown> | undefined;
      try {
        waiting = onChunk(chunk);
      } catch (error) {
        return finish(error);
      }
      if (!waiting) return;
      body.pause();
      waiting.then(() => !settled && body.resume(), finish);
    }
    // Closed without its end or an error (destroyed without a reason): cut short all the same. After 'end' or
    // 'error', 'close' finds the pump finished already.
    function onClose() {
      finish(body.errored ?? new Error('upstream body closed before its end'));
    }
    // `on`, not `once` (its wrapper costs an object and a bound function per open stream): `finish` removes the data,
    // end and close listeners; the error listener stays, for an error after the end.
    body.on('data', onData);
    body.on('end', finish);
    body.on('close', onClose);
    body.on('error', (error: unknown) => finish(error ?? new Error('upstream body failed')));
  });
}
