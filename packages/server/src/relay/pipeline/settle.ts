import { LogType, type LogAttempt } from '@model-relay/contract';
import type { FastifyRequest } from 'fastify';
import { approximateTokens, type TokenCounter } from '../../billing/count-tokens.js';
import type { QuotaLedger, Reservation, Settlement } from '../../billing/ledger.js';
import { costOf, describePrice, type Prices } from '../../billing/pricing.js';
import { EMPTY_USAGE, type Usage } from '../../billing/usage.js';
import type { OptionStore } from '../../options/option-store.js';
import type { ChannelRow, TokenRow, UserRow } from '../../storage/schema.js';
import type { RequestFacts } from '../dialects/types.js';
import type { DeliveryOutcome } from './deliver.js';

export interface SettleDeps {
  ledger: QuotaLedger;
  options: OptionStore;
  counter: TokenCounter;
}

export interface Finished {
  reservation: Reservation;
  prices: Prices;
  facts: RequestFacts;
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
}

/**
 * Step 6: settles a finished request's reservation, exactly once. Nothing may stop it: counting is bounded
 * and falls back to an approximate count, and whatever else throws still ends in a settlement (charging what
 * is known), so no exception can leave quota held or a request unbilled.
 */
/** Settles and answers what was charged and the tokens used (for the usage limits). */
export async function settle(deps: SettleDeps, request: FastifyRequest, done: Finished): Promise<{ charged: number; tokens: number }> {
  const { reservation, prices, outcome, channel, facts, user, token } = done;
  let usage: Usage = EMPTY_USAGE;
  if (outcome) {
    try {
      usage = await usageToBill(outcome.usage, outcome.text, facts, deps.counter, deps.options.bool('ApproximateTokenEnabled'));
    } catch (error) {
      request.log.error({ err: error }, 'usage counting failed; billing an approximate count');
      usage = outcome.usage && outcome.usage.total_only === undefined ? outcome.usage : { prompt_tokens: Math.ceil(facts.promptBound / 4), completion_tokens: approximateTokens(outcome.text) };
    }
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
      channelId: outcome && channel ? channel.id : 0,
      usage:
        outcome || failed
          ? { model: facts.model, promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, cachedTokens: usage.cached_tokens ?? 0, reasoningTokens: usage.reasoning_tokens ?? 0, latencyMs: elapsed, failed: !outcome }
          : undefined,
      log,
    })
    .catch((error: unknown) => request.log.error({ err: error, reservation: reservation.requestId }, 'settlement failed; crash recovery will refund it'));
  return { charged: charged ?? 0, tokens: usage.prompt_tokens + usage.completion_tokens };

  function logRow(): Settlement['log'] {
    const suffix = outcome?.kind === 'aborted' ? '（客户端中途断开）' : outcome?.kind === 'broken' ? '（上游流式响应中断）' : '';
    return {
      type: outcome ? LogType.Consume : LogType.Error,
      user_id: user.id,
      username: user.username,
      created_at: Math.floor(Date.now() / 1000),
      content: outcome ? describePrice(prices, usage, cost) + suffix : `请求失败：${done.failure?.message ?? ''}`,
      token_name: token.name,
      token_id: token.id,
      model_name: facts.model,
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
    };
  }
}

/**
 * The usage to bill: the upstream's own report when it sent one; otherwise counted (off the event loop, see
 * billing/count-tokens.ts) from what was delivered (completion) and from the request (prompt).
 */
export async function usageToBill(reported: Usage | undefined, delivered: string, facts: RequestFacts, counter: TokenCounter, approximate: boolean): Promise<Usage> {
  if (reported && reported.total_only === undefined) return reported;
  const prompt = facts.promptText();
  if (!prompt && !delivered && !reported) return EMPTY_USAGE;
  const [promptTokens, completionTokens] = approximate ? [approximateTokens(prompt), approximateTokens(delivered)] : await counter.count([prompt, delivered]);
  // Only a total from the upstream: the prompt is counted here and the rest of the total is the completion.
  if (reported?.total_only !== undefined) {
    const total = reported.total_only;
    return { prompt_tokens: Math.min(promptTokens, total), completion_tokens: Math.max(0, total - promptTokens) };
  }
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens };
}
