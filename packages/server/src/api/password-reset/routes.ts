import type { FastifyInstance } from 'fastify';
import { criticalRateLimit } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { turnstileCheck } from '../../integrations/turnstile/turnstile-check.js';

/** GET /api/reset_password?email=&turnstile= and POST /api/user/reset (docs/console.md §7). */
export function passwordResetRoutes(app: FastifyInstance, ctx: AppContext): void {
  const resets = ctx.services.passwordReset;
  app.get('/api/reset_password', { preHandler: [criticalRateLimit(ctx), turnstileCheck(ctx)] }, async (request) => {
    await resets.sendLink((request.query as { email?: unknown }).email);
    return { success: true, message: '' };
  });
  app.post('/api/user/reset', { preHandler: criticalRateLimit(ctx) }, async (request) => ({
    success: true,
    message: '',
    data: await resets.reset(request.body),
  }));
}
