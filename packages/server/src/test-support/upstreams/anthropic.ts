import type { ServerResponse } from 'node:http';
import { claudeInputTokens, claudeReply, claudeSignatures, sseEvent } from './anthropic-replies.js';
import { validateMessagesBody, type Problem } from './anthropic-validate.js';
import { fixtures } from './fixtures.js';
import { applyTimingMode, firstHalf, modeOf, sendJson, startMockServer, writePaced, type MockHandle, type MockMode } from './mock-server.js';

/**
 * A local Anthropic Messages API (https://platform.claude.com/docs/en/api/messages) that checks what the real one
 * checks and answers with the payloads in providers/anthropic/__fixtures__.
 *
 * Auth: `x-api-key: <mode>` or `Authorization: Bearer <mode>` (the 1.x SDKs send the key as a bearer token; when
 * both are present the API uses x-api-key). A key that is not a mode name is refused like a wrong key.
 * Routes: POST /v1/messages (JSON or SSE), POST /v1/messages/count_tokens, GET /v1/models.
 */
export type MockAnthropic = MockHandle;
export interface MockAnthropicOptions {
  /** Refuse consecutive same-role turns and an assistant first turn (the API itself joins such turns). */
  strictTurns?: boolean;
  /** Served under this path (a vendor's Anthropic-compatible endpoint, such as DeepSeek's /anthropic). */
  pathPrefix?: string;
}

/** anthropic-version values the API knows; 2026-10-21 drops temperature, top_p and top_k. */
export const ANTHROPIC_VERSIONS = ['2023-01-01', '2023-06-01', '2026-10-21'];

const fx = fixtures('anthropic');
const ERROR_FOR_MODE: Partial<Record<MockMode, string>> = {
  'fail-400': 'invalid_request',
  'fail-401': 'authentication',
  'fail-403': 'permission',
  'fail-408': 'timeout',
  'fail-429': 'rate_limit',
  'fail-500': 'api_error',
  'fail-503': 'api_error',
  'overloaded-529': 'overloaded',
};

let counter = 0;
const requestId = () => `req_011Mock${String(++counter).padStart(16, '0')}`;

function sendProblem(res: ServerResponse, problem: Problem): void {
  sendJson(res, problem.status, { type: 'error', error: { type: problem.type, message: problem.message }, request_id: requestId() }, { 'request-id': requestId() });
}

/** Answers one of the recorded errors (errors.json) as Anthropic does. */
export function sendAnthropicError(res: ServerResponse, name: string): void {
  const error = fx.json('errors.json')[name];
  sendJson(res, error.status, error.body, { 'request-id': requestId(), ...(error.headers ?? {}) });
}

export async function startMockAnthropic(options: MockAnthropicOptions = {}): Promise<MockAnthropic> {
  const signatures = claudeSignatures();
  return startMockServer(async (req, res, recorded) => {
    const path = recorded.path.replace(/\/+$/, '').slice(options.pathPrefix && recorded.path.startsWith(options.pathPrefix) ? options.pathPrefix.length : 0);
    const apiKey = req.headers['x-api-key'];
    const bearer = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
    const key = typeof apiKey === 'string' ? apiKey : bearer;
    recorded.key = key;
    if (!key) return sendProblem(res, { status: 401, type: 'authentication_error', message: 'x-api-key header is required' });
    const mode = modeOf(key);
    recorded.mode = mode;
    if (!mode) return sendProblem(res, { status: 401, type: 'authentication_error', message: 'invalid x-api-key' });

    if (req.method === 'GET' && path === '/v1/models') return sendJson(res, 200, modelList());
    const route = path === '/v1/messages' ? 'messages' : path === '/v1/messages/count_tokens' ? 'count' : undefined;
    if (req.method !== 'POST' || !route) return sendProblem(res, { status: 404, type: 'not_found_error', message: `Not found: ${req.method} ${path}` });

    const version = req.headers['anthropic-version'];
    if (!version) return sendProblem(res, { status: 400, type: 'invalid_request_error', message: 'anthropic-version: header is required' });
    if (typeof version !== 'string' || !ANTHROPIC_VERSIONS.includes(version)) return sendProblem(res, { status: 400, type: 'invalid_request_error', message: `anthropic-version: invalid version '${String(version)}'` });

    const body = recorded.body as Record<string, any> | undefined;
    const stream = route === 'messages' && body?.stream === true;
    if (await applyTimingMode(res, mode, stream)) return;
    const failure = ERROR_FOR_MODE[mode];
    if (failure) return sendAnthropicError(res, failure);

    if (typeof body?.model === 'string' && !body.model.startsWith('claude-')) return sendProblem(res, { status: 404, type: 'not_found_error', message: `model: ${body.model}` });
    const problem = validateMessagesBody(body, { platform: 'anthropic', model: String(body?.model ?? ''), apiVersion: version, countTokens: route === 'count', strictTurns: options.strictTurns, signatures });
    if (problem) return sendProblem(res, problem);
    const valid = body as Record<string, any>;

    if (route === 'count') return sendJson(res, 200, { input_tokens: claudeInputTokens(valid) }, { 'request-id': requestId() });
    const reply = claudeReply(valid, mode, { model: valid.model });
    if (!stream) return sendJson(res, 200, reply.message, { 'request-id': requestId() });

    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': requestId() });
    if (mode === 'stream-error') {
      await writePaced(res, firstHalf(reply.events).map(sseEvent), 'ok');
      res.end(sseEvent(fx.json('errors.json').stream_error_event.body));
      return;
    }
    if (await writePaced(res, reply.events.map(sseEvent), mode)) res.end();
  });
}

function modelList() {
  const ids = ['claude-opus-4-8', 'claude-sonnet-4-6', 'claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001'];
  const data = ids.map((id) => ({ type: 'model', id, display_name: id.replace(/-\d{8}$/, ''), created_at: '2025-09-29T00:00:00Z' }));
  return { data, has_more: false, first_id: ids[0], last_id: ids.at(-1) };
}
