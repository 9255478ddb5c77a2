import type { FastifyInstance } from 'fastify';
import { criticalRateLimit } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { turnstileCheck } from '../../integrations/turnstile/turnstile-check.js';

/** GET /api/verification?email=&turnstile=: sends an e-mail verification code (docs/console.md §7). */
export function verificationRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/api/verification', { preHandler: [criticalRateLimit(ctx), turnstileCheck(ctx)] }, async (request) => {
    await ctx.services.verification.sendCode((request.query as { email?: unknown }).email);
    return { success: true, message: '' };
  });
}
