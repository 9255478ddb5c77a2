import { logDeleteQuery, logFilterQuery, logListQuery, logSelfFilterQuery, logSelfListQuery } from '@model-relay/contract';
import type { FastifyInstance } from 'fastify';
import { callerOf, requireAdmin, requireUser } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { ok, type ZodTypeProvider } from '../../http/typed-routes.js';
import { fail } from '../../lib/errors.js';
import { filterOf } from './log-service.js';

/** /api/log: all logs and their sum for admins; one's own for users; deleting history (admin). */
export function logRoutes(server: FastifyInstance, ctx: AppContext): void {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const logs = ctx.services.logs;
  const admin = { preValidation: requireAdmin(ctx) };
  const user = { preValidation: requireUser(ctx) };

  app.get('/api/log/', { ...admin, schema: { querystring: logListQuery } }, async (request) => ok(await logs.list(filterOf(request.query), request.query.p)));
  app.get('/api/log/stat', { ...admin, schema: { querystring: logFilterQuery } }, async (request) => ok(await logs.stat(filterOf(request.query))));
  for (const url of ['/api/log/self', '/api/log/self/']) {
    app.get(url, { ...user, schema: { querystring: logSelfListQuery } }, async (request) => ok(await logs.list(filterOf(request.query, callerOf(request)), request.query.p, true)));
  }
  app.get('/api/log/self/stat', { ...user, schema: { querystring: logSelfFilterQuery } }, async (request) => ok(await logs.stat(filterOf(request.query, callerOf(request)))));
  app.delete('/api/log/', { ...admin, schema: { querystring: logDeleteQuery } }, async (request) => {
    const target = request.query.target_timestamp;
    if (target === undefined) return fail('target_timestamp 参数不合法');
    return ok(await logs.deleteBefore(target));
  });
}
