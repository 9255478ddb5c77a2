import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the mock providers see it: method, path, query, headers and the body as fields. */
export interface MockRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** JSON or form-encoded body as a flat object ({} when empty). */
  body: Record<string, unknown>;
}

export interface MockReply {
  status?: number;
  headers?: Record<string, string>;
  /** A string or Buffer is sent as is; anything else as JSON. */
  body?: unknown;
}

export interface MockServer {
  url: string;
  /** Every request received, in order (what a test may assert was sent to the provider). */
  requests: MockRequest[];
  close(): Promise<void>;
}

/** A local HTTP server on a free port answering through one handler: the base of every mock provider. */
export async function startMockServer(handle: (request: MockRequest) => MockReply | Promise<MockReply>): Promise<MockServer> {
  const requests: MockRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://mock');
      const request: MockRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: parseBody(raw, req.headers['content-type']) };
      requests.push(request);
      Promise.resolve(handle(request))
        .then((reply) => {
          const raw = typeof reply.body === 'string' || Buffer.isBuffer(reply.body);
          res.writeHead(reply.status ?? 200, { 'content-type': raw ? 'text/plain; charset=utf-8' : 'application/json', ...reply.headers });
          res.end(reply.body === undefined ? '' : raw ? (reply.body as string | Buffer) : JSON.stringify(reply.body));
        })
        .catch((error: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(error));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (!raw) return {};
  if (contentType?.includes('application/json')) {
    try {
      const parsed: unknown = JSON.parse(raw);
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(raw));
}

/** A random opaque value (codes, tokens) of the given length. */
export function opaque(prefix: string, length = 20): string {
  return prefix + randomBytes(length).toString('hex').slice(0, length);
}
