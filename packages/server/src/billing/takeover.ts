import { LogType } from '@model-relay/contract';
import type { Kysely } from 'kysely';
import type { OptionStore } from '../options/option-store.js';
import type { Database } from '../storage/schema.js';
import { TOKENS_PER_CHARACTER } from './count-tokens.js';
import type { QuotaLedger } from './ledger.js';
import { costOf, describePrice, pricesFor } from './pricing.js';
import { EMPTY_USAGE, type Usage } from './usage.js';
import { isSlice } from './ledger-slices.js';

/**
 * Crash takeover: the open reservations of instances that stopped renewing their lease (killed, frozen, cut
 * off) are settled by a survivor, so no quota stays held and nothing is charged twice (a settlement claims
 * the reservation row; the instance, should it come back, finds it gone).
 *
 * What the dead instance delivered is known only as far as it recorded it: streams report the characters
 * sent every few seconds. Those are charged (with the prompt's estimate) at the model's price, never more
 * than was reserved; a request with nothing recorded is refunded in full. Either way a log row says so. A slice
 * of the balances it held for its busy keys (ledger-slices.ts) goes back whole, with no log row: the requests it
 * had charged to it are logged already, and those in flight held their share of it without a row of their own.
 */
export class Takeover {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly ledger: QuotaLedger,
    private readonly options: OptionStore,
    private readonly isAlive: (instanceId: string) => Promise<boolean>,
  ) {}

  /** Settles what dead instances left open; returns how many reservations it settled. */
  async run(): Promise<number> {
    const holders = await this.db.selectFrom('quota_reservations').select('instance_id').distinct().where('instance_id', '!=', this.ledger.instanceId).execute();
    let settled = 0;
    for (const { instance_id: instanceId } of holders) {
      if (await this.isAlive(instanceId)) continue;
      const rows = await this.db
        .selectFrom('quota_reservations as r')
        .leftJoin('users as u', 'u.id', 'r.user_id')
        .leftJoin('tokens as t', 't.id', 'r.token_id')
        .select(['r.request_id', 'r.user_id', 'r.token_id', 'r.amount', 'r.created_at', 'r.model', 'r.prompt_estimate', 'r.channel_id', 'r.delivered_chars', 'r.is_stream', 'u.username', 'u.group', 't.name as token_name', 't.unlimited_quota'])
        .where('r.instance_id', '=', instanceId)
        .execute();
      for (const row of rows) {
        if (isSlice(row.request_id)) {
          // A slice of the balances the dead instance held (ledger-slices.ts): what is left of it goes back.
          const back = await this.ledger.settle(
            { requestId: row.request_id, userId: row.user_id, tokenId: row.token_id, unlimited: Boolean(row.unlimited_quota), amount: Number(row.amount) },
            { cost: 0, channelId: 0, served: false },
          );
          if (back !== undefined) settled++;
          continue;
        }
        const prices = pricesFor(this.options, row.model, row.group ?? 'default');
        const delivered = Number(row.delivered_chars);
        const usage: Usage = delivered > 0 ? { prompt_tokens: Number(row.prompt_estimate), completion_tokens: Math.ceil(delivered * TOKENS_PER_CHARACTER) } : EMPTY_USAGE;
        // An estimate is never charged beyond what the request held.
        const cost = delivered > 0 ? Math.min(costOf(usage, prices), Number(row.amount)) : 0;
        const note = delivered > 0 ? '（处理该请求的实例中断，按已送达内容估算计费）' : '（处理该请求的实例中断，未送达内容，已全额退还）';
        const charged = await this.ledger.settle(
          { requestId: row.request_id, userId: row.user_id, tokenId: row.token_id, unlimited: Boolean(row.unlimited_quota), amount: Number(row.amount) },
          {
            cost,
            channelId: Number(row.channel_id),
            usage: {
              model: row.model,
              promptTokens: usage.prompt_tokens,
              completionTokens: usage.completion_tokens,
              cachedTokens: 0,
              reasoningTokens: 0,
              latencyMs: Math.max(0, Date.now() - Number(row.created_at) * 1000),
              failed: delivered === 0,
            },
            log: {
              type: delivered > 0 ? LogType.Consume : LogType.Error,
              user_id: row.user_id,
              username: row.username ?? '',
              created_at: Math.floor(Date.now() / 1000),
              content: describePrice(prices, usage, cost) + note,
              token_name: row.token_name ?? '',
              token_id: row.token_id,
              model_name: row.model,
              prompt_tokens: usage.prompt_tokens,
              completion_tokens: usage.completion_tokens,
              channel_id: Number(row.channel_id),
              request_id: row.request_id,
              elapsed_time: Math.max(0, Date.now() - Number(row.created_at) * 1000),
              is_stream: Number(row.is_stream),
            },
          },
        );
        if (charged !== undefined) settled++;
      }
    }
    return settled;
  }
}
