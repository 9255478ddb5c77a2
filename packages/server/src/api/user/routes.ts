import type { FastifyInstance } from 'fastify';
import { callerOf, criticalRateLimit, requireAdmin, requireUser } from '../../auth/authenticate.js';
import { SESSION_COOKIE } from '../../auth/session.js';
import { startSession } from '../../auth/start-session.js';
import { turnstileCheck } from '../../integrations/turnstile/turnstile-check.js';
import type { AppContext } from '../../context.js';
import { fail } from '../../lib/errors.js';
import { pageOf } from '../../lib/validate.js';
import { toUserDto } from './user-dto.js';

/** /api/user: accounts (spec section 7, "Users and login"). */
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
    const row = await users.login(request.body as { username?: unknown; password?: unknown });
    startSession(ctx, reply, row.id);
    return { success: true, message: '', data: toUserDto(row) };
  });

  app.get('/api/user/logout', async (_request, reply) => {
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return { success: true, message: '' };
  });

  app.get('/api/user/self', user, async (request) => ({ success: true, message: '', data: await users.getSelf(callerOf(request)) }));
  app.put('/api/user/self', user, async (request) => {
    await users.updateSelf(callerOf(request), request.body);
    return { success: true, message: '' };
  });
  app.delete('/api/user/self', user, async (request, reply) => {
    await users.deleteSelf(callerOf(request));
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
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
    const order = String((request.query as { order?: unknown }).order ?? '');
    return { success: true, message: '', data: await users.list(pageOf(request.query), order) };
  });
  app.get('/api/user/search', admin, async (request) => {
    const keyword = String((request.query as { keyword?: unknown }).keyword ?? '');
    return { success: true, message: '', data: await users.search(keyword) };
  });
  app.get('/api/user/:id', admin, async (request) => {
    const id = Number((request.params as { id: string }).id);
    if (!Number.isInteger(id) || id <= 0) fail('无效的用户 ID');
    return { success: true, message: '', data: await users.get(callerOf(request), id) };
  });
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
    const id = Number((request.params as { id: string }).id);
    const target = await users.get(callerOf(request), id);
    await users.manage(callerOf(request), { username: target.username, action: 'delete' });
    return { success: true, message: '' };
  });
}
