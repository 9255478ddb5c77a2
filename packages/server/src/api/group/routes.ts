import type { FastifyInstance } from 'fastify';
import { requireAdmin } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';

/** /api/group/: the group names known from GroupRatio (admin). */
export function groupRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/api/group/', { preHandler: requireAdmin(ctx) }, async () => ({
    success: true,
    message: '',
    data: Object.keys(ctx.options.ratios('GroupRatio')),
  }));
}
