import type { FastifyInstance } from 'fastify';
import { requireAdmin } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { fail } from '../../lib/errors.js';

/** /api/log: deleting history (the list and stats arrive with the relay). */
export function logRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.delete('/api/log/', { preHandler: requireAdmin(ctx) }, async (request) => {
    const target = Number((request.query as { target_timestamp?: unknown }).target_timestamp);
    if (!Number.isInteger(target) || target <= 0) fail('target_timestamp 参数不合法');
    return { success: true, message: '', data: await ctx.repositories.logs.deleteBefore(target) };
  });
}
