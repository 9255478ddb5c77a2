import type { FastifyInstance } from 'fastify';
import type { OptionStore } from '../options/option-store.js';
import type { RelayStore } from '../storage/repositories/relay-store.js';
import { authenticateKey } from './pipeline/authenticate-key.js';

/**
 * OpenAI's legacy billing endpoints, which many chat clients call with the API key to show a balance:
 * /dashboard/billing/subscription and /dashboard/billing/usage (also under /v1). With DisplayTokenStatEnabled
 * the numbers are the key's own, else its owner's; amounts are dollars when DisplayInCurrencyEnabled.
 */
export function keyBalanceRoutes(app: FastifyInstance, deps: { store: RelayStore; options: OptionStore }): void {
  const amounts = async (request: Parameters<typeof authenticateKey>[1]) => {
    const { token, user } = await authenticateKey(deps.store, request, { allowExhausted: true });
    const perUnit = deps.options.bool('DisplayInCurrencyEnabled') ? deps.options.number('QuotaPerUnit') : 1;
    const tokenStats = deps.options.bool('DisplayTokenStatEnabled');
    const unlimited = tokenStats && Boolean(token.unlimited_quota);
    const used = tokenStats ? Number(token.used_quota) : Number(user.used_quota);
    const remain = tokenStats ? Number(token.remain_quota) : Number(user.quota);
    return {
      total: unlimited ? 100_000_000 : (remain + used) / perUnit,
      used: used / perUnit,
      accessUntil: Number(token.expired_time) === -1 ? 0 : Number(token.expired_time),
    };
  };
  for (const prefix of ['', '/v1']) {
    app.get(`${prefix}/dashboard/billing/subscription`, async (request) => {
      const { total, accessUntil } = await amounts(request);
      return {
        object: 'billing_subscription',
        has_payment_method: true,
        soft_limit_usd: total,
        hard_limit_usd: total,
        system_hard_limit_usd: total,
        access_until: accessUntil,
      };
    });
    app.get(`${prefix}/dashboard/billing/usage`, async (request) => {
      const { used } = await amounts(request);
      return { object: 'list', total_usage: used * 100 };
    });
  }
}
