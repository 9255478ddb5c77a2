import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Below this a compressed answer saves less than its headers cost. */
export const MIN_COMPRESSED_BYTES = 1024;
/** What is worth compressing: the console's JSON, an exported CSV, plain text. */
const COMPRESSIBLE = /^(?:application\/json|text\/csv|text\/plain)/;

/** The encoding the client accepts that we prefer (Brotli, then gzip), or none; `q=0` refuses one. */
export function acceptedEncoding(header: string | string[] | undefined): 'br' | 'gzip' | undefined {
  if (!header) return undefined;
  const accepted = new Set<string>();
  for (const part of String(header).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) continue;
    accepted.add(name.trim());
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return undefined;
}

/**
 * The console's answers (`/api/`) compressed for a client that accepts it, as one-api does: a channel list, the
 * options with their ratio tables, a dashboard report or a log page cross the network at a fraction of their size.
 * Off the event loop (zlib's thread pool), at a fast level: these answers are made per request. The relay (`/v1`)
 * is left alone: its answers are written as they come, streams included, and its throughput is the gateway's.
 */
export function compressApiAnswers(app: FastifyInstance): void {
  // A callback hook, not an async one: the relay's own replies pass it without a promise of their own.
  app.addHook('onSend', function compressApiAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) {
    const bytes = compressible(request, reply, payload);
    if (!bytes) return done(null, payload);
    // Whatever the client accepts, the answer depends on it.
    reply.header('vary', varyWithEncoding(reply.getHeader('vary')));
    const encoding = acceptedEncoding(request.headers['accept-encoding']);
    if (!encoding) return done(null, payload);
    const finish = (error: Error | null, compressed: Buffer) => {
      if (error) return done(null, payload);
      reply.header('content-encoding', encoding);
      reply.removeHeader('content-length');
      done(null, compressed);
    };
    if (encoding === 'br') brotliCompress(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }, finish);
    else gzip(bytes, { level: 6 }, finish);
  });
}

/** The bytes of an answer worth compressing, or undefined. */
function compressible(request: FastifyRequest, reply: FastifyReply, payload: unknown): Buffer | undefined {
  if (!request.url.startsWith('/api/')) return undefined;
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  const status = reply.statusCode;
  if (status < 200 || status === 204 || status === 304 || request.method === 'HEAD') return undefined;
  if (reply.hasHeader('content-encoding') || !COMPRESSIBLE.test(String(reply.getHeader('content-type') ?? ''))) return undefined;
  if ((typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length) < MIN_COMPRESSED_BYTES) return undefined;
  return typeof payload === 'string' ? Buffer.from(payload) : payload;
}

function varyWithEncoding(vary: unknown): string {
  const current = vary === undefined ? '' : String(vary);
  if (/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(current)) return current;
  return current ? `${current}, Accept-Encoding` : 'Accept-Encoding';
}
