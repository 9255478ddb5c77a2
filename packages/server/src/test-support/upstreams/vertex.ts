import type { ServerResponse } from 'node:http';
import { claudeInputTokens, claudeReply, claudeSignatures, sseEvent } from './anthropic-replies.js';
import { validateMessagesBody } from './anthropic-validate.js';
import { fixtures } from './fixtures.js';
import { geminiCaches, geminiCountTokens, geminiReply, geminiSignatures, sendGeminiReply } from './gemini-replies.js';
import { sendGoogleProblem } from './gemini.js';
import { validateGenerateContent } from './gemini-validate.js';
import { applyTimingMode, firstHalf, sendJson, startMockServer, writePaced, type MockHandle, type MockMode } from './mock-server.js';
import { MockTokenIssuer, type ServiceAccountKey, type TokenInfo } from './vertex-oauth.js';

/**
 * A local Vertex AI (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference) with its own
 * OAuth token endpoint. A caller logs in with a service-account key from `serviceAccount()` (POST /token, JWT bearer
 * grant), then calls
 *   /v1/projects/{project}/locations/{region}/publishers/google/models/{gemini}:generateContent | :streamGenerateContent | :countTokens
 *   /v1/projects/{project}/locations/{region}/publishers/anthropic/models/{claude}:rawPredict | :streamRawPredict
 *   /v1/projects/{project}/locations/{region}/publishers/anthropic/models/count-tokens:rawPredict
 * with `Authorization: Bearer <access token>`. The token must be one the mock issued and has not expired, the project
 * in the path must be the service account's, the region a Vertex region. The behaviour mode is the service account's
 * (its client_email is `<mode>@<project>.iam.gserviceaccount.com`).
 */
export interface MockVertex extends MockHandle {
  tokenUri: string;
  /** A service-account key file for this mock (`revoked` accounts are refused at the token endpoint). */
  serviceAccount(opts?: { mode?: MockMode; project?: string; revoked?: boolean }): ServiceAccountKey;
  /** Successful token exchanges, oldest first. */
  tokenExchanges: MockTokenIssuer['exchanges'];
  /** Revokes every token issued so far (as rotating a service-account key does): they are refused with 401. */
  revokeTokens(): void;
}
export interface MockVertexOptions {
  /** expires_in of issued tokens (default 3599); a token past it is refused with 401. */
  tokenTtlSeconds?: number;
  /** Regions accepted in the path (default: the Vertex regions serving Gemini and Claude). */
  regions?: string[];
}

export const VERTEX_REGIONS = ['global', 'us-central1', 'us-east1', 'us-east4', 'us-east5', 'us-south1', 'us-west1', 'us-west4', 'northamerica-northeast1', 'europe-west1', 'europe-west2', 'europe-west3', 'europe-west4', 'europe-west8', 'europe-west9', 'europe-north1', 'europe-central2', 'asia-east1', 'asia-northeast1', 'asia-northeast3', 'asia-south1', 'asia-southeast1', 'australia-southeast1', 'me-central1', 'southamerica-east1'];

const fx = fixtures('vertex');
const ROUTE = /^\/(v1|v1beta1)\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/;
const GOOGLE_ERROR_FOR_MODE: Partial<Record<MockMode, string>> = {
  'fail-400': 'invalid_argument',
  'fail-401': 'unauthenticated',
  'fail-403': 'permission_denied',
  'fail-408': 'unavailable',
  'fail-429': 'resource_exhausted',
  'fail-500': 'internal',
  'fail-503': 'unavailable',
  'overloaded-529': 'unavailable',
};
/** Claude on Vertex answers its own model errors in Anthropic's shape; quota and auth stay Google's. */
const CLAUDE_ERROR_FOR_MODE: Partial<Record<MockMode, string>> = { ...GOOGLE_ERROR_FOR_MODE, 'fail-400': 'claude_invalid_request', 'overloaded-529': 'claude_overloaded' };

const recordedError = (res: ServerResponse, name: string) => {
  const error = fx.json('errors.json')[name];
  sendJson(res, error.status, error.body);
};

export async function startMockVertex(options: MockVertexOptions = {}): Promise<MockVertex> {
  const regions = options.regions ?? VERTEX_REGIONS;
  const gemini = { signatures: geminiSignatures(fx), cachedContents: geminiCaches(fx) };
  const signatures = claudeSignatures();
  // The token endpoint's URL (the JWT audience) is known once the server listens.
  const state: { issuer?: MockTokenIssuer } = {};

  const handle = await startMockServer(async (req, res, recorded) => {
    const issuer = state.issuer;
    if (!issuer) throw new Error('token issuer not ready');
    if (req.method === 'POST' && recorded.path === '/token') {
      const answer = issuer.exchange(recorded.body);
      return sendJson(res, answer.status, answer.body, { 'cache-control': 'no-cache, no-store, max-age=0, must-revalidate' });
    }
    const bearer = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
    recorded.key = bearer;
    if (!bearer) {
      return sendGoogleProblem(res, { code: 401, status: 'UNAUTHENTICATED', message: 'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.' });
    }
    const owner = issuer.check(bearer);
    if (!owner) return recordedError(res, 'unauthenticated');
    const mode = owner.mode;
    recorded.mode = mode;

    const route = ROUTE.exec(decodeURIComponent(recorded.path));
    if (req.method !== 'POST' || !route) return sendGoogleProblem(res, { code: 404, status: 'NOT_FOUND', message: `The requested URL ${recorded.path} was not found on this server.` });
    const [, , project, region, publisher, model, method] = route;
    const resource = `projects/${project}/locations/${region}/publishers/${publisher}/models/${model}`;
    if (project !== owner.project) {
      return sendGoogleProblem(res, { code: 403, status: 'PERMISSION_DENIED', message: `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/${resource}' (or it may not exist).` });
    }
    if (!regions.includes(region)) return sendGoogleProblem(res, { code: 400, status: 'INVALID_ARGUMENT', message: `Location ${region} is not supported for this request.` });

    if (publisher === 'google') return serveGemini(res, recorded.body, recorded.query.alt === 'sse', { model, method, mode, resource });
    return serveClaude(res, recorded.body, { model, method, mode, resource, owner });
  });

  async function serveGemini(res: ServerResponse, body: unknown, sse: boolean, at: { model: string; method: string; mode: MockMode; resource: string }) {
    const known = ['generateContent', 'streamGenerateContent', 'countTokens'];
    const stream = at.method === 'streamGenerateContent';
    if (!known.includes(at.method)) return sendGoogleProblem(res, { code: 404, status: 'NOT_FOUND', message: `Method ${at.method} is not supported for ${at.resource}.` });
    if (await applyTimingMode(res, at.mode, stream)) return;
    const failure = GOOGLE_ERROR_FOR_MODE[at.mode];
    if (failure) return recordedError(res, failure);
    if (!/^gemini-/.test(at.model)) return sendGoogleProblem(res, { code: 404, status: 'NOT_FOUND', message: `Publisher Model \`${at.resource}\` not found.` });
    const problem = validateGenerateContent(body, { platform: 'vertex', model: at.model, ...gemini });
    if (problem) return sendGoogleProblem(res, problem);
    if (at.method === 'countTokens') return sendJson(res, 200, geminiCountTokens(fx, body as Record<string, any>, 'vertex'));
    const reply = geminiReply(fx, body as Record<string, any>, at.mode, at.model);
    await sendGeminiReply(res, reply, { stream, sse, mode: at.mode, streamError: fx.json('errors.json').unavailable.body });
  }

  async function serveClaude(res: ServerResponse, raw: unknown, at: { model: string; method: string; mode: MockMode; resource: string; owner: TokenInfo }) {
    const counting = at.model === 'count-tokens';
    if (at.method !== 'rawPredict' && at.method !== 'streamRawPredict') return sendGoogleProblem(res, { code: 404, status: 'NOT_FOUND', message: `Method ${at.method} is not supported for ${at.resource}.` });
    const body = raw as Record<string, any> | undefined;
    const stream = at.method === 'streamRawPredict' || body?.stream === true;
    if (await applyTimingMode(res, at.mode, stream && !counting)) return;
    const failure = CLAUDE_ERROR_FOR_MODE[at.mode];
    if (failure) return recordedError(res, failure);
    const model = counting ? String(body?.model ?? '') : at.model;
    if (!/^claude-/.test(model) && !(counting && !model)) return sendGoogleProblem(res, { code: 404, status: 'NOT_FOUND', message: `Publisher Model \`${at.resource}\` not found.` });
    const problem = validateMessagesBody(body, { platform: 'vertex', model, countTokens: counting, signatures });
    if (problem) return sendJson(res, problem.status, { type: 'error', error: { type: problem.type, message: problem.message } });
    const valid = body as Record<string, any>;
    if (counting) return sendJson(res, 200, { input_tokens: claudeInputTokens(valid) });

    const reply = claudeReply(valid, at.mode, { model: model.replace('@', '-'), idPrefix: 'msg_vrtx_' });
    if (!stream) return sendJson(res, 200, reply.message);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    if (at.mode === 'stream-error') {
      await writePaced(res, firstHalf(reply.events).map(sseEvent), 'ok');
      res.end(sseEvent({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
      return;
    }
    if (await writePaced(res, reply.events.map(sseEvent), at.mode)) res.end();
  }

  const tokens = new MockTokenIssuer(`${handle.url}/token`, options.tokenTtlSeconds ?? 3599);
  state.issuer = tokens;
  return {
    ...handle,
    tokenUri: `${handle.url}/token`,
    serviceAccount: (opts) => tokens.serviceAccount(opts),
    tokenExchanges: tokens.exchanges,
    revokeTokens: () => tokens.tokens.clear(),
  };
}
