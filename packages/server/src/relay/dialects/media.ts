import { decodeBase64Prefix, imageSizeOfBase64, pdfPagesOfBase64 } from '../../billing/image-size.js';
import type { MediaBounds } from '../../billing/media-bounds.js';
import { isRecord } from './shared.js';

/**
 * Media in a client body, as a dialect recognises it: what it is and where its bytes are. `data` is base64 or a
 * `data:` URL; `url` (or a file id) means the bytes are elsewhere and their size unknown.
 */
export interface MediaRef {
  kind: 'image' | 'document' | 'audio' | 'video' | 'file';
  data?: string;
  url?: string;
  mediaType?: string;
  /** OpenAI's image detail ('low' costs a fixed amount). */
  detail?: unknown;
}

/** A dialect's reading of one object of its body: the media it is, or undefined when it is not media. */
export type MediaReader = (value: Record<string, unknown>) => MediaRef | undefined;

/** For a body whose media sit under keys of their own (read past as opaque): no object of it is media. */
export const NO_MEDIA: MediaReader = () => undefined;

/**
 * Upper bound of the prompt tokens one piece of media can cost. An image counts as one only when its bytes are
 * an image; anything else given inline (a "data:" string of text) counts as its bytes, like any text.
 */
export function mediaTokens(ref: MediaRef, bounds: MediaBounds): number {
  let { data, mediaType } = ref;
  if (data?.startsWith('data:')) {
    const comma = data.indexOf(',');
    const header = comma > 0 ? data.slice(5, comma) : '';
    if (!/;base64$/i.test(header)) return Buffer.byteLength(data, 'utf8');
    mediaType = header.slice(0, -';base64'.length) || mediaType;
    data = data.slice(comma + 1);
  }
  const kind = ref.kind === 'file' ? kindOf(mediaType) : ref.kind;
  if (data === undefined) {
    if (kind === 'image') return bounds.image(undefined);
    if (kind === 'audio') return bounds.audio(undefined);
    if (kind === 'video') return bounds.video(undefined);
    return bounds.document(undefined);
  }
  const decoded = Math.floor((data.length * 3) / 4);
  switch (kind) {
    case 'image': {
      const size = imageSizeOfBase64(data);
      return size ? bounds.image(size.width > 0 ? size : undefined, ref.detail) : Buffer.byteLength(data, 'utf8');
    }
    case 'document': {
      if (!decodeBase64Prefix(data, 5)?.toString('latin1').startsWith('%PDF-')) return mediaType?.startsWith('text/') ? decoded : bounds.document(undefined);
      return bounds.document(pdfPagesOfBase64(data));
    }
    case 'audio':
      return bounds.audio(decoded);
    case 'video':
      return bounds.video(decoded);
    default:
      return decoded;
  }
}

function kindOf(mediaType: string | undefined): MediaRef['kind'] {
  const type = (mediaType ?? '').toLowerCase();
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('text/') || type === 'application/json') return 'file';
  return 'document';
}

/**
 * Tokens a provider's chat template adds to any request (role markers, a default system preamble: a "Hi" to Claude
 * is billed about ten input tokens, one with thinking enabled a few dozen). Per-message markers are covered by the
 * bytes of the message's own JSON keys.
 */
export const PROMPT_TEMPLATE_OVERHEAD = 100;

/**
 * Upper bound of prompt tokens over some parts of a body: UTF-8 bytes of every string and key (every token of a
 * byte-level tokenizer spans at least one byte), the media bound for each piece of media, one per number.
 * Walks with an explicit stack: no nesting depth can overflow the call stack.
 */
export function promptBoundOf(parts: unknown[], bounds: MediaBounds, media: MediaReader, audio?: { tokens: number }): number {
  let tokens = PROMPT_TEMPLATE_OVERHEAD;
  const stack: unknown[] = [...parts];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') tokens += Buffer.byteLength(value, 'utf8');
    else if (typeof value === 'number' || typeof value === 'boolean') tokens += 1;
    else if (Array.isArray(value)) for (const item of value) stack.push(item);
    else if (isRecord(value)) {
      const ref = media(value);
      if (ref) {
        const cost = mediaTokens(ref, bounds);
        tokens += cost;
        // The audio's share of the bound, which some models price apart (AudioRatio): `audio` counts it.
        if (audio && (ref.kind === 'audio' || (ref.kind === 'file' && kindOf(ref.mediaType) === 'audio'))) audio.tokens += cost;
      }
      else for (const [key, inner] of Object.entries(value)) stack.push(key, inner);
    }
  }
  return tokens;
}

/**
 * Every string of some parts, joined, media and `opaque` keys skipped (signatures, encrypted reasoning): the
 * prompt's text for counting. Iterative like the bound.
 */
export function collectText(parts: unknown[], media: MediaReader, opaque?: ReadonlySet<string>): string {
  const texts: string[] = [];
  const stack: unknown[] = [...parts].reverse();
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
    else if (isRecord(value) && !media(value)) {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) if (!opaque?.has(entries[i][0])) stack.push(entries[i][1]);
    }
  }
  return texts.join('\n');
}
