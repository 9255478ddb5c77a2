import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Plumbing shared by the provider mocks: one HTTP server on a free loopback port, the body read whole, a record
 * of every request (valid or not), and helpers for JSON answers and paced streams.
 */

/** How a mock behaves for one request, chosen by the key (or access key id / service account) the caller uses. */
export const MOCK_MODES = [
  'ok', // normal answers; the scenario follows the request (tools declared -> tool call, thinking on -> thinking, ...)
  'tool', // force the tool-call answer (the request must declare a tool)
  'thinking', // force the reasoning answer
  'cache', // force the answer whose usage reports cache reads and writes
  'fail-400',
  'fail-401',
  'fail-403',
  'fail-408',
  'fail-429',
  'fail-500',
  'fail-503',
  'overloaded-529', // Anthropic's own overload status (also Claude on Vertex)
  'break', // a stream dies mid-way (the socket is destroyed); a non-stream answer is cut before any byte
  'stream-error', // a stream ends with the provider's in-stream error (Anthropic `error` event, Bedrock exception frame)
  'slow', // never answers: the caller's timeout must fire
  'slow-stream', // streams with 60 ms between events
  'hold-stream', // streams its first event, then holds the rest until the caller goes away
  'lag', // answers normally after 300 ms
  'no-usage', // answers without any usage report (the gateway counts the tokens itself); where a mock supports it
] as const;
export type MockMode = (typeof MOCK_MODES)[number];

/** `<mode>` or `<mode>:<anything>` (so several channels can share a mode and still be told apart). */
export function modeOf(key: string | undefined): MockMode | undefined {
  if (!key) return undefined;
  const mode = key.split(':')[0];
  return (MOCK_MODES as readonly string[]).includes(mode) ? (mode as MockMode) : undefined;
}

export interface RecordedRequest {
  method: string;
  /** Path without the query, as received (still percent-encoded). */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON when the body was JSON, the form fields for a form post, the raw text otherwise. */
  body: unknown;
  rawBody: Buffer;
  /** The credential the caller presented (API key, access key id, bearer token), when there was one. */
  key?: string;
  mode?: MockMode;
  /** Set once the caller closed the connection before the answer was complete (a cancelled upstream call). */
  aborted?: boolean;
}

export interface MockHandle {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type MockHandler = (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => Promise<void> | void;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseBody(raw: Buffer, contentType: string): unknown {
  if (!raw.length) return undefined;
  const text = raw.toString('utf8');
  if (contentType.includes('application/x-www-form-urlencoded')) return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function startMockServer(handler: MockHandler): Promise<MockHandle> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    try {
      const rawBody = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://mock');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: (req.url ?? '/').split('?')[0],
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: parseBody(rawBody, String(req.headers['content-type'] ?? '')),
        rawBody,
      };
      requests.push(recorded);
      res.on('close', () => {
        if (!res.writableFinished) recorded.aborted = true;
      });
      await handler(req, res, recorded);
    } catch (error) {
      // A bug in a mock must show in the test output, not hang the caller.
      if (!res.headersSent) res.writeHead(599, { 'content-type': 'text/plain' });
      res.end(`mock failure: ${(error as Error).stack ?? String(error)}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes stream pieces in order, honouring the stream modes: `slow-stream` paces them, `break` writes the first half
 * and then destroys the socket. Returns false when the stream was broken (the caller must not write more).
 */
export async function writePaced(res: ServerResponse, pieces: Array<string | Uint8Array>, mode: MockMode | undefined): Promise<boolean> {
  const cut = mode === 'break' ? Math.max(1, Math.floor(pieces.length / 2)) : pieces.length;
  for (let i = 0; i < cut; i++) {
    if (res.destroyed) return false;
    res.write(pieces[i]);
    if (mode === 'slow-stream' && i < cut - 1) await sleep(60);
    if (mode === 'hold-stream') {
      await new Promise((resolve) => res.once('close', resolve));
      return false;
    }
  }
  if (mode === 'break') {
    await sleep(30);
    res.socket?.destroy();
    return false;
  }
  return true;
}

/** Half of the pieces, for `stream-error`: the provider's own error follows them. */
export const firstHalf = <T>(pieces: T[]): T[] => pieces.slice(0, Math.max(1, Math.floor(pieces.length / 2)));

/** The modes every mock handles the same way before looking at the request. Returns true when it answered. */
export async function applyTimingMode(res: ServerResponse, mode: MockMode | undefined, stream: boolean): Promise<boolean> {
  if (mode === 'slow') return true; // never answers
  if (mode === 'lag') await sleep(300);
  if (mode === 'break' && !stream) {
    res.socket?.destroy();
    return true;
  }
  return false;
}
