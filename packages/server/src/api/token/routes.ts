import { idParams, jsonObjectBody, orderedPageQuery, searchQuery, statusOnlyQuery, tokenInputSchema } from '@model-relay/contract';
import type { FastifyInstance } from 'fastify';
import { callerOf, requireUser } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { ok, type ZodTypeProvider } from '../../http/typed-routes.js';

/** /api/token: the caller's own API keys. */
export function tokenRoutes(server: FastifyInstance, ctx: AppContext): void {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const tokens = ctx.services.tokens;
  const user = { preValidation: requireUser(ctx) };
  const params = idParams('令牌');

  app.get('/api/token/', { ...user, schema: { querystring: orderedPageQuery } }, async (request) => ok(await tokens.list(callerOf(request), request.query.p, request.query.order)));
  app.get('/api/token/search', { ...user, schema: { querystring: searchQuery() } }, async (request) => ok(await tokens.search(callerOf(request), request.query.keyword)));
  app.get('/api/token/:id', { ...user, schema: { params } }, async (request) => ok(await tokens.get(callerOf(request), request.params.id)));
  // POST, not GET: a whole key is never in a URL a browser or proxy might prefetch, cache or log.
  app.post('/api/token/:id/key', { ...user, schema: { params } }, async (request) => ok(await tokens.revealKey(callerOf(request), request.params.id)));
  app.post('/api/token/', { ...user, schema: { body: tokenInputSchema } }, async (request) => ok(await tokens.create(callerOf(request), request.body)));
  // The body is {id, ...tokenInputSchema}, or {id, status} with ?status_only=true: the service reads it by the query.
  app.put('/api/token/', { ...user, schema: { querystring: statusOnlyQuery, body: jsonObjectBody } }, async (request) => {
    const caller = callerOf(request);
    const data = request.query.status_only === 'true' ? await tokens.setStatus(caller, request.body) : await tokens.update(caller, request.body);
    return ok(data);
  });
  for (const url of ['/api/token/:id', '/api/token/:id/']) {
    app.delete(url, { ...user, schema: { params } }, async (request) => {
      await tokens.delete(callerOf(request), request.params.id);
      return ok();
    });
  }
}
