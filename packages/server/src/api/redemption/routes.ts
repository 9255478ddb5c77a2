import type { FastifyInstance } from 'fastify';
import { callerOf, requireAdmin, requireUser } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { UserFacingError } from '../../lib/errors.js';
import { idParam, pageOf, queryString } from '../../lib/validate.js';

/** Window of the redemption limit, in seconds. */
const REDEEM_WINDOW_SECONDS = 60;

/**
 * /api/redemption (admin) and redeeming a code, POST /api/user/topup (any user). The top-up route lives with
 * the codes it spends: it is the only way a code turns into quota.
 */
export function redemptionRoutes(app: FastifyInstance, ctx: AppContext): void {
  const redemptions = ctx.services.redemptions;
  const admin = { preHandler: requireAdmin(ctx) };
  const id = (params: unknown) => idParam(params, '兑换码');

  app.get('/api/redemption/', admin, async (request) => ({ success: true, message: '', data: await redemptions.list(pageOf(request.query)) }));
  app.get('/api/redemption/search', admin, async (request) => ({
    success: true,
    message: '',
    data: await redemptions.search(queryString(request.query, 'keyword', 64)),
  }));
  app.get('/api/redemption/:id', admin, async (request) => ({ success: true, message: '', data: await redemptions.get(id(request.params)) }));
  app.post('/api/redemption/', admin, async (request) => ({ success: true, message: '', data: await redemptions.create(callerOf(request), request.body) }));
  app.put('/api/redemption/', admin, async (request) => {
    const statusOnly = queryString(request.query, 'status_only') === 'true';
    const data = statusOnly ? await redemptions.setStatus(request.body) : await redemptions.update(request.body);
    return { success: true, message: '', data };
  });
  const remove = async (request: { params: unknown }) => {
    await redemptions.delete(id(request.params));
    return { success: true, message: '' };
  };
  app.delete('/api/redemption/:id', admin, remove);
  app.delete('/api/redemption/:id/', admin, remove);

  // Guessing codes is limited per user and per IP (Redis-backed with several instances, so the limit is the
  // cluster's, not each instance's). Every attempt counts, before the code is looked at.
  const limit = ctx.config.REDEEM_RATE_LIMIT;
  app.post('/api/user/topup', { preHandler: requireUser(ctx) }, async (request) => {
    const caller = callerOf(request);
    const allowed =
      (await ctx.rateLimiter.hit(`redeem:user:${caller.id}`, limit, REDEEM_WINDOW_SECONDS)) &&
      (await ctx.rateLimiter.hit(`redeem:ip:${request.ip}`, limit * 3, REDEEM_WINDOW_SECONDS));
    if (!allowed) throw new UserFacingError('兑换过于频繁，请稍后再试', 429);
    return { success: true, message: '', data: await redemptions.redeem(caller, request.body) };
  });
}
