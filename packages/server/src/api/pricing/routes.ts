import { unpricedQuery } from '@model-relay/contract';
import type { FastifyInstance } from 'fastify';
import { requireAdmin, resolveCaller } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { fail } from '../../lib/errors.js';
import { ok, type ZodTypeProvider } from '../../http/typed-routes.js';

/**
 * GET /api/pricing: the price list of the caller's group (signed in by session or access token), or of the
 * default group for visitors. Visitors get it only while PricingPageEnabled is on (the default, as in new-api,
 * so chat clients can read it without signing in); signed-in users always see what they pay.
 */
export function pricingRoutes(server: FastifyInstance, ctx: AppContext): void {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const pricing = ctx.services.pricing;
  app.get('/api/pricing', async (request, reply) => {
    // A client may send a header this API does not know (an sk- key): such a caller is read as a visitor.
    const caller = await resolveCaller(ctx, request, reply).catch(() => null);
    if (!caller && !ctx.options.bool('PricingPageEnabled')) return fail('管理员未开放定价页面，请登录后查看');
    const user = caller ? await ctx.repositories.users.findById(caller.id) : undefined;
    // The envelope plus the group's ratio and name beside `data`, where new-api's clients read them.
    const { data, ...groups } = await pricing.pricing(user?.group || undefined);
    return { ...ok(data), ...groups };
  });
  // Admin: the served models that are billed at the unknown-model ratio (no ModelRatio entry, no default price);
  // with ?models=a,b (the channel form, before saving) those of the given names.
  app.get('/api/pricing/unpriced', { preValidation: requireAdmin(ctx), schema: { querystring: unpricedQuery } }, async (request) => {
    const asked = request.query.models;
    const names = asked ? [...new Set(asked.split(',').map((m) => m.trim()).filter(Boolean))].slice(0, 1000) : undefined;
    return ok(names ? pricing.unpricedAmong(names) : await pricing.unpricedModels());
  });
}
