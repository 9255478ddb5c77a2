import { DEFAULT_GROUP, type LongContextBand, type PricingModel, type PricingResponse } from '@model-relay/contract';
import type { Kysely } from 'kysely';
import { pricesFor, type Prices } from '../../billing/pricing.js';
import type { OptionStore } from '../../options/option-store.js';
import type { Database } from '../../storage/schema.js';

/** A model's long-context steps as the page shows them, smallest first (billing/pricing.ts applies the largest passed). */
function longContextBands(steps: Prices['longContext']): { long_context?: LongContextBand[] } {
  if (steps === undefined) return {};
  const list: readonly LongContextBand[] = Array.isArray(steps) ? steps : [steps as LongContextBand];
  return { long_context: list.map(({ above, input, output }) => ({ above, input, output })).sort((a, b) => a.above - b.above) };
}

/** Every model here can be called through the four client dialects (translated when the channel speaks another). */
const ENDPOINT_TYPES = ['openai', 'openai-response', 'anthropic', 'gemini'];

/**
 * The price list of GET /api/pricing: the models a group can call (its enabled abilities) with the ratios the
 * relay bills them by (billing/pricing.ts, read, never re-derived here), in new-api's field names.
 */
export class PricingService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: OptionStore,
  ) {}

  async pricing(group: string = DEFAULT_GROUP): Promise<Omit<PricingResponse, 'success' | 'message'>> {
    const rows = await this.db.selectFrom('abilities').select('model').distinct().where('group', '=', group).where('enabled', '=', 1).orderBy('model').execute();
    const data = rows.map(({ model }): PricingModel => {
      const prices = pricesFor(this.options, model, group);
      return {
        model_name: model,
        quota_type: 0,
        model_ratio: prices.modelRatio,
        model_price: 0,
        owner_by: '',
        completion_ratio: prices.completionRatio,
        cache_ratio: prices.cacheReadRatio,
        create_cache_ratio: prices.cacheWriteRatio,
        create_cache_1h_ratio: prices.cacheWrite1hRatio,
        reasoning_ratio: prices.reasoningRatio,
        ...longContextBands(prices.longContext),
        ratio_configured: !prices.unknownModel,
        enable_groups: [group],
        supported_endpoint_types: ENDPOINT_TYPES,
      };
    });
    return {
      data,
      // The group's ratio exactly as billing reads it (pricesFor's group part does not depend on the model).
      group_ratio: { [group]: pricesFor(this.options, '', group).groupRatio },
      usable_group: { [group]: group === DEFAULT_GROUP ? '默认分组' : `${group} 分组` },
    };
  }

  /**
   * The models enabled channels serve (any group) that have no model ratio of their own: the relay bills them at
   * the unknown-model ratio and says so in the log. The channel list warns the admin about them.
   */
  async unpricedModels(): Promise<string[]> {
    const rows = await this.db.selectFrom('abilities').select('model').distinct().where('enabled', '=', 1).orderBy('model').execute();
    return this.unpricedAmong(rows.map(({ model }) => model));
  }

  /** Those of these model names that have no ratio, in their order. */
  unpricedAmong(models: string[]): string[] {
    return models.filter((model) => pricesFor(this.options, model, DEFAULT_GROUP).unknownModel);
  }
}
