import { LogType, type LogAttempt } from '@model-relay/contract';
import type { FastifyRequest } from 'fastify';
import { checkUsage, type CheckedUsage, type UsageBounds } from '../../billing/check-usage.js';
import { approximateTokens, type TokenCounter } from '../../billing/count-tokens.js';
import type { QuotaLedger, Reservation, Settlement } from '../../billing/ledger.js';
import { costOf, describePrice, type Prices } from '../../billing/pricing.js';
import { EMPTY_USAGE, type Usage } from '../../billing/usage.js';
import type { GatewayMetrics } from '../../metrics/gateway-metrics.js';
import type { OptionStore } from '../../options/option-store.js';
import type { ChannelRow, TokenRow, UserRow } from '../../storage/schema.js';
import type { RequestFacts } from '../dialects/types.js';
import type { DeliveryOutcome } from './deliver.js';

export interface SettleDeps {
  ledger: QuotaLedger;
  options: OptionStore;
  counter: TokenCounter;
  metrics?: GatewayMetrics;
}

/** How the request found its channel: session affinity, and the models tried (the first is the one asked for). */
export interface Routing {
  affinity: boolean;
  requested: string;
  models: string[];
}

export interface Finished {
  reservation: Reservation;
  /** The prices of the model that answered (or of the last one tried). */
  prices: Prices;
  facts: RequestFacts;
  /** The model that answered (a fallback's when the one asked for could not be served), or the last one tried. */
  model: string;
  routing?: Routing;
  /** What reached the client; undefined when nothing did (refused, failed upstream, thrown). */
  outcome?: DeliveryOutcome;
  channel?: ChannelRow;
  user: UserRow;
  token: TokenRow;
  requestId: string;
  started: number;
  /** The client's dialect (or OpenAI endpoint), for the log. */
  dialect: string;
  /** Channels tried and left before the answer (or the failure), and why. */
  attempts: LogAttempt[];
  /** Why the request failed, when no answer reached the client. */
  failure?: { message: string; status: number };
  /** The most the request could use (its reservation's bounds): an upstream report above them is billed at them. */
  bounds: UsageBounds;
}

/**
 * The usage a request is billed: the upstream's report checked (billing/check-usage.ts), or counted when there is
 * none. Never throws: a failed count bills an approximate one within the bounds.
 */
export async function billedUsage(
  deps: Pick<SettleDeps, 'options' | 'counter'>,
  request: Pick<FastifyRequest, 'log'>,
  facts: RequestFacts,
  bounds: UsageBounds,
  reported: Usage | undefined,
  delivered: string,
): Promise<CheckedUsage> {
  const approximate = deps.options.bool('ApproximateTokenEnabled');
  const count = (texts: string[]) => (approximate ? Promise.resolve(texts.map(approximateTokens)) : deps.counter.count(texts));
  try {
    return await checkUsage(reported, { promptText: facts.promptText, promptChars: facts.promptBound, delivered, bounds, count });
  } catch (error) {
    request.log.error({ err: error }, 'usage counting failed; billing an approximate count');
    return { usage: { prompt_tokens: Math.min(bounds.prompt, Math.ceil(facts.promptBound / 4)), completion_tokens: Math.min(bounds.completion, approximateTokens(delivered)) }, anomalies: [] };
  }
}

/**
 * Settles a finished request's reservation, exactly once, and answers what was charged and the tokens used (for
 * the usage limits). The upstream's usage is checked first (billing/check-usage.ts). Nothing may stop the
 * settlement: counting is bounded and falls back to an approximate count, and whatever else throws still ends in
 * a settlement (charging what is known), so no exception can leave quota held or a request unbilled.
 */
export async function settle(deps: SettleDeps, request: FastifyRequest, done: Finished): Promise<{ charged: number; tokens: number }> {
  const { reservation, prices, outcome, channel, facts, user, token } = done;
  let usage: Usage = EMPTY_USAGE;
  let anomalies: string[] = [];
  if (outcome) {
    // A codec's answer already told the client the usage it is billed (deliver.ts): that very usage.
    ({ usage, anomalies } = outcome.billed ?? (await billedUsage(deps, request, facts, done.bounds, outcome.usage, outcome.text)));
    if (anomalies.length > 0) request.log.warn({ channel: channel?.id, reported: outcome.usage, anomalies }, 'upstream usage anomaly');
  }
  const cost = outcome ? costOf(usage, prices) : 0;
  const elapsed = Date.now() - done.started;
  // A request no channel answered is logged (type 5, no charge) when a channel was tried or the gateway failed it.
  const failed = !outcome && (done.attempts.length > 0 || (done.failure?.status ?? 0) >= 500);
  const lastTried = done.attempts.at(-1);
  const log = (outcome || failed) && deps.options.bool('LogConsumeEnabled') ? logRow() : undefined;
  const charged = await deps.ledger
    .settle(reservation, {
      cost,
      served: Boolean(outcome),
      channelId: outcome && channel ? channel.id : 0,
      usageAnomaly: anomalies.length > 0,
      usage:
        outcome || failed
          ? { model: done.model, promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, cachedTokens: usage.cached_tokens ?? 0, reasoningTokens: usage.reasoning_tokens ?? 0, latencyMs: elapsed, failed: !outcome }
          : undefined,
      log,
    })
    .catch((error: unknown) => request.log.error({ err: error, reservation: reservation.requestId }, 'settlement failed; crash recovery will refund it'));
  if (outcome || failed) {
    deps.metrics?.observeRequest({
      dialect: done.dialect,
      model: done.model,
      channelId: channel?.id ?? lastTried?.channel_id ?? 0,
      channelName: channel?.name ?? lastTried?.channel_name ?? '',
      outcome: outcome?.kind ?? 'failed',
      seconds: elapsed / 1000,
      firstByteSeconds: outcome?.firstByteAt ? Math.max(0, outcome.firstByteAt - done.started) / 1000 : undefined,
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      cachedTokens: usage.cached_tokens ?? 0,
      reasoningTokens: usage.reasoning_tokens ?? 0,
      quota: charged ?? 0,
      usageAnomaly: anomalies.length > 0,
    });
  }
  return { charged: charged ?? 0, tokens: usage.prompt_tokens + usage.completion_tokens };

  function logRow(): Settlement['log'] {
    const suffix =
      (outcome?.kind === 'aborted' ? '（客户端中途断开）' : outcome?.kind === 'broken' ? '（上游流式响应中断）' : '') + (anomalies.length > 0 ? `；用量异常：${anomalies.join('；')}` : '');
    return {
      type: outcome ? LogType.Consume : LogType.Error,
      user_id: user.id,
      username: user.username,
      created_at: Math.floor(Date.now() / 1000),
      content: outcome ? describePrice(prices, usage, cost) + suffix : `请求失败：${done.failure?.message ?? ''}`,
      token_name: token.name,
      token_id: token.id,
      model_name: done.model,
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      channel_id: channel?.id ?? lastTried?.channel_id ?? 0,
      channel_name: channel?.name ?? lastTried?.channel_name ?? '',
      request_id: done.requestId,
      elapsed_time: elapsed,
      first_byte_ms: outcome?.firstByteAt ? Math.max(0, outcome.firstByteAt - done.started) : 0,
      is_stream: facts.stream ? 1 : 0,
      dialect: done.dialect,
      cached_tokens: usage.cached_tokens ?? 0,
      cache_write_tokens: (usage.cache_write_tokens ?? 0) + (usage.cache_write_1h_tokens ?? 0),
      reasoning_tokens: usage.reasoning_tokens ?? 0,
      error: outcome ? null : (done.failure?.message ?? '').slice(0, 2000),
      attempts: done.attempts.length > 0 ? JSON.stringify(done.attempts) : null,
      routing: routingOf(done.routing),
    };
  }
}

/** The log's routing JSON (contract LogRouting), when there is something to say: affinity, or a fallback tried. */
function routingOf(routing: Routing | undefined): string | null {
  if (!routing || (!routing.affinity && routing.models.length <= 1)) return null;
  return JSON.stringify({ affinity: routing.affinity, requested_model: routing.requested, models: routing.models.length > 1 ? routing.models : [] });
}
