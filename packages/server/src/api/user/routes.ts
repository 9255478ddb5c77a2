import { createUserSchema, idParams, loginRequestBody, manageUserSchema, orderedPageQuery, registerSchema, searchQuery, updateSelfSchema, updateUserSchema } from '@model-relay/contract';
import type { FastifyInstance } from 'fastify';
import { callerOf, criticalRateLimit, requireAdmin, requireUser } from '../../auth/authenticate.js';
import { clearSessionCookie, endSession, sessionOf, startSession } from '../../auth/session-lifecycle.js';
import { turnstileCheck } from '../../integrations/turnstile/turnstile-check.js';
import type { AppContext } from '../../context.js';
import { ok, type ZodTypeProvider } from '../../http/typed-routes.js';
import { toUserDto } from './user-dto.js';

/** /api/user: accounts (docs/console.md §7, "Users and login"). */
export function userRoutes(server: FastifyInstance, ctx: AppContext): void {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const users = ctx.services.users;
  const user = { preValidation: requireUser(ctx) };
  const admin = { preValidation: requireAdmin(ctx) };
  const params = idParams('用户');

  app.post('/api/user/register', { preValidation: [criticalRateLimit(ctx), turnstileCheck(ctx)], schema: { body: registerSchema } }, async (request) => {
    await users.register(request.body);
    return ok();
  });

  app.post('/api/user/login', { preValidation: criticalRateLimit(ctx), schema: { body: loginRequestBody } }, async (request, reply) => {
    const row = await users.login(request.body);
    startSession(ctx, request, reply, row);
    return ok(toUserDto(row));
  });

  app.get('/api/user/logout', async (request, reply) => {
    await endSession(ctx, request, reply);
    return ok();
  });

  app.get('/api/user/self', user, async (request) => ok(await users.getSelf(callerOf(request))));
  app.put('/api/user/self', { ...user, schema: { body: updateSelfSchema } }, async (request, reply) => {
    const caller = callerOf(request);
    const passwordChanged = await users.updateSelf(caller, request.body);
    // The change ended every session of the caller's, this one included: this client gets a fresh one.
    if (passwordChanged && sessionOf(ctx, request)) {
      const row = await users.findActiveById(caller.id);
      if (row) startSession(ctx, request, reply, row);
    }
    return ok();
  });
  app.delete('/api/user/self', user, async (request, reply) => {
    await users.deleteSelf(callerOf(request));
    clearSessionCookie(ctx, request, reply);
    return ok();
  });
  app.get('/api/user/token', user, async (request) => ok(await users.regenerateAccessToken(callerOf(request))));
  app.get('/api/user/aff', user, async (request) => ok(await users.affCode(callerOf(request))));
  app.get('/api/user/available_models', user, async (request) => ok(await users.availableModels(callerOf(request))));

  app.get('/api/user/', { ...admin, schema: { querystring: orderedPageQuery } }, async (request) => ok(await users.list(request.query.p, request.query.order)));
  app.get('/api/user/search', { ...admin, schema: { querystring: searchQuery() } }, async (request) => ok(await users.search(request.query.keyword)));
  app.get('/api/user/:id', { ...admin, schema: { params } }, async (request) => ok(await users.get(callerOf(request), request.params.id)));
  app.post('/api/user/', { ...admin, schema: { body: createUserSchema } }, async (request) => {
    await users.create(callerOf(request), request.body);
    return ok();
  });
  app.put('/api/user/', { ...admin, schema: { body: updateUserSchema } }, async (request) => {
    await users.update(callerOf(request), request.body);
    return ok();
  });
  app.post('/api/user/manage', { ...admin, schema: { body: manageUserSchema } }, async (request) => ok(await users.manage(callerOf(request), request.body)));
  app.delete('/api/user/:id', { ...admin, schema: { params } }, async (request) => {
    const target = await users.get(callerOf(request), request.params.id);
    await users.manage(callerOf(request), { username: target.username, action: 'delete' });
    return ok();
  });
}
