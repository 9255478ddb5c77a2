import { request } from 'undici';

/** What a provider answered: the HTTP status and the body parsed as JSON (undefined when it was not JSON). */
export interface JsonAnswer {
  status: number;
  body: unknown;
}

export interface JsonRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent as is; set the matching content-type header. */
  body?: string;
  timeoutMs?: number;
}

/**
 * One HTTP call to a sign-in provider or the bot-check service. Throws only on transport failures (refused,
 * timed out, reset); an HTTP error status is returned to the caller, who knows the provider's error shape.
 */
export async function requestJson(url: string, options: JsonRequest = {}): Promise<JsonAnswer> {
  const timeout = options.timeoutMs ?? 10_000;
  const response = await request(url, {
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    headersTimeout: timeout,
    bodyTimeout: timeout,
  });
  const text = await response.body.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.statusCode, body };
}

/** Reads a string field of an unknown JSON object ('' when absent or not a string / number). */
export function field(value: unknown, key: string): string {
  if (!value || typeof value !== 'object') return '';
  const v = (value as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}
