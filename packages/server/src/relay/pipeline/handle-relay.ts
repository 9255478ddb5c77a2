import { ChannelStatus, parseGroupLimits, parseJsonObject, type LogAttempt } from '@model-relay/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TokenCounter } from '../../billing/count-tokens.js';
import { InsufficientQuotaError, type QuotaLedger, type Reservation } from '../../billing/ledger.js';
import { outputCapFor, planReservation, type ReservationPlan } from '../../billing/plan-reservation.js';
import { pricesFor } from '../../billing/pricing.js';
import { LimitExceeded, type Admission, type LimitSubject, type UsageLimits } from '../../billing/usage-limits.js';
import type { Notifier } from '../../notify/notifier.js';
import type { OptionStore } from '../../options/option-store.js';
import type { RelayStore } from '../../storage/repositories/relay-store.js';
import type { ChannelRow } from '../../storage/schema.js';
import type { ChatRequest } from '../canonical.js';
import type { CredentialResolver } from '../credentials/credential-resolver.js';
import { dialectOf } from '../dialects/registry.js';
import type { Dialect, RequestFacts, WriteContext } from '../dialects/types.js';
import { nowSeconds } from '../dialects/shared.js';
import { adapterFor } from '../providers/registry.js';
import type { ChannelTarget, Endpoint, ProviderAdapter } from '../providers/types.js';
import { RelayError } from '../relay-error.js';
import { sendUpstream } from '../transport/send-upstream.js';
import type { UpstreamPools } from '../transport/upstream-pools.js';
import { authenticateKey, type KeyAuth } from './authenticate-key.js';
import { deliver, type DeliveryOutcome } from './deliver.js';
import type { InFlightRequests } from './in-flight.js';
import { mapModel } from './map-model.js';
import { selectChannel } from './select-channel.js';
import { settle } from './settle.js';

export interface RelayDeps {
  store: RelayStore;
  ledger: QuotaLedger;
  options: OptionStore;
  pools: UpstreamPools;
  notifier: Notifier;
  /** Counts tokens off the event loop when an upstream reports no usage. */
  counter: TokenCounter;
  /** Resolves and caches credentials that need I/O (Vertex tokens) and signs requests (AWS SigV4). */
  credentials: CredentialResolver;
  /** Requests running on this instance (a shutdown waits for them). */
  inFlight: InFlightRequests;
  /** Per-key and per-user requests/tokens per minute and quota per day/month. */
  limits: UsageLimits;
}

/** What an adapter is told about a channel. */
export function targetOf(channel: ChannelRow): ChannelTarget {
  return { type: channel.type, baseUrl: channel.base_url, key: channel.key, other: channel.other, config: parseJsonObject(channel.config) ?? {} };
}

/** A client's request as an ingress route read it. */
export interface IncomingCall {
  /** The client's dialect: it parses the body when translation is needed and writes answers and errors. */
  dialect: Dialect;
  endpoint: Endpoint;
  /** The JSON body, or the bytes of an upload (multipart audio) with their content type. */
  body: Record<string, unknown> | { raw: Buffer; contentType: string };
  facts: RequestFacts;
  /** The path the client called. */
  path: string;
  /** Client headers its dialect defines, for a provider of the same dialect (anthropic-beta). */
  forwardHeaders?: Record<string, string>;
  /** Writing options of the client's dialect (Gemini: stream as a JSON array rather than SSE). */
  jsonArrayStream?: boolean;
}

const ID_PREFIX: Record<string, string> = { 'openai-chat': 'chatcmpl-', 'openai-responses': 'resp_', anthropic: 'msg_', gemini: '', 'bedrock-converse': '' };
/** Longest model name taken: names are echoed in errors and logs. */
const MAX_MODEL_LENGTH = 200;

/**
 * The relay pipeline for one request: authenticate the key -> reserve quota -> (select a channel -> build
 * the upstream request, translating between dialects only when they differ -> send -> deliver, retrying on
 * another channel after a failure the client has not seen) -> settle once. The reservation is settled exactly
 * once on every path, including thrown errors, through `finally`.
 */
export function handleRelay(deps: RelayDeps, call: IncomingCall, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  return deps.inFlight.track(relay(deps, call, request, reply));
}

async function relay(deps: RelayDeps, call: IncomingCall, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const started = Date.now();
  const auth = await authenticateKey(deps.store, request);
  const { token, user } = auth;
  const model = call.facts.model;
  if (!model) throw new RelayError(400, '请求缺少 model 字段');
  if (model.length > MAX_MODEL_LENGTH || hasControlCharacter(model)) throw new RelayError(400, '模型名称无效');
  if (token.models) {
    const allowed = token.models.split(',').map((m) => m.trim()).filter(Boolean);
    if (allowed.length > 0 && !allowed.includes(model)) throw new RelayError(403, `该令牌无权使用模型：${model}`, 'invalid_request_error', 'model_not_allowed');
  }

  // Requests and tokens per minute, before anything is reserved.
  const subjects = limitSubjects(auth, deps.options);
  const admission = await admit(deps.limits, subjects, Math.ceil(call.facts.promptBound * 0.3));

  const prices = pricesFor(deps.options, model, user.group);
  const generates = call.endpoint === 'chat' || call.endpoint === 'completions';
  const plan = planReservation(
    { model, promptBound: call.facts.promptBound, generates, maxTokens: call.facts.maxTokens, choices: call.facts.choices, floor: deps.options.number('PreConsumedQuota') },
    prices,
  );
  let reservation: Reservation;
  try {
    reservation = await deps.ledger.reserve({
      requestId: request.id,
      userId: user.id,
      tokenId: token.id,
      unlimited: Boolean(token.unlimited_quota),
      amount: plan.amount,
      minimum: plan.minimum,
      // For a crash takeover: bytes overstate tokens about threefold for English and Chinese alike.
      model,
      promptEstimate: call.facts.promptBound * 0.3,
      stream: call.facts.stream,
    });
  } catch (error) {
    await deps.limits.settle(admission, { tokens: 0, charged: 0 });
    if (error instanceof InsufficientQuotaError) throw new RelayError(429, error.message, 'insufficient_quota', 'insufficient_quota');
    throw error;
  }
  // Quota per day and month, once it is known what this request holds.
  try {
    await deps.limits.hold(admission, reservation.amount);
  } catch (error) {
    await deps.ledger.settle(reservation, { cost: 0, channelId: 0 });
    await deps.limits.settle(admission, { tokens: 0, charged: 0 });
    throw error instanceof LimitExceeded ? limitError(error) : error;
  }

  let outcome: DeliveryOutcome | undefined;
  let channel: ChannelRow | undefined;
  let error: unknown;
  const attempts: LogAttempt[] = [];
  try {
    ({ outcome, channel } = await attempt(deps, call, auth, plan, outputCapFor(plan, reservation.amount, call.facts.choices), request, reply, attempts));
  } catch (thrown) {
    error = thrown;
    throw thrown;
  } finally {
    const failure = outcome ? undefined : error instanceof RelayError ? { message: error.message, status: error.status } : { message: '网关内部错误', status: 500 };
    const used = await settle(deps, request, { reservation, prices, facts: call.facts, outcome, channel, user, token, requestId: request.id, started, dialect: dialectLabel(call), attempts, failure });
    await deps.limits.settle(admission, used);
  }
}

/** The key's own limits and its owner's (a user without their own takes their group's defaults, GroupLimits). */
function limitSubjects(auth: KeyAuth, options: OptionStore): LimitSubject[] {
  const { token, user } = auth;
  const group = parseGroupLimits(options.get('GroupLimits'))?.[user.group] ?? {};
  const own = (value: number, fallback = 0) => Number(value) > 0 ? Number(value) : fallback;
  return [
    { id: `key:${token.id}`, label: '令牌', rpm: own(token.rpm_limit), tpm: own(token.tpm_limit), daily: own(token.daily_quota_limit), monthly: own(token.monthly_quota_limit) },
    { id: `user:${user.id}`, label: '用户', rpm: own(user.rpm_limit, group.rpm), tpm: own(user.tpm_limit, group.tpm), daily: own(user.daily_quota_limit, group.daily), monthly: own(user.monthly_quota_limit, group.monthly) },
  ].filter((s) => s.rpm > 0 || s.tpm > 0 || s.daily > 0 || s.monthly > 0);
}

async function admit(limits: UsageLimits, subjects: LimitSubject[], tokens: number): Promise<Admission> {
  try {
    return await limits.admit(subjects, tokens);
  } catch (error) {
    throw error instanceof LimitExceeded ? limitError(error) : error;
  }
}

/** OpenAI's shape for a rate limit: 429, type `requests` / code `rate_limit_exceeded`, with Retry-After. */
const limitError = (error: LimitExceeded) => new RelayError(429, error.message, 'requests', 'rate_limit_exceeded', { 'retry-after': String(error.retryAfter) });

/** The client dialect as logged: the conversation dialect, or the OpenAI endpoint for OpenAI's other APIs. */
const dialectLabel = (call: IncomingCall) => (call.endpoint === 'chat' ? call.dialect.name : `openai-${call.endpoint}`);

/** Channels in turn until one answers (RetryTimes more after the first failure, never the same one twice). */
async function attempt(
  deps: RelayDeps,
  call: IncomingCall,
  auth: KeyAuth,
  plan: ReservationPlan,
  cap: number | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  /** Filled with every channel that was tried and left, and why. */
  attempts: LogAttempt[],
): Promise<{ outcome: DeliveryOutcome; channel: ChannelRow }> {
  const model = call.facts.model;
  const tried = new Set<number>();
  const retryTimes = Math.max(0, Math.floor(deps.options.number('RetryTimes')));
  const candidates = auth.pinnedChannelId ? [] : await deps.store.candidates(auth.user.group, model);
  const context: WriteContext = { id: `${ID_PREFIX[call.dialect.name] ?? ''}${request.id}`, model, created: nowSeconds(), includeUsage: call.facts.includeUsage, jsonArray: call.jsonArrayStream };
  let canonical: ChatRequest | undefined;
  let lastFailure: Failure | undefined;

  for (let attempt = 0; attempt <= retryTimes; attempt++) {
    let channel: ChannelRow | undefined;
    if (auth.pinnedChannelId) {
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
      if (response.status >= 400) {
        const text = await response.body.text().catch(() => '');
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

const hasControlCharacter = (text: string) => [...text].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127);
const generates = (call: IncomingCall) => call.endpoint === 'chat' || call.endpoint === 'completions';
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
