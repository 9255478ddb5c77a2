import { sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** A year: the longest max-age caches honour, for files whose names change whenever their content does. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The console's built files (packages/web/dist). The build writes a Brotli and a gzip copy beside every file worth
 * compressing (packages/web/precompress.ts); a browser that accepts one gets it, with the same type, so the console's
 * scripts cross the network at about a quarter of their size and cost the server no compression per request. The
 * hashed files under /assets/ never change under their name: a browser keeps them a year and asks nothing again. The
 * shell (index.html, every console route) is revalidated on each visit, so a new build shows at once.
 */
export async function serveConsoleFiles(app: FastifyInstance, webDist: string): Promise<void> {
  await app.register(fastifyStatic, {
    root: webDist,
    wildcard: false,
    index: false,
    cacheControl: false,
    preCompressed: true,
    setHeaders: (res, path) => {
      // The answer depends on the request's Accept-Encoding: a shared cache must not hand a Brotli body to a client
      // that did not ask for one.
      res.setHeader('Vary', 'Accept-Encoding');
      res.setHeader('Cache-Control', path.includes(`${sep}assets${sep}`) ? IMMUTABLE : 'no-cache');
    },
  });
}
