import type { FastifyInstance } from 'fastify';
import { requireAdmin } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { ok } from '../../http/typed-routes.js';

/** /api/group/: the group names known from GroupRatio (admin). Takes no input. */
export function groupRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/api/group/', { preValidation: requireAdmin(ctx) }, async () => ok(Object.keys(ctx.options.ratios('GroupRatio'))));
}
