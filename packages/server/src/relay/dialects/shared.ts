import { randomBytes } from 'node:crypto';
import type { ImageSource, Message } from '../canonical.js';
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

/** The largest of a body's output limits (positive numbers), floored; 0 when it sets none. */
export function largestLimit(...values: unknown[]): number {
  let max = 0;
  for (const value of values) {
    const n = asNumber(value);
    if (n !== undefined && n > max) max = n;
  }
  return Math.floor(max);
}

/**
 * Prompt tokens a provider adds for tool use beyond the definitions' own text (Anthropic's tool-use system prompt
 * is up to ~700 tokens, its built-in tools' a few hundred more): part of the prompt's upper bound whenever tools are sent.
 */
export const TOOL_PROMPT_OVERHEAD = 1_000;

/** Whether a body declares tools (a non-empty array), for the tool overhead. */
export const declaresTools = (tools: unknown) => Array.isArray(tools) && tools.length > 0;

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

/** Seconds since the epoch, for `created` fields. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** An upstream that reports an error inside its stream: the pipeline ends the client's stream as broken. */
export class UpstreamStreamError extends Error {}

/** Throws the error an upstream put in a stream chunk's `error` field (OpenAI and Gemini streams), if it did. */
export function throwChunkError(chunk: Record<string, unknown>): void {
  if (chunk.error === undefined) return;
  const error = chunk.error;
  throw new UpstreamStreamError(isRecord(error) ? (asString(error.message) ?? '上游返回错误') : String(error));
}

/** A vendor error that came with a success status (ERNIE's `error_code`, Hunyuan's `Response.Error`): the status it means. */
export class VendorAnswerError extends UpstreamStreamError {
  constructor(
    message: string,
    readonly status = 502,
  ) {
    super(message);
  }
}

/** Appends a parsed turn; turns of one role in a row are merged (the other dialects need roles to alternate), an empty one is dropped. */
export function appendTurn(messages: Message[], message: Message): void {
  if (message.content.length === 0) return;
  const last = messages.at(-1);
  if (last && last.role === message.role) (last.content as unknown[]).push(...message.content);
  else messages.push(message);
}
