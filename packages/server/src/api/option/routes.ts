import type { FastifyInstance } from 'fastify';
import { requireAdmin } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { fail } from '../../lib/errors.js';

/** /api/option/: every option but the secrets; PUT validates one key at a time (docs/console.md §3 and §5). */
export function optionRoutes(app: FastifyInstance, ctx: AppContext): void {
  const admin = { preHandler: requireAdmin(ctx) };
  app.get('/api/option/', admin, async () => ({ success: true, message: '', data: ctx.options.publicList() }));
  app.put('/api/option/', admin, async (request) => {
    const body = request.body as { key?: unknown; value?: unknown } | undefined;
    if (!body || typeof body.key !== 'string') return fail('无效的参数');
    await ctx.options.set(body.key, body.value);
    return { success: true, message: '' };
  });
}
