import { adminDashboardQuerySchema, dashboardQuerySchema, dashboardSummaryQuerySchema } from '@model-relay/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerOf, requireAdmin, requireUser } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { ok, type ZodTypeProvider } from '../../http/typed-routes.js';
import type { Scope } from './dashboard-service.js';

/**
 * /api/dashboard: usage summed from the hourly rollups. /self/... is the caller's own usage (any user);
 * the routes without /self are everyone's (admins), with filters by user, key, model and channel.
 */
export function dashboardRoutes(server: FastifyInstance, ctx: AppContext): void {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const dashboard = ctx.services.dashboard;
  const scopes = [
    { prefix: '/api/dashboard/self', guard: requireUser(ctx), query: dashboardQuerySchema, scope: (request: FastifyRequest): Scope => ({ kind: 'self', caller: callerOf(request) }) },
    { prefix: '/api/dashboard', guard: requireAdmin(ctx), query: adminDashboardQuerySchema, scope: (): Scope => ({ kind: 'all' }) },
  ] as const;

  for (const { prefix, guard, query, scope } of scopes) {
    app.get(`${prefix}/summary`, { preValidation: guard, schema: { querystring: dashboardSummaryQuerySchema } }, async (request) => ok(await dashboard.summary(scope(request), request.query)));
    app.get(`${prefix}/report`, { preValidation: guard, schema: { querystring: query } }, async (request) => ok(await dashboard.report(scope(request), request.query)));
    app.get(`${prefix}/export`, { preValidation: guard, schema: { querystring: query } }, async (request, reply) => {
      const { filename, csv } = await dashboard.exportCsv(scope(request), request.query);
      return reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('cache-control', 'no-store')
        .send(csv);
    });
  }
}
