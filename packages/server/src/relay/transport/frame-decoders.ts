import { StringDecoder } from 'node:string_decoder';
import type { Frame } from '../dialects/types.js';
import { EventStreamDecoder } from './event-stream-decoder.js';

/**
 * Turns an upstream's response bytes into frames, whatever its stream framing. One decoder per response: it
 * keeps the bytes of a frame that is split across chunks.
 */
export interface FrameDecoder {
  push(chunk: Buffer): Frame[];
  /** Frames left when the body ended (a last event without its blank line). */
  end(): Frame[];
}

/** Server-sent events (text/event-stream): `event:` and `data:` lines, a blank line ends an event. */
export class SseDecoder implements FrameDecoder {
  private readonly text = new StringDecoder('utf8');
  private pending = '';
  private event: string | undefined;
  private data: string[] = [];

  push(chunk: Buffer): Frame[] {
    this.pending += this.text.write(chunk);
    const frames: Frame[] = [];
    let newline = this.pending.indexOf('\n');
    let start = 0;
    while (newline >= 0) {
      let line = this.pending.slice(start, newline);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      this.line(line, frames);
      start = newline + 1;
      newline = this.pending.indexOf('\n', start);
    }
    this.pending = this.pending.slice(start);
    return frames;
  }

  end(): Frame[] {
    const frames: Frame[] = [];
    if (this.pending) this.line(this.pending, frames);
    this.pending = '';
    this.line('', frames);
    return frames;
  }

  private line(line: string, frames: Frame[]): void {
    if (line === '') {
      if (this.data.length > 0) frames.push({ event: this.event, data: this.data.join('\n') });
      this.event = undefined;
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }
}

/**
 * A stream of JSON values: a JSON array sent element by element (Gemini's streamGenerateContent without
 * `alt=sse`) or newline-delimited JSON. Each top-level object becomes a frame as soon as its closing brace
 * arrives; the brackets and commas between them are skipped.
 */
export class JsonStreamDecoder implements FrameDecoder {
  private readonly text = new StringDecoder('utf8');
  private buffer = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private start = -1;
  private scanned = 0;

  push(chunk: Buffer): Frame[] {
    this.buffer += this.text.write(chunk);
    const frames: Frame[] = [];
    for (let i = this.scanned; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92 /* \ */) this.escaped = true;
        else if (c === 34 /* " */) this.inString = false;
        continue;
      }
      if (c === 34) {
        if (this.depth > 0) this.inString = true;
      } else if (c === 123 /* { */) {
        if (this.depth === 0) this.start = i;
        this.depth++;
      } else if (c === 125 /* } */ && this.depth > 0) {
        this.depth--;
        if (this.depth === 0) {
          frames.push({ data: this.buffer.slice(this.start, i + 1) });
          this.start = -1;
        }
      }
    }
    // Keep only the object being read; everything before it has been framed or skipped.
    if (this.start >= 0) {
      this.buffer = this.buffer.slice(this.start);
      this.start = 0;
    } else this.buffer = '';
    this.scanned = this.buffer.length;
    return frames;
  }

  end(): Frame[] {
    return [];
  }
}

/**
 * The decoder for an answer's framing by its content type, or undefined for a whole (non-stream) body. A JSON body
 * is a stream only when `jsonArray` says so (Gemini's streamGenerateContent without `alt=sse`).
 */
export function frameDecoderFor(contentType: string, jsonArray = false): FrameDecoder | undefined {
  if (contentType.includes('text/event-stream')) return new SseDecoder();
  if (contentType.includes('application/vnd.amazon.eventstream')) return new EventStreamDecoder();
  // Newline-delimited JSON (Ollama's own API; a WebSocket's messages, one per line).
  if (contentType.includes('ndjson')) return new JsonStreamDecoder();
  if (jsonArray && contentType.includes('json')) return new JsonStreamDecoder();
  return undefined;
}
