import { describe, expect, it } from 'vitest';
import { encodeFrame } from '../../test-support/upstreams/bedrock.js';
import type { Frame as RecordedFrame } from '../../test-support/upstreams/bedrock-converse.js';
import { fixtures } from '../../test-support/upstreams/fixtures.js';
import { UpstreamStreamError } from '../dialects/shared.js';
import type { Frame } from '../dialects/types.js';
import { EventStreamDecoder } from './event-stream-decoder.js';

const fx = fixtures('bedrock');
const recorded = (name: string): RecordedFrame[] => fx.json(`${name}.stream.frames.json`);
const bytesOf = (frames: RecordedFrame[]) => Buffer.concat(frames.map((f) => Buffer.from(encodeFrame(f))));
const expected = (frames: RecordedFrame[]): Frame[] => frames.map((f) => ({ event: f.headers[':event-type'], data: JSON.stringify(f.payload) }));

function decodeInPieces(bytes: Buffer, size: (i: number) => number): Frame[] {
  const decoder = new EventStreamDecoder();
  const frames: Frame[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const piece = bytes.subarray(at, at + size(i));
    at += piece.length;
    frames.push(...decoder.push(piece));
  }
  return [...frames, ...decoder.end()];
}

describe('AWS event-stream frames', () => {
  it('decodes the recorded ConverseStream and InvokeModel streams, however the bytes are split', () => {
    for (const name of ['tools', 'reasoning', 'invoke-tools']) {
      const frames = recorded(name);
      const bytes = bytesOf(frames);
      expect(decodeInPieces(bytes, () => bytes.length)).toEqual(expected(frames));
      expect(decodeInPieces(bytes, () => 1)).toEqual(expected(frames));
      expect(decodeInPieces(bytes, (i) => [3, 17, 250, 1, 64][i % 5])).toEqual(expected(frames));
    }
  });

  it('keeps only the bytes of the message being received', () => {
    const bytes = bytesOf(recorded('text'));
    const decoder = new EventStreamDecoder();
    const first = bytes.readUInt32BE(0);
    expect(decoder.push(bytes.subarray(0, first + 5))).toHaveLength(1);
    expect((decoder as unknown as { pending: Buffer }).pending.length).toBe(5);
  });

  it('an exception message ends the stream as an upstream error, after the events before it in the same chunk', () => {
    const frames = recorded('text').slice(0, 3);
    const exception = fx.json('errors.json').stream_exception_frame.frame as RecordedFrame;
    const decoder = new EventStreamDecoder();
    expect(decoder.push(Buffer.concat([bytesOf(frames), bytesOf([exception])]))).toEqual(expected(frames));
    expect(() => decoder.end()).toThrow(new UpstreamStreamError('throttlingException: Too many tokens, please wait before trying again.'));
    const alone = new EventStreamDecoder();
    expect(() => alone.push(bytesOf([exception]))).toThrow(UpstreamStreamError);
  });

  it('an `error` message is an upstream error too', () => {
    const error = { headers: { ':message-type': 'error', ':error-code': 'InternalFailure', ':error-message': 'Something broke' }, payload: {} } as RecordedFrame;
    expect(() => new EventStreamDecoder().push(bytesOf([error]))).toThrow(new UpstreamStreamError('InternalFailure: Something broke'));
  });

  it('a corrupted checksum, an impossible length or a cut message is a broken stream, not a frame', () => {
    const bytes = bytesOf(recorded('text'));
    const corrupted = Buffer.from(bytes);
    corrupted[20] ^= 0xff;
    expect(() => new EventStreamDecoder().push(corrupted)).toThrow(/checksum/);
    expect(() => new EventStreamDecoder().push(Buffer.from([0, 0, 0, 3, 0, 0, 0, 0]))).toThrow(/invalid event-stream message length/);
    expect(() => new EventStreamDecoder().push(Buffer.from([0xff, 0, 0, 0]))).toThrow(/invalid event-stream message length/);
    const cut = new EventStreamDecoder();
    expect(cut.push(bytes.subarray(0, bytes.length - 7))).toHaveLength(recorded('text').length - 1);
    expect(() => cut.end()).toThrow(/ended inside a message/);
  });
});
