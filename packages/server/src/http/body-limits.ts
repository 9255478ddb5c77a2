import type { FastifyInstance } from 'fastify';

/**
 * Request body size limits (issue 10: a user stored 20 MB in a key's `models`; /api took 32 MB bodies).
 *
 * /api bodies are small JSON objects: 64 KiB is ample for every form. The few routes that carry long texts
 * get more: an option value may hold up to 64 KiB of text (notices, the home page, ratio maps), a channel
 * up to 512 KiB of keys (batch create) besides its mapping, config and prompt. A larger body is answered
 * 413 before it is read. The relay (/v1) keeps its own, larger limit (base64 images, audio uploads).
 * Every field is also limited on its own by the shared schemas (packages/contract/src/input.ts).
 */
export const API_BODY_LIMIT = 64 * 1024;
export const ROUTE_BODY_LIMITS: Readonly<Record<string, number>> = {
  'PUT /api/option/': 512 * 1024,
  'POST /api/channel/': 2 * 1024 * 1024,
  'PUT /api/channel/': 2 * 1024 * 1024,
};

/**
 * Deepest nesting a JSON body may have. Real requests (OpenAI tool schemas included) stay far below; a body
 * nested thousands deep only costs parse time and overflows recursive code downstream.
 */
export const MAX_JSON_DEPTH = 128;

/** Gives every /api route registered after this call its body limit (a route may still set its own). */
export function limitApiBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/') || route.bodyLimit !== undefined) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const limits = methods.map((method) => ROUTE_BODY_LIMITS[`${method} ${route.url}`] ?? API_BODY_LIMIT);
    route.bodyLimit = Math.max(...limits);
  });
}

/**
 * True when `text` nests arrays / objects deeper than `max`. One pass that jumps over string contents with
 * indexOf, so a large body of long strings (base64 images) costs little; malformed text is left to JSON.parse.
 */
export function jsonNestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end === -1) return false;
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}
