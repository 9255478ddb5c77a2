/**
 * The provider adapter contract. An adapter is a pure translator between the gateway's OpenAI-shaped
 * request and one upstream's wire format: it builds the upstream request, reads usage from the response
 * and from stream events, and maps upstream errors. It never does I/O, never reads the database and never
 * touches quota: the pipeline does all of that around it, so every provider gets billing, retries and
 * logging for free.
 */

/** The relay endpoints (OpenAI paths under /v1). */
export type RelayMode =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'images'
  | 'audio_speech'
  | 'audio_transcription'
  | 'audio_translation'
  | 'moderations';

/** What the adapter knows about the channel it is building a request for. */
export interface ChannelTarget {
  type: number;
  /** base URL without trailing slash; empty means the provider's default */
  baseUrl: string;
  key: string;
  /** type-specific extra (Azure: API version) */
  other: string;
  config: Record<string, unknown>;
}

export interface AdapterInput {
  mode: RelayMode;
  /** Path the client called, e.g. /v1/chat/completions. */
  path: string;
  channel: ChannelTarget;
  /** Model name after model mapping. */
  upstreamModel: string;
  /** Parsed JSON body (already rewritten with the upstream model), or undefined for multipart bodies. */
  body: Record<string, unknown> | undefined;
  /** Raw multipart body and its content type when the client sent a file upload. */
  rawBody?: Buffer;
  contentType?: string;
  stream: boolean;
  /**
   * Output tokens per answer the request's reservation pays for, when it is less than the client's own limit
   * (or the client set none): the adapter must ask the upstream for no more than this.
   */
  maxOutputTokens?: number;
}

export interface UpstreamRequest {
  url: string;
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body: string | Buffer | undefined;
}

import type { Usage } from '../../billing/usage.js';

export type { Usage };

export interface ProviderAdapter {
  /** Channel types this adapter serves. */
  readonly channelTypes: readonly number[];
  /** Default base URL per channel type when the channel leaves it empty. */
  defaultBaseUrl(type: number): string;
  buildRequest(input: AdapterInput): UpstreamRequest;
  /** Usage from a complete (non-stream) JSON response body, if the upstream reported it. */
  usageFromResponse(body: unknown): Usage | undefined;
  /**
   * Reads one stream event's data (the text after "data: "). Returns usage when the event carries it and
   * the text content it adds (used to count tokens when the upstream sends no usage).
   */
  readStreamEvent(data: string): { usage?: Usage; text?: string; done?: boolean };
  /** Whether an upstream failure should be retried on another channel, and whether it means a dead key. */
  classifyError(status: number, body: string): { retry: boolean; disableChannel: boolean; message: string };
}
