import type { LogAttempt } from '@model-relay/contract';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { OptionStore } from '../options/option-store.js';
import type { ChannelRow } from '../storage/schema.js';
import type { CheckedUsage } from './check-usage.js';
import type { TokenCounter } from './count-tokens.js';
import type { QuotaLedger } from './ledger.js';
import type { Usage } from './usage.js';
import type { UsageLimits } from './usage-limits.js';

/** The billing meter's shapes (meter.ts): what it is built from, told of a request, and told when the request ends. */

export interface MeterDeps {
  ledger: QuotaLedger;
  options: OptionStore;
  /** Counts tokens off the event loop when an upstream reports no usage. */
  counter: TokenCounter;
  /** Per-key and per-user requests/tokens per minute and quota per day/month. */
  limits: UsageLimits;
  /** What this instance's running requests hold per user and key (relay/pipeline/in-flight.ts). */
  holds: { hold(subjects: string[], amount: number): () => void; holding(subject: string): number };
  metrics?: GatewayMetrics;
}

/** Where the meter reports what went wrong (a request's logger). */
export interface MeterLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** The endpoints whose bounds differ (relay/providers/types.ts Endpoint). */
export type MeteredEndpoint = 'chat' | 'completions' | 'embeddings' | 'images' | 'audio_speech' | 'audio_transcription' | 'audio_translation' | 'moderations' | 'rerank';

/** What billing needs to know of a request (its facts as the ingress read them, relay/dialects/types.ts RequestFacts). */
export interface MeteredRequest {
  requestId: string;
  /** When the request arrived (epoch ms). */
  started: number;
  endpoint: MeteredEndpoint;
  /** The client's dialect (or OpenAI endpoint), for the log and the metrics. */
  dialect: string;
  /** The model asked for and the fallbacks a channel serves, in the order they are tried. */
  models: string[];
  facts: {
    model: string;
    stream: boolean;
    maxTokens: number;
    choices: number;
    promptBound: number;
    hostedTools?: boolean;
    /** The most web searches the request's own tools allow (Anthropic's max_uses): reserved at the search price. */
    searchBound?: number;
    cacheWrites?: 'none' | '5m' | '1h';
    fastMode?: boolean;
    imageSizeRatio?: number;
    audioBound?: number;
    promptText(): string | Promise<string>;
  };
  /** Bytes of an uploaded recording (multipart audio), whose transcript is bounded like the audio. */
  uploadBytes?: number;
  log: MeterLog;
}

/** How the request found its channel: session affinity, and the models tried (the first is the one asked for). */
export interface Routing {
  affinity: boolean;
  requested: string;
  models: string[];
}

/** What reached the client (relay/pipeline/delivery-types.ts DeliveryOutcome). */
export interface MeteredOutcome {
  kind: 'success' | 'broken' | 'aborted';
  usage?: Usage;
  text: string;
  /** When the client got the answer's first byte (epoch ms), if it did. */
  firstByteAt?: number;
  /** The usage already billed and written into the client's answer (`bill`, a codec's answer): settled as it is. */
  billed?: CheckedUsage;
}

export interface Finish {
  /** The model that answered (a fallback's when the one asked for could not be served), or the last one tried: the prices billed. */
  model: string;
  /** What reached the client; undefined when nothing did (failed upstream, thrown). */
  outcome?: MeteredOutcome;
  channel?: ChannelRow;
  routing?: Routing;
  /** Channels tried and left before the answer (or the failure), and why. */
  attempts: LogAttempt[];
  /** Why the request failed, when no answer reached the client. */
  failure?: { message: string; status: number };
}
