import type { ServerResponse } from 'node:http';
import { fixtures } from './fixtures.js';
import { applyTimingMode, firstHalf, modeOf, sendJson, startMockServer, writePaced, type MockHandle, type MockMode } from './mock-server.js';

/**
 * A local AI Proxy knowledge base, `POST /api/library/ask`, answering with providers/aiproxy-library/__fixtures__.
 * It checks the `Api-Key` header (the key is `<mode>`), `model`, `query` and a `libraryId` of a library it holds
 * (default: 10817), `stream` a boolean. Errors are `{success: false, errCode, message}`; an unknown library is
 * answered with status 200, as one-api's relay of this API expects. AI Proxy's own documentation could not be read:
 * the statuses of its errors are our assumption (README).
 *
 * Modes: `stream-error` ends a stream with a failure event half way; `break` cuts it; timing modes apply.
 */
const fx = fixtures('aiproxy-library');

export const LIBRARY_ID = '10817';

const ERROR_FOR_MODE: Partial<Record<MockMode, string>> = {
  'fail-401': 'invalid_key',
  'fail-403': 'invalid_key',
  'fail-429': 'too_many_requests',
  'fail-500': 'internal',
  'fail-503': 'internal',
  'fail-400': 'library_not_found',
};

function sendError(res: ServerResponse, name: string): void {
  const error = fx.json('errors.json')[name];
  sendJson(res, error.status, error.body);
}

/** What the library says of an ask body, or null when it takes it. */
export function libraryAskProblem(body: unknown, libraries: readonly string[] = [LIBRARY_ID]): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body must be a JSON object';
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || !b.model) return 'model is required';
  if (typeof b.query !== 'string' || !b.query.trim()) return 'query is required';
  if (typeof b.libraryId !== 'string' || !b.libraryId) return 'libraryId is required';
  if (b.stream !== undefined && typeof b.stream !== 'boolean') return 'stream must be a boolean';
  if (!libraries.includes(b.libraryId)) return `Library not found: ${b.libraryId}`;
  return null;
}

export async function startMockAiProxyLibrary(): Promise<MockHandle> {
  return startMockServer(async (req, res, recorded) => {
    if (req.method !== 'POST' || recorded.path !== '/api/library/ask') return sendJson(res, 404, { success: false, errCode: 404, message: 'Not Found' });
    const key = String(recorded.headers['api-key'] ?? '');
    const mode = modeOf(key);
    recorded.key = key || undefined;
    if (!mode) return sendError(res, 'invalid_key');
    recorded.mode = mode;
    const body = recorded.body as Record<string, unknown>;
    const stream = body?.stream === true;
    if (await applyTimingMode(res, mode, stream)) return;
    const failure = ERROR_FOR_MODE[mode];
    if (failure) return sendError(res, failure);
    const problem = libraryAskProblem(body);
    if (problem) return sendJson(res, problem.startsWith('Library not found') ? 200 : 400, { success: false, errCode: problem.startsWith('Library not found') ? 1004 : 400, message: problem });
    const model = String(body.model);
    if (!stream) return sendJson(res, 200, fx.json('text.response.json'));
    const events = fx
      .text('text.stream.txt')
      .split(/\n\n/)
      .filter((block) => block.trim())
      .map((block) => `${block.replaceAll('"gpt-3.5-turbo"', JSON.stringify(model))}\n\n`);
    res.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8', 'cache-control': 'no-cache' });
    if (mode === 'stream-error') {
      await writePaced(res, firstHalf(events), 'ok');
      return void res.end(`data: ${JSON.stringify(fx.json('errors.json').stream_failure_event.body)}\n\n`);
    }
    if (await writePaced(res, events, mode)) res.end();
  });
}
