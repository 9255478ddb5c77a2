import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

/**
 * GET /metrics for a Prometheus scraper, behind `Authorization: Bearer <METRICS_TOKEN>`. Without a configured
 * token the endpoint does not exist (404): metrics name models, channels and volumes, which are not public.
 */
export function metricsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/metrics', async (request, reply) => {
    const token = ctx.config.METRICS_TOKEN;
    if (!token) return reply.status(404).type('text/plain; charset=utf-8').send('metrics are off (set METRICS_TOKEN)\n');
    const given = Buffer.from(String(request.headers.authorization ?? '').replace(/^Bearer\s+/i, ''));
    const expected = Buffer.from(token);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return reply.status(401).header('www-authenticate', 'Bearer').type('text/plain; charset=utf-8').send('unauthorized\n');
    }
    const registry = ctx.relay.metrics.registry;
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
