import { providerInfo } from '@model-relay/contract';
import type { BuildInput, Endpoint, ErrorVerdict, ProviderAdapter, UpstreamRequest } from '../types.js';

/** Upstreams whose paths have no /v1 segment after the base URL (their base already carries the version). */
const NO_V1_PREFIX = new Set([40, 41]);

/** OpenAI error statuses that mean the key or the account is dead, not a passing fault. */
const DEAD_KEY_HINTS = ['invalid_api_key', 'account_deactivated', 'insufficient_quota', 'billing_not_active', 'Incorrect API key'];

/** The path of each OpenAI endpoint under /v1. */
export const OPENAI_PATHS: Record<Endpoint, string> = {
  chat: '/v1/chat/completions',
  completions: '/v1/completions',
  embeddings: '/v1/embeddings',
  images: '/v1/images/generations',
  audio_speech: '/v1/audio/speech',
  audio_transcription: '/v1/audio/transcriptions',
  audio_translation: '/v1/audio/translations',
  moderations: '/v1/moderations',
};

/**
 * Every upstream that speaks OpenAI's wire format: OpenAI itself, the proxy types, the custom channel and the
 * OpenAI-compatible vendors. Bodies pass through as given (model rewritten upstream of here), with
 * `stream_options.include_usage` added to streams so billing sees real usage. OpenAI itself also takes the
 * Responses API, so a Responses client reaches it without translation.
 */
export const openAiCompatibleAdapter: ProviderAdapter = {
  id: 'openai-compatible',
  channelTypes: [1, 2, 4, 5, 6, 7, 8, 9, 10, 12, 13, 19, 20, 22, 25, 26, 27, 28, 29, 30, 31, 32, 36, 39, 40, 41, 43],

  dialects: (channel) => (channel.type === 1 ? ['openai-chat', 'openai-responses'] : ['openai-chat']),
  supports: () => true,

  build(input: BuildInput): UpstreamRequest {
    const base = input.channel.baseUrl || providerInfo(input.channel.type).baseUrl || providerInfo(1).baseUrl;
    const path = input.dialect === 'openai-responses' ? '/v1/responses' : OPENAI_PATHS[input.endpoint];
    const url = `${base}${NO_V1_PREFIX.has(input.channel.type) ? path.replace(/^\/v1/, '') : path}`;
    return { url, method: 'POST', ...openAiBody(input, { authorization: `Bearer ${input.channel.key}` }) };
  },

  classifyError: classifyOpenAiError,
};

/** JSON bodies are serialised with usage requested for streams; uploads pass through byte for byte. */
export function openAiBody(input: BuildInput, authHeaders: Record<string, string>): Pick<UpstreamRequest, 'body' | 'headers'> {
  const headers: Record<string, string> = { ...authHeaders };
  if (Buffer.isBuffer(input.body)) {
    headers['content-type'] = input.contentType ?? 'application/octet-stream';
    return { headers, body: input.body };
  }
  let body = input.body;
  if (input.stream && input.dialect === 'openai-chat' && (input.endpoint === 'chat' || input.endpoint === 'completions')) {
    const options = typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {};
    body = { ...body, stream_options: { ...options, include_usage: true } };
  }
  headers['content-type'] = 'application/json';
  return { headers, body: JSON.stringify(body) };
}

export function classifyOpenAiError(status: number, body: string): ErrorVerdict {
  const message = errorMessageOf(body) ?? `upstream returned HTTP ${status}`;
  const deadKey = status === 401 || DEAD_KEY_HINTS.some((hint) => body.includes(hint));
  const retry = status === 429 || status >= 500 || status === 401 || status === 403 || status === 408;
  return { retry, disableChannel: deadKey, message };
}

/** The message of an upstream error body in any of the common shapes, else the body's start. */
export function errorMessageOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown } | Array<{ error?: { message?: unknown } }>;
    const first = Array.isArray(parsed) ? parsed[0] : parsed;
    if (typeof first?.error === 'string') return first.error;
    if (first?.error && typeof first.error.message === 'string') return first.error.message;
    if (!Array.isArray(parsed) && typeof parsed.message === 'string') return parsed.message;
  } catch {
    /* not JSON */
  }
  return body ? body.slice(0, 300) : undefined;
}
