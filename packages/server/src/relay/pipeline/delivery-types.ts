import type { CheckedUsage } from '../../billing/check-usage.js';
import type { Usage } from '../../billing/usage.js';
import type { Dialect, WriteContext } from '../dialects/types.js';
import type { Endpoint, VendorCodec } from '../providers/types.js';

/** Delivery's shapes (deliver.ts): what it is told of an answer to relay, and what it answers. */

/** What happened once an upstream answered without an error status. */
export type DeliveryOutcome = (
  | { kind: 'success'; usage?: Usage; text: string }
  | { kind: 'broken'; usage?: Usage; text: string; message: string }
  | { kind: 'aborted'; usage?: Usage; text: string }
) & {
  /** When the client got the answer's first byte (epoch ms), if it did. */
  firstByteAt?: number;
  /** The usage billed, already checked and written into the client's answer (a codec's answer): settled as it is. */
  billed?: CheckedUsage;
};

/**
 * A stream that reached the client and goes on from its body's events: it can no longer fail over, and `finished`
 * answers how it ended: an upstream's error ends the client's stream and answers `broken`; it rejects only on a
 * fault of the gateway's own (the end of the stream could not be written).
 */
export interface Streaming {
  kind: 'streaming';
  finished: Promise<DeliveryOutcome>;
  /**
   * What the layers above the delivery do when the stream ends, before it is settled (the outcome, or undefined when
   * `finished` rejected): run by the settlement's one reaction to `finished` rather than each layer chaining a
   * promise of its own, which an open stream would hold with its reactions and closures for its whole life.
   */
  ends?: (outcome: DeliveryOutcome | undefined) => void;
}

/** A failure the client has not seen yet: the next channel may be tried. */
export interface UpstreamFailure {
  kind: 'failure';
  status: number;
  body: string;
}

/** The meter as the delivery sees it, for the channel that answers (billing/meter.ts). */
export interface DeliveryMeter {
  /** Told how many characters a stream has delivered, every few seconds (for a crash takeover's charge). */
  progress(deliveredChars: number): void;
  /**
   * The usage the request will be billed for what the upstream reported (or nothing) and the text delivered
   * (billing/meter.ts `bill`). An answer a codec wrote carries it to the client: the usage it is charged.
   */
  bill(reported: Usage | undefined, text: string): Promise<CheckedUsage>;
}

export interface DeliveryPlan {
  endpoint: Endpoint;
  /** The client's dialect (answers and errors are written in it). */
  client: Dialect;
  /** The dialect of the upstream's answer. */
  upstream: Dialect;
  /** The vendor's own wire around the upstream dialect, when it has one (providers/types.ts VendorCodec). */
  codec?: VendorCodec;
  /** Client and upstream speak differently: answers go through the canonical model. */
  translate: boolean;
  /** The client asked for a stream. */
  stream: boolean;
  context: WriteContext;
  /** The gateway's id of the request (the X-Request-Id header). */
  requestId: string;
  /** The request's meter for the channel that answers (none in the channel test). */
  meter?: DeliveryMeter;
  /** How long a stream whose client left is read on for its usage, in ms (STREAM_DRAIN_SECONDS); 0 cancels it at once. */
  drainMs: number;
  /** The whole answer in the client's own API (IncomingCall.answerAs). */
  answerAs?: (answer: Record<string, unknown>) => Record<string, unknown>;
}
