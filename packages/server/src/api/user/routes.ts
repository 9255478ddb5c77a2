import type { FastifyInstance } from 'fastify';
import { callerOf, criticalRateLimit, requireAdmin, requireUser } from '../../auth/authenticate.js';
import { clearSessionCookie, endSession, sessionOf, startSession } from '../../auth/session-lifecycle.js';
import { turnstileCheck } from '../../integrations/turnstile/turnstile-check.js';
import type { AppContext } from '../../context.js';
import { idParam, pageOf, queryString } from '../../lib/validate.js';
import { toUserDto } from './user-dto.js';

/** /api/user: accounts (docs/console.md §7, "Users and login"). */
export function userRoutes(app: FastifyInstance, ctx: AppContext): void {
  const users = ctx.services.users;
  const user = { preHandler: requireUser(ctx) };
  const admin = { preHandler: requireAdmin(ctx) };
  const critical = { preHandler: criticalRateLimit(ctx) };

  app.post('/api/user/register', { preHandler: [criticalRateLimit(ctx), turnstileCheck(ctx)] }, async (request) => {
    await users.register(request.body);
    return { success: true, message: '' };
  });

  app.post('/api/user/login', critical, async (request, reply) => {
    const row = await users.login(request.body);
    startSession(ctx, request, reply, row);
    return { success: true, message: '', data: toUserDto(row) };
  });

  app.get('/api/user/logout', async (request, reply) => {
    await endSession(ctx, request, reply);
    return { success: true, message: '' };
  });

  app.get('/api/user/self', user, async (request) => ({ success: true, message: '', data: await users.getSelf(callerOf(request)) }));
  app.put('/api/user/self', user, async (request, reply) => {
    const caller = callerOf(request);
    const passwordChanged = await users.updateSelf(caller, request.body);
    // The change ended every session of the caller's, this one included: this client gets a fresh one.
    if (passwordChanged && sessionOf(ctx, request)) {
      const row = await users.findActiveById(caller.id);
      if (row) startSession(ctx, request, reply, row);
    }
    return { success: true, message: '' };
  });
  app.delete('/api/user/self', user, async (request, reply) => {
    await users.deleteSelf(callerOf(request));
    clearSessionCookie(ctx, request, reply);
    return { success: true, message: '' };
  });
  app.get('/api/user/token', user, async (request) => ({
    success: true,
    message: '',
    data: await users.regenerateAccessToken(callerOf(request)),
  }));
  app.get('/api/user/aff', user, async (request) => ({ success: true, message: '', data: await users.affCode(callerOf(request)) }));
  app.get('/api/user/available_models', user, async (request) => ({
    success: true,
    message: '',
    data: await users.availableModels(callerOf(request)),
  }));

  app.get('/api/user/', admin, async (request) => {
    return { success: true, message: '', data: await users.list(pageOf(request.query), queryString(request.query, 'order')) };
  });
  app.get('/api/user/search', admin, async (request) => {
    return { success: true, message: '', data: await users.search(queryString(request.query, 'keyword')) };
  });
  app.get('/api/user/:id', admin, async (request) => ({ success: true, message: '', data: await users.get(callerOf(request), idParam(request.params, '用户')) }));
  app.post('/api/user/', admin, async (request) => {
    await users.create(callerOf(request), request.body);
    return { success: true, message: '' };
  });
  app.put('/api/user/', admin, async (request) => {
    await users.update(callerOf(request), request.body);
    return { success: true, message: '' };
  });
  app.post('/api/user/manage', admin, async (request) => ({
    success: true,
    message: '',
    data: await users.manage(callerOf(request), request.body),
  }));
  app.delete('/api/user/:id', admin, async (request) => {
    const target = await users.get(callerOf(request), idParam(request.params, '用户'));
    await users.manage(callerOf(request), { username: target.username, action: 'delete' });
    return { success: true, message: '' };
  });
}
