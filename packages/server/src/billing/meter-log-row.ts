import { LogType } from '@model-relay/contract';
import type { TokenRow, UserRow } from '../storage/schema.js';
import type { Settlement } from './ledger.js';
import type { Finish, MeteredRequest, Routing } from './meter-types.js';
import { describePrice, type PricedSubUsage, type Prices } from './pricing.js';
import type { Usage } from './usage.js';

/**
 * The log row of a request the meter closes (consume type 2, or error type 5 when no channel answered): what it
 * was charged and why, the channel that answered or was tried last, and how it was routed.
 */
export function meterLogRow(
  auth: { token: TokenRow; user: UserRow },
  request: MeteredRequest,
  finish: Finish,
  prices: Prices,
  usage: Usage,
  anomalies: string[],
  cost: number,
  elapsed: number,
  subs: PricedSubUsage[] = [],
): Settlement['log'] {
  const { outcome, channel } = finish;
  const { user, token } = auth;
  const lastTried = finish.attempts.at(-1);
  const suffix =
    (outcome?.kind === 'aborted' ? '（客户端中途断开）' : outcome?.kind === 'broken' ? '（上游流式响应中断）' : '') + (anomalies.length > 0 ? `；用量异常：${anomalies.join('；')}` : '');
  return {
    type: outcome ? LogType.Consume : LogType.Error,
    user_id: user.id,
    username: user.username,
    created_at: Math.floor(Date.now() / 1000),
    content: outcome ? describePrice(prices, usage, cost, subs) + suffix : `请求失败：${finish.failure?.message ?? ''}`,
    token_name: token.name,
    token_id: token.id,
    model_name: finish.model,
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    channel_id: channel?.id ?? lastTried?.channel_id ?? 0,
    channel_name: channel?.name ?? lastTried?.channel_name ?? '',
    request_id: request.requestId,
    elapsed_time: elapsed,
    first_byte_ms: outcome?.firstByteAt ? Math.max(0, outcome.firstByteAt - request.started) : 0,
    is_stream: request.facts.stream ? 1 : 0,
    dialect: request.dialect,
    cached_tokens: usage.cached_tokens ?? 0,
    cache_write_tokens: (usage.cache_write_tokens ?? 0) + (usage.cache_write_1h_tokens ?? 0),
    reasoning_tokens: usage.reasoning_tokens ?? 0,
    error: outcome ? null : (finish.failure?.message ?? '').slice(0, 2000),
    attempts: finish.attempts.length > 0 ? JSON.stringify(finish.attempts) : null,
    routing: routingOf(finish.routing),
  };
}

/** The log's routing JSON (contract LogRouting), when there is something to say: affinity, or a fallback tried. */
function routingOf(routing: Routing | undefined): string | null {
  if (!routing || (!routing.affinity && routing.models.length <= 1)) return null;
  return JSON.stringify({ affinity: routing.affinity, requested_model: routing.requested, models: routing.models.length > 1 ? routing.models : [] });
}
