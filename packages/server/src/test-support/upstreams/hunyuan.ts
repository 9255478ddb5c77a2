import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { hunyuanCodec } from '../../relay/providers/hunyuan/hunyuan-codec.js';
import { fixtures, parseSse } from './fixtures.js';
import { validateChatCompletions, validateGetEmbedding } from './hunyuan-validate.js';
import { applyTimingMode, firstHalf, modeOf, sendJson, startMockServer, writePaced, type MockHandle, type MockMode, type RecordedRequest } from './mock-server.js';

/**
 * A local Tencent Hunyuan answering with providers/hunyuan/__fixtures__:
 *  - Tencent Cloud API 3.0, `POST /` with X-TC-Action ChatCompletions or GetEmbedding and X-TC-Version 2023-09-01.
 *    Every request's TC3-HMAC-SHA256 signature is recomputed from what arrived (the headers it names, the exact body
 *    bytes, the secret of its SecretId) and refused as Tencent refuses it: HTTP 200 with `Response.Error`
 *    (AuthFailure.SignatureFailure, AuthFailure.SignatureExpire for a timestamp more than 5 minutes off,
 *    AuthFailure.SecretIdNotFound); then the body is checked (hunyuan-validate.ts). Streams are SSE.
 *  - the OpenAI-compatible API, `POST /v1/chat/completions` and `/v1/embeddings` with `Authorization: Bearer <key>`.
 * The SecretId (or API key) is the mode; `hunyuanKey(mode)` is the channel key `AppId|SecretId|SecretKey`.
 */
const fx = fixtures('hunyuan');
const APP_ID = '1250000000';
const SIGNATURE_WINDOW_SECONDS = 300;

/** The secret key the mock holds for a SecretId. */
export const hunyuanSecretKey = (secretId: string) => createHash('sha256').update(`hunyuan-mock:${secretId}`).digest('hex').slice(0, 32);
/** A channel key `AppId|SecretId|SecretKey` for a mode (a wrong secret key can be given). */
export const hunyuanKey = (mode: MockMode | `${MockMode}:${string}`, secretKey = hunyuanSecretKey(mode)) => `${APP_ID}|${mode}|${secretKey}`;

const ERROR_FOR_MODE: Partial<Record<MockMode, [string, string]>> = {
  'fail-400': ['InvalidParameter', '参数错误。'],
  'fail-401': ['AuthFailure.UnauthorizedOperation', '请求未授权。'],
  'fail-403': ['FailedOperation.ServiceNotActivated', '服务未开通，请前往控制台申请试用。'],
  'fail-408': ['FailedOperation.EngineRequestTimeout', '引擎层请求超时；请稍后重试。'],
  'fail-429': ['RequestLimitExceeded', 'Your current request times equals to `21` in a second, which exceeds the frequency limit `20` for a second.'],
  'fail-500': ['InternalError', '内部错误。'],
  'fail-503': ['FailedOperation.EngineServerError', '引擎层内部错误；请稍后重试。'],
  'overloaded-529': ['FailedOperation.EngineServerLimitExceeded', '引擎层请求超过限额；请稍后重试。'],
};

function tencentError(res: ServerResponse, code: string, message: string): void {
  sendJson(res, 200, { Response: { Error: { Code: code, Message: message }, RequestId: randomUUID() } });
}

/** The TC3-HMAC-SHA256 check, written here from the documented algorithm (independently of the adapter's signer). */
function verifyTc3(recorded: RecordedRequest): { secretId: string } | { code: string; message: string } {
  const header = String(recorded.headers.authorization ?? '');
  const parsed = /^TC3-HMAC-SHA256 Credential=([^/\s]+)\/(\d{4}-\d{2}-\d{2})\/([a-z]+)\/tc3_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(header);
  if (!parsed) return { code: 'AuthFailure.InvalidAuthorization', message: 'Authorization 格式不正确。' };
  const [, secretId, date, service, signedHeaders, signature] = parsed;
  const timestamp = Number(recorded.headers['x-tc-timestamp']);
  if (!Number.isInteger(timestamp)) return { code: 'MissingParameter', message: 'The request is missing a required parameter `Timestamp`.' };
  const now = Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > SIGNATURE_WINDOW_SECONDS) return { code: 'AuthFailure.SignatureExpire', message: `Signature expired. Timestamp validity: ${timestamp}, current time: ${now}` };
  if (!modeOf(secretId)) return { code: 'AuthFailure.SecretIdNotFound', message: 'The SecretId is not found, please ensure that your SecretId is correct.' };
  const names = signedHeaders.split(';');
  const failure = { code: 'AuthFailure.SignatureFailure', message: 'The provided credentials could not be validated. Please check your signature is correct.' };
  if (service !== 'hunyuan' || date !== new Date(timestamp * 1000).toISOString().slice(0, 10) || !names.includes('content-type') || !names.includes('host')) return failure;
  if ([...names].sort().join(';') !== signedHeaders) return failure;
  const canonicalHeaders = names.map((name) => `${name}:${String(recorded.headers[name] ?? '').trim().toLowerCase()}\n`).join('');
  const sha = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
  const canonical = `POST\n/\n\n${canonicalHeaders}\n${signedHeaders}\n${sha(recorded.rawBody)}`;
  const toSign = `TC3-HMAC-SHA256\n${timestamp}\n${date}/${service}/tc3_request\n${sha(canonical)}`;
  let key: Buffer = createHmac('sha256', `TC3${hunyuanSecretKey(secretId)}`).update(date).digest();
  key = createHmac('sha256', key).update(service).digest();
  key = createHmac('sha256', key).update('tc3_request').digest();
  return createHmac('sha256', key).update(toSign).digest('hex') === signature ? { secretId } : failure;
}

/** The scenario a ChatCompletions body asks for. */
function scenarioOf(body: Record<string, any>, mode: MockMode): string {
  const messages = body.Messages as Array<Record<string, any>>;
  const last = messages.at(-1)!;
  if (last.Role === 'tool') return 'tool-result';
  if ((mode === 'tool' || mode === 'ok') && Array.isArray(body.Tools) && body.Tools.length) return 'tools';
  if (mode === 'thinking' || String(body.Model).startsWith('hunyuan-t1')) return 'reasoning';
  if (messages.some((m) => Array.isArray(m.Contents) && m.Contents.some((c: any) => c.Type === 'image_url'))) return 'image';
  return 'text';
}

/** The recorded answer, the called tool renamed to the first one the request declares. */
function recorded(name: string, kind: 'response.json' | 'stream.txt', body: Record<string, any>): string {
  const text = fx.text(`${name}.${kind}`);
  const tool = body.Tools?.[0]?.Function?.Name;
  return name === 'tools' && tool ? text.split('"get_weather"').join(JSON.stringify(tool)) : text;
}

async function sendSse(res: ServerResponse, blocks: string[], mode: MockMode): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-tc-requestid': randomUUID() });
  if (mode === 'stream-error') {
    await writePaced(res, firstHalf(blocks), 'ok');
    res.end(`data: ${JSON.stringify(fx.json('errors.json').stream_error_frame.frame)}\n\n`);
    return;
  }
  if (await writePaced(res, blocks, mode)) res.end();
}

const blocksOf = (sse: string) => sse.split(/(?<=\n\n)/).filter((block) => block.trim());

async function tencentApi(res: ServerResponse, recorded_: RecordedRequest): Promise<void> {
  const auth = verifyTc3(recorded_);
  if ('code' in auth) return tencentError(res, auth.code, auth.message);
  const mode = modeOf(auth.secretId)!;
  recorded_.key = auth.secretId;
  recorded_.mode = mode;
  const action = String(recorded_.headers['x-tc-action'] ?? '');
  if (action !== 'ChatCompletions' && action !== 'GetEmbedding') return tencentError(res, 'InvalidAction', `The action \`${action}\` is not found.`);
  if (recorded_.headers['x-tc-version'] !== '2023-09-01') return tencentError(res, 'NoSuchVersion', 'The API version does not exist.');
  if (!String(recorded_.headers['content-type'] ?? '').startsWith('application/json')) return tencentError(res, 'InvalidParameter', 'Content-Type 须为 application/json。');
  const body = recorded_.body as Record<string, any>;
  const stream = action === 'ChatCompletions' && body?.Stream === true;
  if (await applyTimingMode(res, mode, stream)) return;
  const failure = ERROR_FOR_MODE[mode];
  if (failure) return tencentError(res, ...failure);

  if (action === 'GetEmbedding') {
    const problem = validateGetEmbedding(body);
    if (problem) return tencentError(res, problem.code, problem.message);
    const texts: string[] = body.Input !== undefined ? [body.Input] : body.InputList;
    const answer = fx.json('get-embedding.response.json');
    answer.Response.Data = texts.map((text, index) => ({ Embedding: Array.from({ length: 1024 }, (_, i) => Number(Math.sin(i + text.length).toFixed(6))), Index: index, Object: 'embedding' }));
    return sendJson(res, 200, answer);
  }
  const problem = validateChatCompletions(body);
  if (problem) return tencentError(res, problem.code, problem.message);
  const scenario = scenarioOf(body, mode);
  if (!stream) return sendJson(res, 200, JSON.parse(recorded(scenario, 'response.json', body)));
  return sendSse(res, blocksOf(recorded(scenario, 'stream.txt', body)), mode);
}

/** The OpenAI-compatible API: the key is the mode; answers are the recorded ones as OpenAI writes them. */
async function openAiApi(res: ServerResponse, recorded_: RecordedRequest): Promise<void> {
  const key = /^Bearer\s+(.+)$/i.exec(String(recorded_.headers.authorization ?? ''))?.[1];
  const mode = modeOf(key);
  if (!mode) return sendJson(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
  recorded_.key = key;
  recorded_.mode = mode;
  const body = recorded_.body as Record<string, any>;
  const stream = body?.stream === true;
  if (await applyTimingMode(res, mode, stream)) return;
  if (mode === 'fail-429') return sendJson(res, 429, { error: { message: 'Rate limit reached', type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' } });
  if (ERROR_FOR_MODE[mode]) return sendJson(res, 500, { error: { message: 'Internal error', type: 'server_error', param: null, code: null } });
  const model = String(body?.model ?? '');
  const codec = hunyuanCodec(model);
  if (recorded_.path === '/v1/embeddings') return sendJson(res, 200, codec.answer!(fx.json('get-embedding.response.json')));
  if (!Array.isArray(body?.messages) || body.messages.length === 0) return sendJson(res, 400, { error: { message: "'messages' must contain at least one message", type: 'invalid_request_error', param: 'messages', code: null } });
  const scenario = Array.isArray(body.tools) && body.tools.length && body.messages.at(-1)?.role === 'user' ? 'tools' : 'text';
  if (!stream) return sendJson(res, 200, codec.answer!(fx.json(`${scenario}.response.json`)));
  const read = codec.stream!();
  const usage = body.stream_options?.include_usage === true;
  const frames = parseSse(fx.text(`${scenario}.stream.txt`)).flatMap((event) => read({ data: JSON.stringify(event.data) }));
  const blocks = frames.filter((frame) => usage || !frame.data.includes('"usage"')).map((frame) => `data: ${frame.data}\n\n`);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (await writePaced(res, blocks, mode)) res.end('data: [DONE]\n\n');
}

export async function startMockHunyuan(): Promise<MockHandle> {
  return startMockServer(async (req, res, recorded_) => {
    if (req.method === 'POST' && recorded_.path === '/') return tencentApi(res, recorded_);
    if (req.method === 'POST' && (recorded_.path === '/v1/chat/completions' || recorded_.path === '/v1/embeddings')) return openAiApi(res, recorded_);
    sendJson(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
  });
}
