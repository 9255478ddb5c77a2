import { optionUpdateBody } from '@model-relay/contract';
import type { FastifyInstance } from 'fastify';
import { requireAdmin } from '../../auth/authenticate.js';
import type { AppContext } from '../../context.js';
import { ok, type ZodTypeProvider } from '../../http/typed-routes.js';

/** /api/option/: every option but the secrets; PUT validates one key at a time (docs/console.md §3 and §5). */
export function optionRoutes(server: FastifyInstance, ctx: AppContext): void {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const admin = { preValidation: requireAdmin(ctx) };
  app.get('/api/option/', admin, async () => ok(ctx.options.publicList()));
  // The value's own check depends on the key: the option store makes it (options/option-store.ts).
  app.put('/api/option/', { ...admin, schema: { body: optionUpdateBody } }, async (request) => {
    await ctx.options.set(request.body.key, request.body.value);
    return ok();
  });
}
