import { emailQuery, resetPasswordSchema } from '@model-relay/contract';
import type { FastifyInstance } from 'fastify';
import { criticalRateLimit } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { ok, type ZodTypeProvider } from '../../http/typed-routes.js';
import { turnstileCheck } from '../../integrations/turnstile/turnstile-check.js';

/** GET /api/reset_password?email=&turnstile= and POST /api/user/reset (docs/console.md §7). */
export function passwordResetRoutes(server: FastifyInstance, ctx: AppContext): void {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const resets = ctx.services.passwordReset;
  app.get('/api/reset_password', { preValidation: [criticalRateLimit(ctx), turnstileCheck(ctx)], schema: { querystring: emailQuery } }, async (request) => {
    await resets.sendLink(request.query.email);
    return ok();
  });
  app.post('/api/user/reset', { preValidation: criticalRateLimit(ctx), schema: { body: resetPasswordSchema } }, async (request) => ok(await resets.reset(request.body)));
}
