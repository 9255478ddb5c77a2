import { ChannelStatus, parseJsonObject, type LogAttempt } from '@model-relay/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ReservationPlan } from '../../billing/plan-reservation.js';
import type { ChannelRow } from '../../storage/schema.js';
import type { ChatRequest } from '../canonical.js';
import { dialectOf } from '../dialects/registry.js';
import type { WriteContext } from '../dialects/types.js';
import { nowSeconds } from '../dialects/shared.js';
import { adapterFor } from '../providers/registry.js';
import type { ChannelTarget, ProviderAdapter } from '../providers/types.js';
import { RelayError } from '../relay-error.js';
import { sendUpstream } from '../transport/send-upstream.js';
import type { KeyAuth } from './authenticate-key.js';
import { deliver, type DeliveryOutcome } from './deliver.js';
import type { IncomingCall, RelayDeps } from './handle-relay.js';
import { mapModel } from './map-model.js';
import { selectChannel } from './select-channel.js';

/**
 * The upstream half of a relayed request: channels tried in turn, each one's request built (passed through or
 * translated), sent and delivered to the client, and the failures a client has not seen retried on another.
 * handle-relay.ts reserves before and settles after.
 */

const ID_PREFIX: Record<string, string> = { 'openai-chat': 'chatcmpl-', 'openai-responses': 'resp_', anthropic: 'msg_', gemini: '', 'bedrock-converse': '' };

/** What an adapter is told about a channel. */
export function targetOf(channel: ChannelRow): ChannelTarget {
  return { type: channel.type, baseUrl: channel.base_url, key: channel.key, other: channel.other, config: parseJsonObject(channel.config) ?? {} };
}

/** Whether the endpoint generates text (its output can be capped by the reservation). */
export const generates = (call: IncomingCall) => call.endpoint === 'chat' || call.endpoint === 'completions';

/** Channels in turn until one answers (RetryTimes more after the first failure, never the same one twice). */
export async function attemptChannels(
  deps: RelayDeps,
  call: IncomingCall,
  auth: KeyAuth,
  plan: ReservationPlan,
  cap: number | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  /** Filled with every channel that was tried and left, and why. */
  attempts: LogAttempt[],
  /** Resolves once the reservation is held; nothing is written to the client, nor an upstream answer read, before. */
  ready: () => Promise<void>,
): Promise<{ outcome: DeliveryOutcome; channel: ChannelRow }> {
  const model = call.facts.model;
  const tried = new Set<number>();
  const retryTimes = Math.max(0, Math.floor(deps.options.number('RetryTimes')));
  const candidates = auth.pinnedChannelId ? [] : await deps.store.candidates(auth.user.group, model);
  const context: WriteContext = {
    id: `${ID_PREFIX[call.dialect.name] ?? ''}${request.id}`,
    model,
    created: nowSeconds(),
    includeUsage: call.facts.includeUsage,
    jsonArray: call.jsonArrayStream,
    ...(call.facts.freeformTools ? { freeformTools: new Set(call.facts.freeformTools) } : {}),
  };
  let canonical: ChatRequest | undefined;
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
      channel = selectChannel(candidates, tried);
      if (!channel) break;
    }
    tried.add(channel.id);
    const provider = adapterFor(channel.type);
    if (!provider || !(call.endpoint === 'chat' || provider.supports(call.endpoint))) {
      lastFailure = left(attempts, channel, 0, retryable(new RelayError(501, provider ? `渠道类型 ${channel.type} 不支持此接口` : `渠道类型 ${channel.type} 暂不支持转发`, 'upstream_error')));
      continue;
    }
    const target = targetOf(channel);
    const upstreamModel = mapModel(channel, model);
    if (provider.credentials) {
      try {
        target.credentials = await deps.credentials.resolve(provider.credentials, target);
      } catch (error) {
        request.log.warn({ channel: channel.id, err: error }, 'channel credentials unavailable');
        lastFailure = left(attempts, channel, 0, retryable(new RelayError(502, '渠道凭证无效或无法获取访问令牌', 'upstream_error', 'upstream_error')));
        continue;
      }
    }

    // Same dialect: the client's body passes through (model and output cap applied). Else: translate.
    const spoken = provider.dialects(target, upstreamModel);
    const same = call.endpoint !== 'chat' || spoken.includes(call.dialect.name);
    const upstreamDialect = call.endpoint !== 'chat' ? call.dialect : dialectOf(same ? call.dialect.name : spoken[0]);
    if (!upstreamDialect) {
      lastFailure = left(attempts, channel, 0, retryable(new RelayError(501, `渠道类型 ${channel.type} 暂不支持此协议的转换`, 'upstream_error')));
      continue;
    }
    let body: Record<string, unknown> | Buffer;
    const upload = isUpload(call.body) ? call.body : undefined;
    if (upload) body = upload.raw;
    else if (same) body = call.dialect.rewrite(call.body as Record<string, unknown>, { model: upstreamModel, maxOutputTokens: generates(call) ? cap : undefined });
    else {
      canonical ??= call.dialect.parseRequest(call.body as Record<string, unknown>);
      const limit = Math.min(canonical.maxOutputTokens ?? plan.outputTokens, cap ?? Infinity);
      body = upstreamDialect.buildRequest({ ...canonical, model: upstreamModel, maxOutputTokens: limit, stream: call.facts.stream });
    }
    let upstream = provider.build({
      endpoint: call.endpoint,
      dialect: upstreamDialect.name,
      channel: target,
      model: upstreamModel,
      stream: call.facts.stream,
      body,
      contentType: upload?.contentType,
      path: call.path,
      forwardHeaders: same ? call.forwardHeaders : undefined,
      jsonArrayStream: same ? call.jsonArrayStream : undefined,
    });
    if (provider.credentials && target.credentials) upstream = await deps.credentials.sign(provider.credentials, upstream, target.credentials);

    const abort = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableFinished) abort.abort();
    };
    reply.raw.once('close', onClose);
    try {
      let response;
      try {
        response = await sendUpstream(deps.pools, upstream, abort.signal);
      } catch (error) {
        if (abort.signal.aborted) {
          reply.hijack();
          reply.raw.destroy();
          return { outcome: { kind: 'aborted', text: '' }, channel };
        }
        request.log.warn({ channel: channel.id, err: error }, 'upstream unreachable');
        lastFailure = left(attempts, channel, 0, retryable(new RelayError(504, isTimeout(error) ? '上游服务响应超时' : '上游服务连接失败', 'upstream_error', 'upstream_error')));
        continue;
      }
      try {
        await ready();
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
        lastFailure = left(attempts, channel, response.status, await failure(deps, provider, channel, response.status, text, request));
        if (!lastFailure.retry) break;
        continue;
      }
      const channelId = channel.id;
      const onProgress = (deliveredChars: number) => deps.ledger.progress({ requestId: request.id, channelId, deliveredChars });
      const outcome = await deliver(response, { endpoint: call.endpoint, client: call.dialect, upstream: upstreamDialect, provider, translate: !same, stream: call.facts.stream, context, requestId: request.id, onProgress }, reply, abort);
      if (outcome.kind !== 'failure') return { outcome, channel };
      lastFailure = left(attempts, channel, outcome.status, await failure(deps, provider, channel, outcome.status, outcome.body, request));
    } finally {
      reply.raw.off('close', onClose);
    }
  }
  throw lastFailure ?? new RelayError(503, `当前分组 ${auth.user.group} 下对于模型 ${model} 无可用渠道`, 'model_not_available', 'model_not_available');
}

const isTimeout = (error: unknown) => /timeout/i.test(String((error as { code?: string }).code ?? (error as Error).name ?? ''));

type Failure = RelayError & { retry: boolean };

/** Records why a channel was left (status 0: it was never reached) and hands the failure on. */
function left(attempts: LogAttempt[], channel: ChannelRow, status: number, failure: Failure): Failure {
  attempts.push({ channel_id: channel.id, channel_name: channel.name, status, reason: failure.message.slice(0, 300) });
  return failure;
}
const retryable = (error: RelayError): Failure => Object.assign(error, { retry: true });
const isUpload = (body: IncomingCall['body']): body is { raw: Buffer; contentType: string } => Buffer.isBuffer((body as { raw?: unknown }).raw);

/** An upstream error: classified by its provider, perhaps disabling the channel, and kept for the client. */
async function failure(deps: RelayDeps, provider: ProviderAdapter, channel: ChannelRow, status: number, body: string, request: FastifyRequest): Promise<Failure> {
  const verdict = provider.classifyError(status, body);
  request.log.warn({ channel: channel.id, status, message: verdict.message }, 'upstream failure');
  if (verdict.disableChannel && deps.options.bool('AutomaticDisableChannelEnabled')) await disableChannel(deps, channel, verdict.message);
  return Object.assign(new RelayError(status, verdict.message, 'upstream_error', 'upstream_error'), { retry: verdict.retry });
}

/** Auto-disable (AutomaticDisableChannelEnabled): status 3 plus a system log the super admin sees. */
async function disableChannel(deps: RelayDeps, channel: ChannelRow, reason: string): Promise<void> {
  if (channel.status !== ChannelStatus.Enabled) return;
  await deps.store.setChannelStatus(channel.id, ChannelStatus.AutoDisabled);
  await deps.notifier.notifyRoot('渠道已被禁用', `渠道「${channel.name}」（#${channel.id}）已被自动禁用，原因：${reason}`);
}
