import { knownOutputLimitOf } from '../../billing/model-limits.js';
import type { ChatRequest } from '../canonical.js';
import { dialectOf } from '../dialects/registry.js';
import type { DialectName } from '../dialects/types.js';
import { adapterFor } from '../providers/registry.js';
import type { ChannelTarget, Endpoint, UpstreamRequest } from '../providers/types.js';
import { RelayError } from '../relay-error.js';

/** What building one channel's request needs to know besides the client's body: plain data (it crosses to the body worker). */
export interface UpstreamSpec {
  endpoint: Endpoint;
  /** The client's dialect and the one the request is written in upstream (the same: a pass-through). */
  client: DialectName;
  upstream: DialectName;
  target: ChannelTarget;
  /** The model after the channel's mapping. */
  model: string;
  stream: boolean;
  path: string;
  /** Whether the endpoint generates text (its output can be capped). */
  generates: boolean;
  /** Output tokens per answer the reservation covers (the plan's allowance, or the cap of a partial reservation). */
  allowance: number;
  /** The cap of a partial reservation, when the reservation could not cover the whole allowance. */
  cap?: number;
  /** The largest output limit the client's body carries (0: none). */
  clientLimit: number;
  forwardHeaders?: Record<string, string>;
  jsonArrayStream?: boolean;
  contentType?: string;
  /** The client's request in its own API (IncomingCall.native). */
  native?: Record<string, unknown>;
}

/**
 * The upstream request for one channel: the client's body passed through (model and output limit applied) when the
 * channel speaks the client's dialect, else translated through the canonical model; then the provider's URL,
 * headers and framing. Pure and synchronous: it runs on the event loop for ordinary bodies and on the body worker
 * for large ones (ingress/large-json.ts). The upstream is told the output the reservation covers, in every field it
 * honours: the cap of a partial reservation, or, when the client set no limit, the reserved allowance where the
 * upstream model's own limit is known (a vendor refuses a limit above its model's, so an unknown model keeps its
 * default). `canonical` keeps one translation for the attempts of one request.
 */
export function buildUpstream(body: Record<string, unknown> | Buffer, spec: UpstreamSpec, canonical: { request?: ChatRequest } = {}): UpstreamRequest {
  const provider = adapterFor(spec.target.type);
  const client = dialectOf(spec.client);
  const upstream = dialectOf(spec.upstream);
  if (!provider || !client || !upstream) throw new RelayError(501, `渠道类型 ${spec.target.type} 暂不支持此协议的转换`, 'upstream_error');
  const upstreamLimit = knownOutputLimitOf(spec.model);
  let payload: Record<string, unknown> | Buffer;
  if (Buffer.isBuffer(body)) payload = body;
  else if (spec.client === spec.upstream || spec.endpoint !== 'chat') {
    const told = spec.cap ?? (spec.clientLimit === 0 && upstreamLimit !== undefined ? Math.min(spec.allowance, upstreamLimit) : undefined);
    payload = client.rewrite(body, { model: spec.model, maxOutputTokens: spec.generates ? told : undefined });
  } else {
    canonical.request ??= client.parseRequest(body);
    const limit = Math.min(canonical.request.maxOutputTokens ?? spec.allowance, spec.cap ?? Infinity, upstreamLimit ?? Infinity);
    payload = upstream.buildRequest(Object.assign({}, canonical.request, { model: spec.model, maxOutputTokens: limit, stream: spec.stream }));
  }
  const same = spec.client === spec.upstream || spec.endpoint !== 'chat';
  return provider.build({
    endpoint: spec.endpoint,
    dialect: spec.upstream,
    channel: spec.target,
    model: spec.model,
    stream: spec.stream,
    body: payload,
    contentType: spec.contentType,
    path: spec.path,
    forwardHeaders: same ? spec.forwardHeaders : undefined,
    jsonArrayStream: same ? spec.jsonArrayStream : undefined,
    native: spec.native,
  });
}
