import type { RelayRequest, RelayReply } from './types.js';
import { providerInfo, type LogAttempt } from '@model-relay/contract';
import type { CheckedUsage } from '../../billing/check-usage.js';
import type { Routing } from '../../billing/meter.js';
import type { Usage } from '../../billing/usage.js';
import type { ChannelRow } from '../../storage/schema.js';
import type { ChatRequest } from '../canonical.js';
import { CredentialError } from '../credentials/credential-resolver.js';
import { dialectOf } from '../dialects/registry.js';
import type { WriteContext } from '../dialects/types.js';
import { nowSeconds } from '../dialects/shared.js';
import { adapterFor } from '../providers/registry.js';
import { RelayError } from '../relay-error.js';
import type { KeyAuth } from './authenticate-key.js';
import { callProvider, targetOf, UpstreamUnreachable } from './call-provider.js';
import { classifyUpstreamError, left, retryable, type Failure } from './channel-failure.js';
import { deliver } from './deliver.js';
import { drainAfterClientLeft } from './stream-events.js';
import { clientGone } from './delivery-failures.js';
import type { DeliveryMeter, DeliveryOutcome, Streaming } from './delivery-types.js';
import { LargeJson } from '../ingress/large-json.js';
import { buildUpstream, type UpstreamSpec } from './build-upstream.js';
import { readFacts, type Reading } from '../ingress/read-facts.js';
import type { UpstreamRequest } from '../providers/types.js';
import { isUpload, type IncomingCall, type RelayDeps } from './types.js';
import { mapModel } from './map-model.js';
import { sessionOf, type SessionAffinity } from './route-request.js';
import { selectChannel } from './select-channel.js';
import { Cancel } from '../transport/cancel.js';

/**
 * The upstream half of a relayed request: channels tried in turn, each one's request built (passed through or
 * translated), sent and delivered to the client, and the failures a client has not seen retried on another.
 * handle-relay.ts opens the request's billing meter before and closes it after.
 */

/** What the attempts need of the request's billing meter (billing/meter.ts); its cap does not change while they run. */
export interface MeterView {
  /** The output cap per answer to send upstream (undefined: the reservation covers the whole allowance). */
  cap: number | undefined;
  /** Output tokens per answer the upstream may write (the cap, or the plan's allowance). */
  allowance: number;
  /** Resolves once the reservation is held; nothing is written to the client, nor an upstream answer read, before. */
  ready: () => Promise<void>;
  /** How far an answer got (for a crash takeover's charge). */
  progress: (channelId: number, deliveredChars: number) => void;
  /** The usage this channel's answer is billed (checked against the request's bounds), for answers that carry it. */
  bill: (channel: ChannelRow, reported: Usage | undefined, delivered: string) => Promise<CheckedUsage>;
}

/** Whether the endpoint generates text (its output can be capped by the reservation). */
const generates = (call: IncomingCall) => call.endpoint === 'chat' || call.endpoint === 'completions';

/**
 * Channels of `model` in turn until one answers (RetryTimes more after the first failure, never the same one
 * twice); the first is the channel this agent session used last, when it is still a candidate (route-request.ts).
 */
export async function attemptChannels(
  deps: RelayDeps,
  call: IncomingCall,
  model: string,
  auth: KeyAuth,
  meter: MeterView,
  request: RelayRequest,
  reply: RelayReply,
  /** Filled with every channel that was tried and left, and why. */
  attempts: LogAttempt[],
  /** Told whether session affinity chose the channel that answered. */
  routing: Routing,
): Promise<{ outcome: DeliveryOutcome | Streaming; channel: ChannelRow }> {
  const tried = new Set<number>();
  const retryTimes = Math.max(0, Math.floor(deps.options.number('RetryTimes')));
  const candidates = auth.pinnedChannelId ? [] : await deps.store.candidates(auth.user.group, model);
  const session = auth.pinnedChannelId ? undefined : deps.affinity.scope(auth.token.id, model, sessionOf(request.headers, call.facts.session, deps.options.get('SessionAffinityHeader')));
  const preferred = await deps.affinity.channel(session);
  const context: WriteContext = {
    id: `${call.dialect.idPrefix}${request.id}`,
    model,
    created: nowSeconds(),
    includeUsage: call.facts.includeUsage,
    jsonArray: call.jsonArrayStream,
    ...(call.facts.clientTools ? { clientTools: new Map(call.facts.clientTools) } : {}),
  };
  /** The client body's own reading of its prompt, for an attempt whose upstream body cannot be read again. */
  const ownPrompt = call.facts.promptText;
  /** One translation of the client's body for every attempt of this request. */
  const canonical: { request?: ChatRequest } = {};
  let lastFailure: Failure | undefined;
  /** A channel whose cached credentials (a Vertex access token) were refused once: tried again with fresh ones. */
  let refreshed: ChannelRow | undefined;
  let again: ChannelRow | undefined;

  for (let attempt = 0; attempt <= retryTimes; attempt++) {
    let channel: ChannelRow | undefined;
    if (again) {
      [channel, again] = [again, undefined];
    } else if (auth.pinnedChannelId) {
      if (attempt > 0) break;
      channel = await deps.store.findChannel(auth.pinnedChannelId);
      if (!channel) throw new RelayError(404, `渠道 #${auth.pinnedChannelId} 不存在`);
    } else {
      const sticky = attempt === 0 && preferred !== undefined ? candidates.find((c) => c.id === preferred) : undefined;
      channel = sticky ?? selectChannel(candidates, tried);
      if (!channel) break;
      routing.affinity = channel === sticky;
    }
    tried.add(channel.id);
    const provider = adapterFor(channel.type);
    if (!provider || !(call.endpoint === 'chat' || provider.supports(call.endpoint))) {
      const reason = provider ? `渠道类型 ${channel.type} 不支持此接口` : (providerInfo(channel.type).retired ?? `渠道类型 ${channel.type} 暂不支持转发`);
      lastFailure = left(attempts, channel, 0, retryable(new RelayError(501, reason, 'upstream_error')));
      continue;
    }
    const target = targetOf(channel);
    const upstreamModel = mapModel(channel, model);

    // Same dialect: the client's body passes through (model and output limit applied). Else: translate.
    const spoken = provider.dialects(target, upstreamModel);
    const same = call.endpoint !== 'chat' || spoken.includes(call.dialect.name);
    const upstreamDialect = call.endpoint !== 'chat' ? call.dialect : dialectOf(same ? call.dialect.name : spoken[0]);
    if (!upstreamDialect) {
      lastFailure = left(attempts, channel, 0, retryable(new RelayError(501, `渠道类型 ${channel.type} 暂不支持此协议的转换`, 'upstream_error')));
      continue;
    }
    const upload = isUpload(call.body) ? call.body : undefined;
    const spec: UpstreamSpec = {
      endpoint: call.endpoint,
      client: call.dialect.name,
      upstream: upstreamDialect.name,
      target,
      model: upstreamModel,
      stream: call.facts.stream,
      path: call.path,
      generates: generates(call),
      allowance: meter.allowance,
      cap: meter.cap,
      clientLimit: call.facts.maxTokens,
      forwardHeaders: call.forwardHeaders,
      native: call.native,
      jsonArrayStream: call.jsonArrayStream,
      contentType: upload?.contentType,
    };
    /** The request sent, when built on the event loop: its bytes are kept by undici until the answer ends. */
    let sent: UpstreamRequest | undefined;
    const build = () => {
      if (call.body instanceof LargeJson) return deps.bodies.build(call.body, spec);
      sent = buildUpstream(upload ? upload.raw : (call.body as Record<string, unknown>), spec, canonical);
      // Bytes rather than text for HTTP (a WebSocket's message stays text): undici keeps what it is handed.
      if (typeof sent.body === 'string' && sent.url.startsWith('http')) sent.body = Buffer.from(sent.body);
      return sent;
    };

    const abort = new Cancel();
    watchClient(reply.raw, abort);
    /** A stream under way keeps watching the client until it ends. */
    let flowing = false;
    try {
      let response;
      try {
        // Resolve the channel's credentials -> build -> sign -> send, as the channel test does (call-provider.ts).
        response = await callProvider(deps, provider, target, build, abort.signal);
      } catch (error) {
        if (error instanceof CredentialError) {
          request.log.warn({ channel: channel.id, err: error }, 'channel credentials unavailable');
          lastFailure = left(attempts, channel, 0, retryable(new RelayError(502, '渠道凭证无效或无法获取访问令牌', 'upstream_error', 'upstream_error')));
          continue;
        }
        if (!(error instanceof UpstreamUnreachable)) throw error;
        if (abort.signal.aborted) return { outcome: clientGone(reply), channel };
        request.log.warn({ channel: channel.id, err: error.cause }, 'upstream unreachable');
        lastFailure = left(attempts, channel, 0, retryable(new RelayError(504, isTimeout(error.cause) ? '上游服务响应超时' : '上游服务连接失败', 'upstream_error', 'upstream_error')));
        continue;
      }
      try {
        await meter.ready();
      } catch (refused) {
        abort.abort();
        response.body.destroy();
        throw refused;
      }
      if (response.status >= 400) {
        const text = await response.body.text().catch(() => '');
        if (response.status === 401 && provider.credentials) {
          // A token revoked or rotated before its expiry: resolve it again and retry this channel once, uncounted.
          deps.credentials.forget(provider.credentials, target);
          if (refreshed !== channel) {
            refreshed = again = channel;
            attempt--;
            continue;
          }
        }
        lastFailure = left(attempts, channel, response.status, await classifyUpstreamError(deps, provider, channel, { status: response.status, body: text, contentType: response.contentType, retryAfter: response.headers['retry-after'], passThrough: spec.client === spec.upstream && !call.answerAs && !provider.codec?.(target, upstreamModel, undefined, call.endpoint)?.answer }, request));
        if (!lastFailure.retry) break;
        continue;
      }
      const codec = provider.codec?.(target, upstreamModel, upload || call.body instanceof LargeJson ? undefined : (call.body as Record<string, unknown>), call.endpoint);
      // The prompt an answer without usage is counted from: the JSON body the upstream was sent (in its dialect),
      // read again from the bytes undici keeps anyway, so that a stream need not keep the parsed client body too.
      const readSent = (!codec || codec.sendsDialectBody === true || (codec.prompt !== undefined && call.endpoint === 'chat')) && !upload && Buffer.isBuffer(sent?.body) && sent.body[0] === 0x7b;
      call.facts.promptText = !readSent
        ? ownPrompt
        : codec?.prompt
          ? vendorPromptOf(sent!.body as Buffer, codec.prompt)
          : promptOf(sent!.body as Buffer, { dialect: upstreamDialect.name, endpoint: call.endpoint, model: upstreamModel, stream: call.facts.stream });
      const outcome = await deliver(response, { endpoint: call.endpoint, client: call.dialect, upstream: upstreamDialect, codec, translate: !same, stream: call.facts.stream, context, requestId: request.id, meter: new ChannelMeter(meter, channel), drainMs: deps.streamDrainMs, answerAs: call.answerAs }, reply, abort);
      if (outcome.kind === 'streaming') {
        flowing = true;
        if (readSent) request.body = undefined;
        return { outcome: untilFinished(outcome, reply.raw, deps.affinity, session, channel.id), channel };
      }
      if (outcome.kind !== 'failure') {
        deps.affinity.remember(session, channel.id);
        return { outcome, channel };
      }
      if (outcome.status === 401 && provider.credentials) {
        // The same for a token refused in a success-status answer (ERNIE's error 110/111).
        deps.credentials.forget(provider.credentials, target);
        if (refreshed !== channel) {
          refreshed = again = channel;
          attempt--;
          continue;
        }
      }
      lastFailure = left(attempts, channel, outcome.status, await classifyUpstreamError(deps, provider, channel, { status: outcome.status, body: outcome.body, contentType: 'application/json', passThrough: false }, request));
      // A vendor error said with a success status is judged like one said with its status: not always retried.
      if (!lastFailure.retry) break;
    } finally {
      if (!flowing) unwatchClient(reply.raw);
    }
  }
  throw lastFailure ?? retryable(new RelayError(503, `当前分组 ${auth.user.group} 下对于模型 ${model} 无可用渠道`, 'model_not_available', 'model_not_available'));
}

/*
 * The helpers below make the closures that outlive an attempt while its stream flows. They are made here, outside
 * `attemptChannels`, so that they hold only what they name: a closure made inside it would keep its whole scope
 * (the call and its body, the upstream spec, the translated request) for as long as the stream stays open.
 */

/**
 * The prompt's text as the upstream was sent it, read when asked (only if an answer's usage has to be checked or
 * counted at its end). It holds the sent bytes alone, not the parsed body: a parsed body weighs several times its
 * bytes, and a stream keeps what its billing needs for minutes.
 */
function promptOf(bytes: Buffer, reading: Reading): () => string | Promise<string> {
  return () => readFacts(JSON.parse(bytes.toString('utf8')) as Record<string, unknown>, reading).facts.promptText();
}

/** The same for a vendor's own wire (a codec's), read by the codec: `read` must hold nothing of the request. */
function vendorPromptOf(bytes: Buffer, read: (sent: Record<string, unknown>) => string): () => string {
  return () => read(JSON.parse(bytes.toString('utf8')) as Record<string, unknown>);
}

/** The abort of the attempt under way, on its response (`watchClient`). */
const WATCHED = Symbol('attempt abort');
type WatchedResponse = RelayReply['raw'] & { [WATCHED]?: Cancel };

/**
 * Cancels the upstream call when the client leaves before its answer was written (an open stream is first read on
 * for its usage: `drainAfterClientLeft`), until `unwatchClient`. The attempt's abort is kept on the response and the
 * listener is one function for every request: a closure per request lived as long as its stream.
 */
function watchClient(res: WatchedResponse, abort: Cancel): void {
  res[WATCHED] = abort;
  // `on` rather than `once` (whose wrapper costs more per open stream): `unwatchClient` removes it.
  res.on('close', onClientClose);
}

function unwatchClient(res: WatchedResponse): void {
  res.off('close', onClientClose);
  res[WATCHED] = undefined;
}

function onClientClose(this: WatchedResponse): void {
  const abort = this[WATCHED];
  if (abort && !this.writableFinished && !drainAfterClientLeft(this)) abort.abort();
}

/** The delivery's view of the meter for one channel: progress reports and the usage billed (one object, no closures). */
class ChannelMeter implements DeliveryMeter {
  constructor(
    private readonly meter: MeterView,
    private readonly channel: ChannelRow,
  ) {}

  progress(deliveredChars: number): void {
    this.meter.progress(this.channel.id, deliveredChars);
  }

  bill(reported: Usage | undefined, text: string): Promise<CheckedUsage> {
    return this.meter.bill(this.channel, reported, text);
  }
}

/** A stream under way: once it ends the client is no longer watched and the session remembers the channel that answered. */
function untilFinished(streaming: Streaming, res: WatchedResponse, affinity: SessionAffinity, session: string | undefined, channelId: number): Streaming {
  streaming.ends = (outcome) => {
    unwatchClient(res);
    if (outcome) affinity.remember(session, channelId);
  };
  return streaming;
}

const isTimeout = (error: unknown) => /timeout/i.test(String((error as { code?: string }).code ?? (error as Error).name ?? ''));
