// The transport's own limit: a bare pass-through on node:http + undici (the gateway's HTTP server and upstream
// client), with nothing of the gateway on top: no authentication, no quota, no ledger, no logs. It reads the
// client's body, sends it to UPSTREAM (an origin) at the same path with the same undici Pool settings as the
// gateway (relay/transport/upstream-pools.ts), and pipes the answer back, streams chunk by chunk, from the body's events.
// Usage: PORT=n UPSTREAM=http://127.0.0.1:m node bare-passthrough.mjs
import { createServer } from 'node:http';
import { Pool } from 'undici';

const pool = new Pool(process.env.UPSTREAM, { connections: 4096, pipelining: 1, keepAliveTimeout: 30_000 });
// The headers an upstream needs from the client (the mocks read none of them, but a real pass-through would).
const FORWARDED = ['content-type', 'authorization', 'x-api-key', 'anthropic-version'];

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    const headers = {};
    for (const name of FORWARDED) if (req.headers[name] !== undefined) headers[name] = req.headers[name];
    try {
      const upstream = await pool.request({ method: 'POST', path: req.url, headers, body: Buffer.concat(chunks) });
      res.writeHead(upstream.statusCode, { 'content-type': upstream.headers['content-type'] ?? 'application/json' });
      // Pumped from the body's events, as the gateway does (pump-body.ts): an async iterator would keep a generator
      // and its promises per open stream, which the gateway does not pay (bench/README.md, 2026-11-28 09:50).
      upstream.body.on('data', (chunk) => res.write(chunk));
      upstream.body.on('end', () => res.end());
      upstream.body.on('error', () => res.destroy());
    } catch (error) {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error?.message ?? error) } }));
    }
  });
});
// The gateway's defaults for keep-alive (fastify: 72 s) so wrk's connections stay open the same way.
server.keepAliveTimeout = 72_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
