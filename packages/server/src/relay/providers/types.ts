/**
 * The provider adapter contract. An adapter knows one upstream service: which wire dialect(s) it speaks, its
 * URLs, how it authenticates, its quirks and what its errors mean. It turns a body already written in one of
 * its dialects (by a client in the same dialect, or by the translation core) into the HTTP request to send.
 *
 * It is a pure translator: no I/O, no storage, no quota. Credentials that need I/O (a Vertex access token) are
 * resolved by the pipeline before `build` and handed in; request signing (AWS SigV4) is applied by the
 * pipeline after it. Every provider therefore gets billing, retries, logging and streaming for free.
 *
 * Adding a provider: a folder under providers/ with its adapter and __fixtures__/, and one line in registry.ts.
 */
import type { Usage } from '../../billing/usage.js';
import type { DialectName, Frame } from '../dialects/types.js';
import { flatMap } from '../../lib/arrays.js';

export type { Usage };

/**
 * What a client asked for. `chat` is the conversation endpoint of every dialect and is translated between
 * them; the others exist only in OpenAI's API and pass through to channels that speak it.
 */
export type Endpoint = 'chat' | 'completions' | 'embeddings' | 'images' | 'audio_speech' | 'audio_transcription' | 'audio_translation' | 'moderations' | 'rerank';

/** Credentials the pipeline resolved for a channel before building its request. */
export type ResolvedCredentials =
  | { kind: 'bearer'; token: string }
  | { kind: 'aws'; accessKeyId: string; secretAccessKey: string; sessionToken?: string; region: string };

/** Credentials that need I/O or signing, resolved by the pipeline (relay/credentials/). */
export type CredentialKind = 'google-service-account' | 'aws' | 'baidu-oauth';

/** What the adapter knows about the channel it is building a request for. */
export interface ChannelTarget {
  type: number;
  /** base URL without trailing slash; empty means the provider's default */
  baseUrl: string;
  key: string;
  /** type-specific extra (Azure: API version; Vertex: region) */
  other: string;
  config: Record<string, unknown>;
  credentials?: ResolvedCredentials;
}

export interface BuildInput {
  endpoint: Endpoint;
  /** The dialect `body` is written in (for chat: one of `dialects()`; otherwise OpenAI's). */
  dialect: DialectName;
  channel: ChannelTarget;
  /** Model name after model mapping. */
  model: string;
  stream: boolean;
  /** The body to send: a JSON object in `dialect`, or the raw bytes of an upload (multipart audio). */
  body: Record<string, unknown> | Buffer;
  contentType?: string;
  /** Path the client called, e.g. /v1/embeddings (OpenAI-only endpoints keep it). */
  path: string;
  /** Headers of the client's request that its dialect defines and a provider of the same dialect honours (anthropic-beta). */
  forwardHeaders?: Record<string, string>;
  /**
   * Same-dialect pass-through of a stream the client asked for as one JSON array (Gemini without `alt=sse`): an
   * upstream that can answer in that framing should, so its bytes reach the client unchanged.
   */
  jsonArrayStream?: boolean;
  /**
   * The client's request in its own API when it asked an OpenAI-only endpoint in another API's shape (`body` is then
   * OpenAI's translation of it): a provider that speaks that API sends this on instead (Gemini's embedding requests).
   */
  native?: Record<string, unknown>;
}

export interface UpstreamRequest {
  url: string;
  method: 'POST' | 'GET';
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  /** Signed by the pipeline just before sending (AWS SigV4 for this service). */
  sign?: { scheme: 'aws-sigv4'; service: string };
}

export interface ErrorVerdict {
  /** Worth trying another channel (rate limits, overload, server errors, a dead key on this channel). */
  retry: boolean;
  /** The key or account is dead: AutomaticDisableChannelEnabled may disable the channel. */
  disableChannel: boolean;
  /** A short reason for logs and for the client. */
  message: string;
}

/**
 * The answer side of a vendor's own wire. `build` writes the vendor's request from a body in the adapter's dialect;
 * the codec turns what the vendor answers back into that dialect, so everything downstream (usage, billing, the
 * client's dialect) is the dialect's. A vendor error answered with status 200 throws `VendorAnswerError`.
 */
export interface VendorCodec {
  /** The vendor's whole answer as the dialect's answer body. */
  answer?(json: Record<string, unknown>): Record<string, unknown>;
  /** A reader of one answer's stream (it may keep state): each vendor frame as the dialect's frames. */
  stream?(): (frame: Frame) => Frame[];
  /**
   * The vendor is sent the dialect's own JSON body (only its answers are framed its own way: Bedrock's InvokeModel),
   * so the prompt an answer without usage is counted from can be read again from the bytes sent, as for a vendor
   * with no codec, and a stream need not keep the parsed client body.
   */
  sendsDialectBody?: boolean;
  /**
   * The prompt's text read from the vendor's own JSON chat request, as it was sent: an answer whose usage has to be checked
   * or counted is counted from what the vendor was sent (as for every other upstream), read again from the bytes undici
   * keeps anyway, so that a stream need not keep the parsed client body (bench/README.md, 2026-12-06 night).
   */
  prompt?(sent: Record<string, unknown>): string;
}

export interface ProviderAdapter {
  readonly id: string;
  /** Channel types this adapter serves. */
  readonly channelTypes: readonly number[];
  /**
   * Dialects the upstream speaks for this model, best first. The pipeline passes the client's body through
   * when the client's dialect is among them and translates into the first one otherwise.
   */
  dialects(channel: ChannelTarget, model: string): readonly DialectName[];
  /** OpenAI-only endpoints this provider serves (chat is always served). */
  supports(endpoint: Endpoint): boolean;
  /** Credentials the pipeline must resolve before `build`. */
  readonly credentials?: CredentialKind;
  build(input: BuildInput): UpstreamRequest;
  /**
   * A vendor whose wire differs from the dialect it is reached through (Bedrock's base64 stream envelope, the chat
   * APIs of ERNIE, Hunyuan, Coze...): how its answers read as that dialect's, for this channel, model and client body
   * (when the body is at hand: it is not for an upload or a body parsed on a worker) and the endpoint called (a
   * vendor may answer one endpoint in its own wire and the others in the dialect's: DashScope's native rerank).
   */
  codec?(channel: ChannelTarget, model: string, body?: Record<string, unknown>, endpoint?: Endpoint): VendorCodec | undefined;
  classifyError(status: number, body: string): ErrorVerdict;
  /** Where the upstream lists the models this channel's key can use (the form's 获取模型列表), when it has such a list. */
  modelList?(channel: ChannelTarget): ModelListRequest;
}

/** A GET of the upstream's model list and how to read the names from its answer. */
export interface ModelListRequest {
  url: string;
  headers: Record<string, string>;
  read(json: unknown): string[];
}

/** The ids of an OpenAI-style list (`{ data: [{ id }] }`, also Anthropic's). */
export function idsOfList(json: unknown): string[] {
  const data = (json as { data?: unknown } | undefined)?.data;
  return Array.isArray(data) ? flatMap(data, (m) => (typeof (m as { id?: unknown })?.id === 'string' ? [(m as { id: string }).id] : [])) : [];
}
