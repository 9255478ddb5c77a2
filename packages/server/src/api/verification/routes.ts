import { emailQuery } from '@model-relay/contract';
import type { FastifyInstance } from 'fastify';
import { criticalRateLimit } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { ok, type ZodTypeProvider } from '../../http/typed-routes.js';
import { turnstileCheck } from '../../integrations/turnstile/turnstile-check.js';

/** GET /api/verification?email=&turnstile=: sends an e-mail verification code (docs/console.md §7). */
export function verificationRoutes(server: FastifyInstance, ctx: AppContext): void {
  const app = server.withTypeProvider<ZodTypeProvider>();
  app.get('/api/verification', { preValidation: [criticalRateLimit(ctx), turnstileCheck(ctx)], schema: { querystring: emailQuery } }, async (request) => {
    await ctx.services.verification.sendCode(request.query.email);
    return ok();
  });
}
