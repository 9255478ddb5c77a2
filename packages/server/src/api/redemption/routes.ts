import { idParams, jsonObjectBody, pageQuery, redeemSchema, redemptionCreateSchema, searchQuery, statusOnlyQuery } from '@model-relay/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerOf, requireAdmin, requireUser } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { ok, type ZodTypeProvider } from '../../http/typed-routes.js';
import { UserFacingError } from '../../lib/errors.js';

/** Window of the redemption limit, in seconds. */
const REDEEM_WINDOW_SECONDS = 60;

/**
 * /api/redemption (admin) and redeeming a code, POST /api/user/topup (any user). The top-up route lives with
 * the codes it spends: it is the only way a code turns into quota.
 */
export function redemptionRoutes(server: FastifyInstance, ctx: AppContext): void {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const redemptions = ctx.services.redemptions;
  const admin = { preValidation: requireAdmin(ctx) };
  const params = idParams('兑换码');

  app.get('/api/redemption/', { ...admin, schema: { querystring: pageQuery } }, async (request) => ok(await redemptions.list(request.query.p)));
  app.get('/api/redemption/search', { ...admin, schema: { querystring: searchQuery(64) } }, async (request) => ok(await redemptions.search(request.query.keyword)));
  app.get('/api/redemption/:id', { ...admin, schema: { params } }, async (request) => ok(await redemptions.get(request.params.id)));
  app.post('/api/redemption/', { ...admin, schema: { body: redemptionCreateSchema } }, async (request) => ok(await redemptions.create(callerOf(request), request.body)));
  // The body is redemptionUpdateSchema, or redemptionStatusSchema with ?status_only=true: the service reads it by the query.
  app.put('/api/redemption/', { ...admin, schema: { querystring: statusOnlyQuery, body: jsonObjectBody } }, async (request) => {
    const data = request.query.status_only === 'true' ? await redemptions.setStatus(request.body) : await redemptions.update(request.body);
    return ok(data);
  });
  for (const url of ['/api/redemption/:id', '/api/redemption/:id/']) {
    app.delete(url, { ...admin, schema: { params } }, async (request) => {
      await redemptions.delete(request.params.id);
      return ok();
    });
  }

  // Guessing codes is limited per user and per IP (Redis-backed with several instances, so the limit is the
  // cluster's, not each instance's). Every attempt counts, before the code is looked at (so before the body's
  // schema refuses a malformed one).
  const limit = ctx.config.REDEEM_RATE_LIMIT;
  const redeemLimit = async (request: FastifyRequest) => {
    const caller = callerOf(request);
    const allowed =
      (await ctx.rateLimiter.hit(`redeem:user:${caller.id}`, limit, REDEEM_WINDOW_SECONDS)) &&
      (await ctx.rateLimiter.hit(`redeem:ip:${request.ip}`, limit * 3, REDEEM_WINDOW_SECONDS));
    if (!allowed) throw new UserFacingError('兑换过于频繁，请稍后再试', 429);
  };
  app.post('/api/user/topup', { preValidation: [requireUser(ctx), redeemLimit], schema: { body: redeemSchema } }, async (request) =>
    ok(await redemptions.redeem(callerOf(request), request.body)),
  );
}
