import type { FastifyInstance } from 'fastify';

/** One method of one route, as the app registered it. */
export interface AppRoute {
  method: string;
  /** The path template, parameters as `:name`. */
  url: string;
}

/**
 * Every route of the app, read from the app itself (fastify's printRoutes tree), so a route added later is
 * covered without editing the test. Each tree line is `<indent>├── <segment> (METHOD, ...)`; a segment
 * continues its parent's path. HEAD is left out (fastify derives it from GET).
 */
export function listRoutes(app: FastifyInstance): AppRoute[] {
  const routes: AppRoute[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    const url = (depth > 0 ? stack[depth - 1] : '') + match[2];
    stack[depth] = url;
    stack.length = depth + 1;
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim())) {
      if (method && method !== 'HEAD') routes.push({ method, url });
    }
  }
  return routes;
}
