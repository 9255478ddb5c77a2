import type { FastifyInstance } from 'fastify';
import { requireAdmin, resolveCaller } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { fail } from '../../lib/errors.js';
import { queryString } from '../../lib/validate.js';

/**
 * GET /api/pricing: the price list of the caller's group (signed in by session or access token), or of the
 * default group for visitors. Visitors get it only while PricingPageEnabled is on (the default, as in new-api,
 * so chat clients can read it without signing in); signed-in users always see what they pay.
 */
export function pricingRoutes(app: FastifyInstance, ctx: AppContext): void {
  const pricing = ctx.services.pricing;
  app.get('/api/pricing', async (request, reply) => {
    // A client may send a header this API does not know (an sk- key): such a caller is read as a visitor.
    const caller = await resolveCaller(ctx, request, reply).catch(() => null);
    if (!caller && !ctx.options.bool('PricingPageEnabled')) return fail('管理员未开放定价页面，请登录后查看');
    const user = caller ? await ctx.repositories.users.findById(caller.id) : undefined;
    return pricing.pricing(user?.group || undefined);
  });
  // Admin: the served models that are billed at the unknown-model ratio (no ModelRatio entry, no default price);
  // with ?models=a,b (the channel form, before saving) those of the given names.
  app.get('/api/pricing/unpriced', { preHandler: requireAdmin(ctx) }, async (request) => {
    const asked = queryString(request.query, 'models', 64 * 1024);
    const names = asked ? [...new Set(asked.split(',').map((m) => m.trim()).filter(Boolean))].slice(0, 1000) : undefined;
    return { success: true, message: '', data: names ? pricing.unpricedAmong(names) : await pricing.unpricedModels() };
  });
}
