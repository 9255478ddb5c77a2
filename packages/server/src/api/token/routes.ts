import type { FastifyInstance } from 'fastify';
import { callerOf, requireUser } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { idParam, pageOf, queryString } from '../../lib/validate.js';

/** /api/token: the caller's own API keys. */
export function tokenRoutes(app: FastifyInstance, ctx: AppContext): void {
  const tokens = ctx.services.tokens;
  const user = { preHandler: requireUser(ctx) };

  app.get('/api/token/', user, async (request) => {
    return { success: true, message: '', data: await tokens.list(callerOf(request), pageOf(request.query), queryString(request.query, 'order')) };
  });
  app.get('/api/token/search', user, async (request) => {
    return { success: true, message: '', data: await tokens.search(callerOf(request), queryString(request.query, 'keyword')) };
  });
  app.get('/api/token/:id', user, async (request) => ({ success: true, message: '', data: await tokens.get(callerOf(request), idParam(request.params, '令牌')) }));
  // POST, not GET: a whole key is never in a URL a browser or proxy might prefetch, cache or log.
  app.post('/api/token/:id/key', user, async (request) => ({ success: true, message: '', data: await tokens.revealKey(callerOf(request), idParam(request.params, '令牌')) }));
  app.post('/api/token/', user, async (request) => ({ success: true, message: '', data: await tokens.create(callerOf(request), request.body) }));
  app.put('/api/token/', user, async (request) => {
    const statusOnly = queryString(request.query, 'status_only') === 'true';
    const caller = callerOf(request);
    const data = statusOnly ? await tokens.setStatus(caller, request.body) : await tokens.update(caller, request.body);
    return { success: true, message: '', data };
  });
  const remove = async (request: { params: unknown } & Parameters<typeof callerOf>[0]) => {
    await tokens.delete(callerOf(request), idParam(request.params, '令牌'));
    return { success: true, message: '' };
  };
  app.delete('/api/token/:id', user, remove);
  app.delete('/api/token/:id/', user, remove);
}
