import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, requireAdmin, requireUser } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import type { Scope } from './dashboard-service.js';

/**
 * /api/dashboard: usage summed from the hourly rollups. /self/... is the caller's own usage (any user);
 * the routes without /self are everyone's (admins), with filters by user, key, model and channel.
 */
export function dashboardRoutes(app: FastifyInstance, ctx: AppContext): void {
  const dashboard = ctx.services.dashboard;
  const user = { preHandler: requireUser(ctx) };
  const admin = { preHandler: requireAdmin(ctx) };
  const self = (request: FastifyRequest): Scope => ({ kind: 'self', caller: callerOf(request) });
  const all = (): Scope => ({ kind: 'all' });

  const summary = (scopeOf: (request: FastifyRequest) => Scope) => async (request: FastifyRequest) => ({ success: true, message: '', data: await dashboard.summary(scopeOf(request), request.query) });
  const report = (scopeOf: (request: FastifyRequest) => Scope) => async (request: FastifyRequest) => ({ success: true, message: '', data: await dashboard.report(scopeOf(request), request.query) });
  const exportCsv = (scopeOf: (request: FastifyRequest) => Scope) => async (request: FastifyRequest, reply: FastifyReply) => {
    const { filename, csv } = await dashboard.exportCsv(scopeOf(request), request.query);
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${filename}"`)
      .header('cache-control', 'no-store')
      .send(csv);
  };

  app.get('/api/dashboard/self/summary', user, summary(self));
  app.get('/api/dashboard/self/report', user, report(self));
  app.get('/api/dashboard/self/export', user, exportCsv(self));
  app.get('/api/dashboard/summary', admin, summary(all));
  app.get('/api/dashboard/report', admin, report(all));
  app.get('/api/dashboard/export', admin, exportCsv(all));
}
