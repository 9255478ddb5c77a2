import type { FastifyInstance } from 'fastify';
import { callerOf, requireAdmin, requireUser } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { fail } from '../../lib/errors.js';
import { pageOf, queryInteger } from '../../lib/validate.js';
import { filterOf } from './log-service.js';

/** /api/log: all logs and their sum for admins; one's own for users; deleting history (admin). */
export function logRoutes(app: FastifyInstance, ctx: AppContext): void {
  const logs = ctx.services.logs;
  const admin = { preHandler: requireAdmin(ctx) };
  const user = { preHandler: requireUser(ctx) };
  const query = (q: unknown) => (q ?? {}) as Record<string, unknown>;

  app.get('/api/log/', admin, async (request) => ({ success: true, message: '', data: await logs.list(filterOf(query(request.query)), pageOf(request.query)) }));
  app.get('/api/log/stat', admin, async (request) => ({ success: true, message: '', data: await logs.stat(filterOf(query(request.query))) }));
  const self = async (request: Parameters<typeof callerOf>[0]) => ({
    success: true,
    message: '',
    data: await logs.list(filterOf(query(request.query), callerOf(request)), pageOf(request.query), true),
  });
  app.get('/api/log/self', user, self);
  app.get('/api/log/self/', user, self);
  app.get('/api/log/self/stat', user, async (request) => ({ success: true, message: '', data: await logs.stat(filterOf(query(request.query), callerOf(request))) }));
  app.delete('/api/log/', admin, async (request) => {
    const target = queryInteger(request.query, 'target_timestamp', { min: 1 });
    if (target === undefined) return fail('target_timestamp 参数不合法');
    return { success: true, message: '', data: await logs.deleteBefore(target) };
  });
}
