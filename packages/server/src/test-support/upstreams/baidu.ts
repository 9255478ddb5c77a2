import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { applyTimingMode, firstHalf, modeOf, sendJson, sleep, startMockServer, writePaced, type MockHandle, type MockMode, type RecordedRequest } from './mock-server.js';

/**
 * Baidu Wenxin Qianfan as its documentation describes it (relay/providers/baidu/__fixtures__/README.md): the OAuth
 * token endpoint, ERNIE's v1 chat / embeddings / reranker APIs that take the access token in the query, and the v2
 * OpenAI-compatible API that takes a `bce-v3/...` key as a bearer token.
 *
 * What it checks, as Baidu does: the token endpoint the grant type and the client's API Key and Secret Key (an API
 * Key `<mode>` or `<mode>:<tag>` has the Secret Key `secret-<API Key>`); every v1 call an access token it issued and
 * that has not expired (else `error_code` 110 / 111 with HTTP 200); the ERNIE body (alternating roles, ranges); the v2
 * API its bearer key (`bce-v3/ALTAK-<mode>/<secret>`, HTTP 401 otherwise). The mode of the caller's key picks the
 * answer: ok / tool, fail-* (ERNIE's error codes with HTTP 200; an API Key `fail-403:quota` gets 17, the daily
 * limit), break, stream-error, slow, slow-stream, lag.
 */
const fixturesDir = fileURLToPath(new URL('../../relay/providers/baidu/__fixtures__/', import.meta.url));
const fixture = (name: string) => readFileSync(fixturesDir + name, 'utf8');
const json = (name: string) => JSON.parse(fixture(name)) as Record<string, unknown>;

export const baiduSecretOf = (apiKey: string) => `secret-${apiKey}`;
/** A one-api key `APIKey|SecretKey` the mock accepts (or refuses, with a wrong secret). */
export const baiduKey = (mode: MockMode | `${MockMode}:${string}`, secret = baiduSecretOf(mode)) => `${mode}|${secret}`;
/** A Qianfan v2 API Key the mock accepts. */
export const baiduV2Key = (mode: MockMode | `${MockMode}:${string}`) => `bce-v3/ALTAK-${mode}/${Buffer.from(`v2-${mode}`).toString('hex')}`;

interface IssuedToken {
  apiKey: string;
  mode?: MockMode;
  expiresAt: number;
}

export interface MockBaidu extends MockHandle {
  /** Every successful token exchange (client id), in order. */
  tokenExchanges: string[];
  tokens: Map<string, IssuedToken>;
  /** Expires every token issued so far (ERNIE then answers 111 until a new one is fetched). */
  expireAll(): void;
}

export interface MockBaiduOptions {
  /** expires_in of the tokens it issues (seconds); 30 days as Baidu's. */
  ttlSeconds?: number;
  /** How long a token exchange takes (ms), so concurrent first requests overlap. */
  exchangeDelayMs?: number;
}

const ERROR_OF_MODE: Partial<Record<MockMode, [number, string]>> = {
  'fail-400': [336003, 'the parameter check failed'],
  'fail-401': [110, 'Access token invalid or no longer valid'],
  'fail-403': [6, 'No permission to access data'],
  'fail-408': [336100, 'try again later'],
  'fail-429': [18, 'Open api qps request limit reached'],
  'fail-500': [336000, 'Internal error'],
  'fail-503': [336100, 'try again later'],
  'overloaded-529': [336100, 'try again later'],
};

const ernieError = (res: ServerResponse, code: number, message: string) => sendJson(res, 200, { error_code: code, error_msg: message });

export async function startMockBaidu(options: MockBaiduOptions = {}): Promise<MockBaidu> {
  const ttl = options.ttlSeconds ?? 2_592_000;
  const tokens = new Map<string, IssuedToken>();
  const tokenExchanges: string[] = [];
  let issued = 0;

  const handle = await startMockServer(async (_req, res, recorded) => {
    if (recorded.path === '/oauth/2.0/token') {
      const { grant_type: grant, client_id: id, client_secret: secret } = recorded.query;
      if (recorded.method !== 'POST' && recorded.method !== 'GET') return sendJson(res, 405, { error: 'invalid_request', error_description: 'method not allowed' });
      if (grant !== 'client_credentials') return sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported' });
      if (!id) return sendJson(res, 400, { error: 'invalid_client', error_description: 'unknown client id' });
      if (secret !== baiduSecretOf(id)) return sendJson(res, 401, json('token-error.response.json'));
      await sleep(options.exchangeDelayMs ?? 0);
      const token = `24.${randomBytes(16).toString('hex')}.${ttl}.${Math.floor(Date.now() / 1000) + ttl}.${++issued}-8574074`;
      tokens.set(token, { apiKey: id, mode: modeOf(id), expiresAt: Date.now() + ttl * 1000 });
      tokenExchanges.push(id);
      return sendJson(res, 200, { ...json('token.response.json'), access_token: token, expires_in: ttl });
    }
    if (recorded.path.startsWith('/v2/')) return v2(res, recorded);
    const match = /^\/rpc\/2\.0\/ai_custom\/v1\/wenxinworkshop\/(chat|embeddings|reranker)\/([a-z0-9_.-]+)$/.exec(recorded.path);
    if (!match) return ernieError(res, 3, 'Unsupported openapi method');
    const token = tokens.get(recorded.query.access_token ?? '');
    if (!recorded.query.access_token) return ernieError(res, 100, 'Invalid parameter');
    if (!token) return ernieError(res, 110, 'Access token invalid or no longer valid');
    if (token.expiresAt <= Date.now()) return ernieError(res, 111, 'Access token expired');
    recorded.key = token.apiKey;
    recorded.mode = token.mode;
    return ernie(res, recorded, match[1] as 'chat' | 'embeddings' | 'reranker', match[2], token.apiKey);
  });

  return Object.assign(handle, {
    tokens,
    tokenExchanges,
    expireAll: () => {
      for (const token of tokens.values()) token.expiresAt = 0;
    },
  });
}

async function ernie(res: ServerResponse, recorded: RecordedRequest, api: 'chat' | 'embeddings' | 'reranker', endpoint: string, apiKey: string): Promise<void> {
  const mode = recorded.mode;
  const body = recorded.body as Record<string, unknown> | undefined;
  const stream = api === 'chat' && body?.stream === true;
  if (await applyTimingMode(res, mode, stream)) return;
  if (apiKey.endsWith(':quota')) return ernieError(res, 17, 'Open api daily request limit reached');
  const failure = mode ? ERROR_OF_MODE[mode] : undefined;
  if (failure) return ernieError(res, failure[0], failure[1]);
  if (typeof body !== 'object' || body === null) return ernieError(res, 336002, 'Invalid JSON');

  if (api === 'embeddings') {
    const input = body.input;
    if (!Array.isArray(input) || input.length === 0 || input.length > 16 || !input.every((i) => typeof i === 'string' && i.length > 0)) return ernieError(res, 336003, 'input should be a non-empty list of at most 16 strings');
    const answer = json('embeddings.response.json');
    const data = (answer.data as Array<Record<string, unknown>>)[0];
    return sendJson(res, 200, { ...answer, data: input.map((_, index) => ({ ...data, index })) });
  }
  if (api === 'reranker') {
    if (typeof body.query !== 'string' || !Array.isArray(body.documents) || body.documents.length === 0) return ernieError(res, 336003, 'query and documents are required');
    return sendJson(res, 200, json('rerank.response.json'));
  }

  const problem = validateErnieChat(body, endpoint);
  if (problem) return ernieError(res, 336003, problem);
  const messages = body.messages as Array<{ role: string }>;
  const scenario = messages.at(-1)!.role === 'function' ? 'tool-result' : mode === 'tool' || Array.isArray(body.functions) ? 'tools' : 'text';
  if (scenario === 'tools' && !Array.isArray(body.functions)) return ernieError(res, 336003, 'functions is required for a function call');
  if (!stream) return sendJson(res, 200, json(`${scenario}.response.json`));

  const events = fixture(`${scenario}.stream.txt`).split(/(?<=\n\n)/).filter((e) => e.trim());
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (mode === 'stream-error') {
    const pieces = firstHalf(events);
    if (!(await writePaced(res, pieces, undefined))) return;
    res.end(`data: ${JSON.stringify({ error_code: 336100, error_msg: 'try again later' })}\n\n`);
    return;
  }
  if (await writePaced(res, events, mode)) res.end();
}

/** The checks ERNIE's chat API makes of a body (its parameter descriptions); null when it would take it. */
export function validateErnieChat(body: Record<string, unknown>, endpoint = 'completions'): string | null {
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return 'messages should not be empty';
  if (messages.length % 2 === 0) return 'the length of messages must be an odd number';
  for (const [i, m] of messages.entries()) {
    if (typeof m !== 'object' || m === null) return 'message should be an object';
    const { role, content, name, function_call: call } = m as Record<string, unknown>;
    const odd = i % 2 === 0; // the 1st, 3rd, ... message
    if (odd && role !== 'user' && role !== 'function') return 'the role of message with odd index in the messages must be user or function';
    if (!odd && role !== 'assistant') return 'the role of message with even index in the messages must be assistant';
    if (i === 0 && role === 'function') return 'the first message can not be function';
    if (typeof content !== 'string') return 'message content must be a string';
    if (role === 'function' && (typeof name !== 'string' || !name)) return 'the name of a function message is required';
    if (role !== 'assistant' && !content) return 'message content can not be empty';
    if (call !== undefined && (typeof call !== 'object' || call === null || typeof (call as Record<string, unknown>).name !== 'string')) return 'function_call should have a name';
    if (role !== 'assistant' && call !== undefined) return 'only an assistant message can carry function_call';
  }
  const num = (field: string) => (body[field] === undefined ? undefined : typeof body[field] === 'number' ? (body[field] as number) : NaN);
  const temperature = num('temperature');
  if (temperature !== undefined && !(temperature > 0 && temperature <= 1)) return 'temperature should be in (0, 1]';
  const topP = num('top_p');
  if (topP !== undefined && !(topP >= 0 && topP <= 1)) return 'top_p should be in [0, 1]';
  const penalty = num('penalty_score');
  if (penalty !== undefined && !(penalty >= 1 && penalty <= 2)) return 'penalty_score should be in [1, 2]';
  const max = num('max_output_tokens');
  const ceiling = /128k/.test(endpoint) ? 4096 : 2048;
  if (max !== undefined && !(Number.isInteger(max) && max >= 2 && max <= ceiling)) return `max_output_tokens should be in [2, ${ceiling}]`;
  if (body.system !== undefined && typeof body.system !== 'string') return 'system should be a string';
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return 'stream should be a boolean';
  if (body.stop !== undefined && (!Array.isArray(body.stop) || body.stop.length > 4 || !body.stop.every((s) => typeof s === 'string' && s.length <= 20))) return 'stop should be at most 4 strings of at most 20 characters';
  if (body.functions !== undefined) {
    if (!Array.isArray(body.functions) || body.functions.length === 0) return 'functions should be a non-empty list';
    for (const f of body.functions) {
      const fn = f as Record<string, unknown>;
      if (typeof fn?.name !== 'string' || typeof fn.description !== 'string' || typeof fn.parameters !== 'object') return 'each function needs name, description and parameters';
    }
  }
  if (body.model !== undefined) return 'unknown field model';
  if (body.tools !== undefined) return 'unknown field tools';
  return null;
}

/** Qianfan v2: OpenAI's wire with `Authorization: Bearer bce-v3/...`. */
async function v2(res: ServerResponse, recorded: RecordedRequest): Promise<void> {
  const auth = String(recorded.headers.authorization ?? '');
  const key = auth.startsWith('Bearer ') ? auth.slice(7) : '';
  const match = /^bce-v3\/ALTAK-([^/]+)\/([0-9a-f]+)$/.exec(key);
  const mode = match ? modeOf(match[1]) : undefined;
  if (!match || !mode || match[2] !== Buffer.from(`v2-${match[1]}`).toString('hex')) {
    return sendJson(res, 401, { error: { code: 'invalid_iam_token', message: 'IAM Certification failed', type: 'invalid_request_error' } });
  }
  recorded.key = match[1];
  recorded.mode = mode;
  const body = (recorded.body ?? {}) as Record<string, unknown>;
  const stream = body.stream === true;
  if (await applyTimingMode(res, mode, stream)) return;
  if (mode === 'fail-429') return sendJson(res, 429, { error: { code: 'rpm_rate_limit_exceeded', message: 'Rate limit reached for RPM', type: 'rate_limit_exceeded' } });
  if (mode.startsWith('fail-')) return sendJson(res, Number(mode.slice(5)) || 500, { error: { code: 'internal_error', message: 'Internal error', type: 'server_error' } });
  if (typeof body.model !== 'string' || body.model !== body.model.toLowerCase()) return sendJson(res, 400, { error: { code: 'invalid_model', message: 'model is required (lower case)', type: 'invalid_request_error' } });
  const usage = { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 };
  const created = Math.floor(Date.now() / 1000);
  if (recorded.path === '/v2/embeddings') {
    const input = typeof body.input === 'string' ? [body.input] : (body.input as unknown[]);
    return sendJson(res, 200, { id: 'as-v2emb', object: 'list', created, model: body.model, data: input.map((_, index) => ({ object: 'embedding', index, embedding: [0.1, 0.2, 0.3] })), usage: { prompt_tokens: 12, total_tokens: 12 } });
  }
  if (recorded.path !== '/v2/chat/completions') return sendJson(res, 404, { error: { code: 'not_found', message: 'Not Found', type: 'invalid_request_error' } });
  if (!Array.isArray(body.messages) || body.messages.length === 0) return sendJson(res, 400, { error: { code: 'invalid_argument', message: 'messages is required', type: 'invalid_request_error' } });
  const text = '你好！有什么可以帮你的吗？';
  if (!stream) return sendJson(res, 200, { id: 'as-v2chat', object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage });
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) => `data: ${JSON.stringify({ id: 'as-v2chat', object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const events = [chunk({ role: 'assistant', content: '你好！' }, null), chunk({ content: '有什么可以帮你的吗？' }, null), chunk({}, 'stop', includeUsage ? { usage } : {}), 'data: [DONE]\n\n'];
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (await writePaced(res, events, mode)) res.end();
}
