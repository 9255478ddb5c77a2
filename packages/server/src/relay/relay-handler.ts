import { ChannelStatus, parseJsonObject } from '@model-relay/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { InsufficientQuotaError, type QuotaLedger, type Reservation } from '../billing/ledger.js';
import { approximateTokens, type TokenCounter } from '../billing/count-tokens.js';
import { outputCapFor, planReservation } from '../billing/plan-reservation.js';
import { costOf, describePrice, pricesFor, type Prices } from '../billing/pricing.js';
import type { Usage } from '../billing/usage.js';
import type { Notifier } from '../notify/notifier.js';
import type { OptionStore } from '../options/option-store.js';
import type { LogsRepository } from '../storage/repositories/logs.js';
import type { RelayStore } from '../storage/repositories/relay-store.js';
import type { ChannelRow, TokenRow, UserRow } from '../storage/schema.js';
import { authenticateKey } from './pipeline/authenticate-key.js';
import { forward, type ForwardOutcome, type UpstreamPools } from './pipeline/forward.js';
import { mapModel } from './pipeline/map-model.js';
import { readRequest, type RelayBody } from './pipeline/read-request.js';
import { selectChannel } from './pipeline/select-channel.js';
import { usageToBill } from './pipeline/settle-usage.js';
import { adapterFor } from './providers/registry.js';
import type { RelayMode } from './providers/types.js';
import { RelayError } from './relay-error.js';

export interface RelayDeps {
  store: RelayStore;
  ledger: QuotaLedger;
  options: OptionStore;
  pools: UpstreamPools;
  logs: LogsRepository;
  notifier: Notifier;
  /** Counts tokens off the event loop when an upstream reports no usage. */
  counter: TokenCounter;
}

/**
 * The relay pipeline for one request: authenticate the key -> read the request -> reserve quota ->
 * (select channel -> adapt -> forward, retrying on another channel on a retryable failure) -> settle once.
 * The reservation is settled exactly once on every path, including thrown errors, through `finally`.
 */
export async function handleRelay(deps: RelayDeps, mode: RelayMode, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const started = Date.now();
  const auth = await authenticateKey(deps.store, request);
  const body = readRequest(request, mode);
  const { token, user } = auth;
  if (token.models) {
    const allowed = token.models.split(',').map((m) => m.trim()).filter(Boolean);
    if (allowed.length > 0 && !allowed.includes(body.model)) {
      throw new RelayError(403, `该令牌无权使用模型：${body.model}`, 'invalid_request_error', 'model_not_allowed');
    }
  }

  const prices = pricesFor(deps.options, body.model, user.group);
  const plan = planReservation(
    { model: body.model, promptBound: body.promptBound, generates: mode === 'chat' || mode === 'completions', maxTokens: body.maxTokens, choices: body.choices, floor: deps.options.number('PreConsumedQuota') },
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
    });
  } catch (error) {
    if (error instanceof InsufficientQuotaError) throw new RelayError(429, error.message, 'insufficient_quota', 'insufficient_quota');
    throw error;
  }
  // Less than the whole allowance was reserved: the upstream may produce only what the reservation pays for.
  const maxOutputTokens = outputCapFor(plan, reservation.amount, body.choices);

  let outcome: ForwardOutcome | undefined;
  let channel: ChannelRow | undefined;
  try {
    const tried = new Set<number>();
    const retryTimes = Math.max(0, Math.floor(deps.options.number('RetryTimes')));
    const candidates = auth.pinnedChannelId ? [] : await deps.store.candidates(user.group, body.model);
    let lastFailure: RelayError | undefined;
    for (let attempt = 0; attempt <= retryTimes; attempt++) {
      if (auth.pinnedChannelId) {
        if (attempt > 0) break;
        channel = await deps.store.findChannel(auth.pinnedChannelId);
        if (!channel) throw new RelayError(404, `渠道 #${auth.pinnedChannelId} 不存在`);
      } else {
        channel = selectChannel(candidates, tried);
        if (!channel) break;
      }
      tried.add(channel.id);
      const adapter = adapterFor(channel.type);
      if (!adapter) {
        lastFailure = new RelayError(501, `渠道类型 ${channel.type} 暂不支持转发`, 'upstream_error');
        continue;
      }
      const upstreamModel = mapModel(channel, body.model);
      const upstream = adapter.buildRequest({
        mode,
        path: request.url.split('?')[0],
        channel: { type: channel.type, baseUrl: channel.base_url, key: channel.key, other: channel.other, config: parseJsonObject(channel.config) ?? {} },
        upstreamModel,
        body: body.json ? { ...body.json, model: upstreamModel } : undefined,
        rawBody: body.rawBody,
        contentType: body.contentType,
        stream: body.stream,
        maxOutputTokens,
      });
      outcome = await forward(deps.pools, adapter, upstream, reply, request.id);
      if (outcome.kind !== 'failure') return;
      const verdict = adapter.classifyError(outcome.status, outcome.body);
      request.log.warn({ channel: channel.id, status: outcome.status, message: verdict.message }, 'upstream failure');
      if (verdict.disableChannel && deps.options.bool('AutomaticDisableChannelEnabled')) await disableChannel(deps, channel, verdict.message);
      lastFailure = new RelayError(outcome.status, verdict.message, 'upstream_error', 'upstream_error');
      if (!verdict.retry) break;
    }
    throw lastFailure ?? new RelayError(503, `当前分组 ${user.group} 下对于模型 ${body.model} 无可用渠道`, 'model_not_available', 'model_not_available');
  } finally {
    await settle(deps, request, { reservation, prices, outcome, channel, body, user, token, started });
  }
}

/**
 * Settles the reservation of a finished request. Nothing may stop it: counting is bounded and falls back to an
 * approximate count, and whatever else throws still ends in a settlement (charging what is known), so no
 * exception can leave quota held or a request unbilled.
 */
async function settle(
  deps: RelayDeps,
  request: FastifyRequest,
  done: { reservation: Reservation; prices: Prices; outcome?: ForwardOutcome; channel?: ChannelRow; body: RelayBody; user: UserRow; token: TokenRow; started: number },
): Promise<void> {
  const { reservation, prices, outcome, channel, body, user, token } = done;
  const delivered = outcome && outcome.kind !== 'failure' ? outcome : undefined;
  let usage: Usage = { prompt_tokens: 0, completion_tokens: 0 };
  if (delivered) {
    try {
      usage = await usageToBill(delivered.usage, delivered.text, body.json, deps.counter, deps.options.bool('ApproximateTokenEnabled'));
    } catch (error) {
      request.log.error({ err: error }, 'usage counting failed; billing an approximate count');
      usage = delivered.usage && delivered.usage.total_only === undefined ? delivered.usage : { prompt_tokens: Math.ceil(body.promptBound / 4), completion_tokens: approximateTokens(delivered.text) };
    }
  }
  const cost = delivered ? costOf(usage, prices) : 0;
  const suffix = delivered?.kind === 'aborted' ? '（客户端中途断开）' : delivered?.kind === 'broken' ? '（上游流式响应中断）' : '';
  await deps.ledger
    .settle(reservation, {
      cost,
      channelId: delivered && channel ? channel.id : 0,
      log:
        delivered && deps.options.bool('LogConsumeEnabled')
          ? {
              user_id: user.id,
              username: user.username,
              created_at: Math.floor(Date.now() / 1000),
              content: describePrice(prices, usage, cost) + suffix,
              token_name: token.name,
              token_id: token.id,
              model_name: body.model,
              prompt_tokens: usage.prompt_tokens,
              completion_tokens: usage.completion_tokens,
              channel_id: channel?.id ?? 0,
              request_id: request.id,
              elapsed_time: Date.now() - done.started,
              is_stream: body.stream ? 1 : 0,
            }
          : undefined,
    })
    .catch((error: unknown) => request.log.error({ err: error, reservation: reservation.requestId }, 'settlement failed; crash recovery will refund it'));
}

/** Auto-disable (AutomaticDisableChannelEnabled): status 3 plus a system log the super admin sees. */
async function disableChannel(deps: RelayDeps, channel: ChannelRow, reason: string): Promise<void> {
  if (channel.status !== ChannelStatus.Enabled) return;
  await deps.store.setChannelStatus(channel.id, ChannelStatus.AutoDisabled);
  await deps.notifier.notifyRoot('渠道已被禁用', `渠道「${channel.name}」（#${channel.id}）已被自动禁用，原因：${reason}`);
}
