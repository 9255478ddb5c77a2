import { randomBytes } from 'node:crypto';
import type { ImageSource } from '../canonical.js';
import { RelayError } from '../relay-error.js';

/** Reads a `data:<media type>;base64,<data>` URL into an inline image, or keeps the URL. */
export function imageFromUrl(url: string): ImageSource {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match ? { kind: 'base64', mediaType: match[1], data: match[2] } : { kind: 'url', url };
}

export function imageToUrl(source: ImageSource): string {
  return source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`;
}

/** A fresh id in a provider's style (`chatcmpl-…`, `msg_…`, `toolu_…`). */
export function newId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('base64url')}`;
}

/** Tool-call arguments as a JSON object for providers that take an object; junk becomes an empty object. */
export function argumentsObject(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : { value: parsed };
  } catch {
    return {};
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
export const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const asNumber = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** A 400 in the client's dialect for a body the dialect cannot read. */
export function badRequest(message: string): RelayError {
  return new RelayError(400, message, 'invalid_request_error');
}

/** JSON of an upstream event, or undefined when it is not JSON. */
export function parseEvent(data: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(data);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Upper bound of prompt tokens over some parts of a body: UTF-8 bytes of every string (every token of a
 * byte-level tokenizer spans at least one byte), `imageBound` for each image or inline media, one per number.
 * Walks with an explicit stack: no nesting depth can overflow the call stack.
 */
export function promptBoundOf(parts: unknown[], imageBound: number, isMedia: (key: string, value: unknown) => boolean): number {
  let tokens = 8;
  const stack: unknown[] = [...parts];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      tokens += value.startsWith('data:') && value.length > 256 ? imageBound : Buffer.byteLength(value, 'utf8');
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      tokens += 1;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (isMedia(key, inner)) tokens += imageBound;
        else stack.push(key, inner);
      }
    }
  }
  return tokens;
}

/** Every string of some parts, joined, media skipped: the prompt's text for counting. Iterative like the bound. */
export function collectText(parts: unknown[], isMedia: (key: string, value: unknown) => boolean): string {
  const texts: string[] = [];
  const stack: unknown[] = [...parts].reverse();
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
    else if (value && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) if (!isMedia(entries[i][0], entries[i][1])) stack.push(entries[i][1]);
    }
  }
  return texts.join('\n');
}

/** Seconds since the epoch, for `created` fields. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** An upstream that reports an error inside its stream: the pipeline ends the client's stream as broken. */
export class UpstreamStreamError extends Error {}
