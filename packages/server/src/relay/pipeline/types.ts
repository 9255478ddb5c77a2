import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { TokenCounter } from '../../billing/count-tokens.js';
import type { MeterLog } from '../../billing/meter-types.js';
import type { BillingMeter } from '../../billing/meter.js';
import type { Notifier } from '../../notify/notifier.js';
import type { OptionStore } from '../../options/option-store.js';
import type { RelayStore } from '../../storage/repositories/relay-store.js';
import type { CredentialResolver } from '../credentials/credential-resolver.js';
import type { Dialect, RequestFacts } from '../dialects/types.js';
import type { BodyWorkers, LargeJson } from '../ingress/large-json.js';
import type { Endpoint } from '../providers/types.js';
import type { UpstreamPools } from '../transport/upstream-pools.js';
import type { InFlightRequests } from './in-flight.js';
import type { SessionAffinity } from './route-request.js';

/** The relay pipeline's shared shapes: what it depends on and what an ingress hands it. */

export interface RelayDeps {
  store: RelayStore;
  /** Billing, crossed once each way: `open` admits, plans and reserves; the meter's `close` settles (billing/meter.ts). */
  meter: BillingMeter;
  options: OptionStore;
  pools: UpstreamPools;
  /** How long a stream whose client left is read on for its usage (ms, STREAM_DRAIN_SECONDS; 0: cancelled at once). */
  streamDrainMs: number;
  notifier: Notifier;
  /** Counts tokens off the event loop when an upstream reports no usage. */
  counter: TokenCounter;
  /** Parse, measure and translate large bodies off the event loop (ingress/large-json.ts). */
  bodies: BodyWorkers;
  /** Resolves and caches credentials that need I/O (Vertex tokens) and signs requests (AWS SigV4). */
  credentials: CredentialResolver;
  /** Requests running on this instance (a shutdown waits for them). */
  inFlight: InFlightRequests;
  /** Which channel an agent session used last (pipeline/route-request.ts). */
  affinity: SessionAffinity;
}

/** A client's request as an ingress route read it. */
export interface IncomingCall {
  /** The client's dialect: it parses the body when translation is needed and writes answers and errors. */
  dialect: Dialect;
  endpoint: Endpoint;
  /** The JSON body (a large one held by a body worker), or the bytes of an upload (multipart audio) with their content type. */
  body: Record<string, unknown> | LargeJson | { raw: Buffer; contentType: string };
  facts: RequestFacts;
  /** What makes the body unusable whatever the channel (the dialect's `validate`), found by the ingress. */
  problem?: string;
  /** The path the client called. */
  path: string;
  /** Client headers its dialect defines, for a provider of the same dialect (anthropic-beta). */
  forwardHeaders?: Record<string, string>;
  /** Writing options of the client's dialect (Gemini: stream as a JSON array rather than SSE). */
  jsonArrayStream?: boolean;
  /**
   * An OpenAI-only endpoint asked in another API's shape and served as OpenAI's (Gemini's embedContent and
   * batchEmbedContents as /v1/embeddings, ingress/gemini-embeddings.ts): the OpenAI answer rewritten in the client's
   * shape. An upstream's error is then answered in the client's dialect, never passed through as it came.
   */
  answerAs?: (answer: Record<string, unknown>) => Record<string, unknown>;
  /** How the client spoke, as logged, when it is neither its dialect's name nor the OpenAI endpoint (gemini-embeddings). */
  label?: string;
  /**
   * With `answerAs`: the request as the client wrote it in its own API, for a provider that speaks that API natively
   * and sends it on rather than OpenAI's body (Gemini's batchEmbedContents requests, with their task types and titles).
   */
  native?: Record<string, unknown>;
}

/** An upload (multipart audio), relayed byte for byte. */
export const isUpload = (body: IncomingCall['body']): body is { raw: Buffer; contentType: string } => Buffer.isBuffer((body as { raw?: unknown }).raw);

/**
 * What the pipeline reads of a client's request: fastify's request (every relay route), or the relay's own for the
 * JSON posts it serves without fastify (ingress/direct.ts). Nothing else of either is used.
 */
export interface RelayRequest {
  readonly id: string;
  readonly headers: IncomingHttpHeaders;
  readonly url: string;
  readonly method: string;
  /** The client's address (through the trusted proxies, TRUSTED_PROXIES). */
  readonly ip: string;
  readonly protocol: 'http' | 'https';
  readonly query: unknown;
  /** Let go of (undefined) once a stream no longer needs the parsed body. */
  body: unknown;
  readonly log: MeterLog;
}

/** What the pipeline does with the answer: writes it on `raw`, having said so with `hijack` (fastify then leaves it). */
export interface RelayReply {
  readonly raw: ServerResponse;
  readonly request: { readonly protocol: 'http' | 'https' };
  readonly sent: boolean;
  hijack(): unknown;
}
