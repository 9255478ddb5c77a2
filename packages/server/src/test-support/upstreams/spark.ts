import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { modeOf, sendJson, sleep, type MockHandle, type MockMode, type RecordedRequest } from './mock-server.js';

/**
 * A local iFlytek Spark that checks what Spark checks:
 *  - WebSocket chat at each version's path (/v1.1/chat lite, /v3.1/chat generalv3, /chat/pro-128k, /v3.5/chat
 *    generalv3.5, /chat/max-32k, /v4.0/chat 4.0Ultra): the handshake's signed URL is verified by recomputing the
 *    HMAC-SHA256 over host, date and request line with the key's APISecret (a mismatch is refused with HTTP 401 before
 *    the upgrade, a date more than 300 s off with 403, as iFlytek's gateway does); the first message must carry this
 *    app's app_id and the domain of the path; the answer streams in frames, the usage in the last (status 2);
 *  - the HTTP OpenAI-compatible API, POST /v1/chat/completions with `Authorization: Bearer APIKey:APISecret`.
 * The mode is the APIKey (`sparkKey(mode)`); the app id and secret are derived from it, so a key with another secret
 * fails the signature.
 */
export interface MockSpark extends MockHandle {
  /** The same server as ws:// (the WebSocket API's base URL); `url` is its http:// (the HTTP API's). */
  wsUrl: string;
}

export interface SparkCredentials {
  appId: string;
  apiSecret: string;
  apiKey: string;
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/** The credentials of the mock's app for a mode (the APIKey carries it). */
export function sparkCredentials(mode: MockMode | `${MockMode}:${string}` = 'ok'): SparkCredentials {
  return { appId: digest(`app-${mode}`).slice(0, 8), apiSecret: Buffer.from(digest(`secret-${mode}`)).toString('base64').slice(0, 32), apiKey: mode };
}

/** A channel key `APPID|APISecret|APIKey`, optionally with another secret or app id. */
export function sparkKey(mode: MockMode | `${MockMode}:${string}` = 'ok', override: Partial<SparkCredentials> = {}): string {
  const c = { ...sparkCredentials(mode), ...override };
  return `${c.appId}|${c.apiSecret}|${c.apiKey}`;
}

const DOMAIN_OF_PATH: Record<string, string> = {
  '/v1.1/chat': 'lite',
  '/v2.1/chat': 'generalv2',
  '/v3.1/chat': 'generalv3',
  '/chat/pro-128k': 'pro-128k',
  '/v3.5/chat': 'generalv3.5',
  '/chat/max-32k': 'max-32k',
  '/v4.0/chat': '4.0Ultra',
};
const HTTP_MODELS = new Set(['lite', 'general', 'generalv3', 'pro-128k', 'generalv3.5', 'max-32k', '4.0Ultra']);

/** What the mock answers, by scenario. */
export const SPARK_TEXT = '你好！我是科大讯飞研发的认知智能大模型，我的名字叫讯飞星火认知大模型。';
export const SPARK_TEXT_USAGE = { question_tokens: 4, prompt_tokens: 9, completion_tokens: 27, total_tokens: 36 };
export const SPARK_CALL = { name: 'get_weather', arguments: '{"city":"合肥"}' };
export const SPARK_CALL_USAGE = { question_tokens: 12, prompt_tokens: 96, completion_tokens: 18, total_tokens: 114 };
export const SPARK_AFTER_TOOL = '合肥今天晴，气温 25 度。';
export const SPARK_AFTER_TOOL_USAGE = { question_tokens: 20, prompt_tokens: 130, completion_tokens: 11, total_tokens: 141 };

/** Spark's error frames for the failure modes (codes from xfyun.cn/doc/spark/接口说明.html). */
const ERROR_FOR_MODE: Partial<Record<MockMode, [number, string]>> = {
  'fail-400': [10013, 'the input content is not compliant 输入内容审核不通过，涉嫌违规，请重新调整输入内容'],
  'fail-401': [11200, 'AppIdNoAuthError:(11200)授权错误：该appId没有相关功能的授权 或者 业务量超过限制'],
  'fail-403': [10016, 'appid授权类的错误：未开通此功能'],
  'fail-429': [11202, 'AppIdQpsOverFlowError:(11202)授权错误：秒级流控超限。秒级并发超过授权路数限制'],
  'fail-500': [10012, 'EngineInternalError:引擎内部错误'],
  'fail-503': [10110, '服务忙，请稍后再试'],
};

function verifySignature(req: IncomingMessage, url: URL): { status: number; message: string } | { apiKey: string } {
  const authorization = url.searchParams.get('authorization');
  const date = url.searchParams.get('date');
  const host = url.searchParams.get('host');
  if (!authorization || !date || !host) return { status: 401, message: 'HMAC signature cannot be verified, a validate authorization header is required' };
  const fields = Object.fromEntries([...Buffer.from(authorization, 'base64').toString('utf8').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  if (fields.algorithm !== 'hmac-sha256' || fields.headers !== 'host date request-line' || !fields.api_key || !fields.signature) return { status: 403, message: 'HMAC authorization headers is invalidate' };
  const when = Date.parse(date);
  if (!Number.isFinite(when) || Math.abs(Date.now() - when) > 300_000 || !/ GMT$/.test(date)) {
    return { status: 403, message: 'HMAC signature cannot be verified, a valid date or x-date header is required for HMAC Authentication' };
  }
  if (host !== req.headers.host) return { status: 401, message: 'HMAC signature does not match' };
  const secret = sparkCredentials(fields.api_key as MockMode).apiSecret;
  const expected = createHmac('sha256', secret).update(`host: ${host}\ndate: ${date}\nGET ${url.pathname} HTTP/1.1`).digest();
  const given = Buffer.from(fields.signature, 'base64');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { status: 401, message: 'HMAC signature does not match' };
  return { apiKey: fields.api_key };
}

/** What Spark refuses in a request frame (Web.html §3.2), or null. `expect` pins the app id and the domain. */
export function validateSparkFrame(frame: unknown, expect: { appId?: string; domain?: string } = {}): string | null {
  const f = frame as { header?: Record<string, unknown>; parameter?: { chat?: Record<string, unknown> }; payload?: { message?: { text?: unknown }; functions?: { text?: unknown } } };
  if (!f || typeof f !== 'object') return 'frame is not a JSON object';
  const appId = f.header?.app_id;
  if (typeof appId !== 'string' || appId.length === 0 || appId.length > 8) return 'header.app_id must be a string of at most 8 characters';
  if (expect.appId !== undefined && appId !== expect.appId) return `app_id ${appId} does not belong to this APIKey`;
  if (f.header?.uid !== undefined && (typeof f.header.uid !== 'string' || f.header.uid.length > 32)) return 'header.uid must be a string of at most 32 characters';
  const chat = f.parameter?.chat;
  if (!chat || typeof chat.domain !== 'string') return 'parameter.chat.domain is required';
  if (expect.domain !== undefined && chat.domain !== expect.domain) return `domain ${chat.domain} is not served at this path (expected ${expect.domain})`;
  if (chat.temperature !== undefined && (typeof chat.temperature !== 'number' || chat.temperature <= 0 || chat.temperature > 1)) return 'parameter.chat.temperature must be in (0, 1]';
  if (chat.max_tokens !== undefined && (!Number.isInteger(chat.max_tokens) || (chat.max_tokens as number) < 1 || (chat.max_tokens as number) > 32768)) return 'parameter.chat.max_tokens out of range';
  if (chat.top_k !== undefined && (!Number.isInteger(chat.top_k) || (chat.top_k as number) < 1 || (chat.top_k as number) > 6)) return 'parameter.chat.top_k must be 1..6';
  const text = f.payload?.message?.text;
  if (!Array.isArray(text) || text.length === 0) return 'payload.message.text must be a non-empty array';
  for (const [i, item] of text.entries()) {
    const entry = item as { role?: unknown; content?: unknown };
    if (entry.role !== 'system' && entry.role !== 'user' && entry.role !== 'assistant') return `payload.message.text[${i}].role must be system, user or assistant`;
    if (entry.role === 'system' && i !== 0) return 'a system message must come first';
    if (typeof entry.content !== 'string' || entry.content.length === 0) return `payload.message.text[${i}].content must be a non-empty string`;
  }
  if ((text.at(-1) as { role: string }).role !== 'user') return 'the last message must be the user\'s';
  if (f.payload?.functions !== undefined) {
    const fns = f.payload.functions.text;
    if (!Array.isArray(fns) || fns.some((fn) => typeof (fn as { name?: unknown }).name !== 'string' || typeof (fn as { parameters?: unknown }).parameters !== 'object')) return 'payload.functions.text must list {name, description, parameters}';
  }
  return null;
}

type Scenario = 'text' | 'tool' | 'after-tool';

function scenarioOf(frame: { payload?: { message?: { text?: Array<{ content: string }> }; functions?: unknown } }, mode: MockMode | undefined): Scenario {
  const last = frame.payload?.message?.text?.at(-1)?.content ?? '';
  if (last.startsWith('函数 ')) return 'after-tool';
  if (mode === 'tool' || frame.payload?.functions) return 'tool';
  return 'text';
}

/** The answer frames of a scenario: text in pieces, then the last frame (status 2) with the usage. */
function answerFrames(scenario: Scenario, sid: string): Array<Record<string, unknown>> {
  const header = (status: number) => ({ code: 0, message: 'Success', sid, status });
  const frame = (status: number, seq: number, text: Record<string, unknown>, usage?: Record<string, number>) => ({
    header: header(status),
    payload: { choices: { status, seq, text: [{ role: 'assistant', index: 0, ...text }] }, ...(usage ? { usage: { text: usage } } : {}) },
  });
  if (scenario === 'tool') {
    return [frame(0, 0, { content: '', content_type: 'text', function_call: SPARK_CALL }), frame(2, 1, { content: '' }, SPARK_CALL_USAGE)];
  }
  const [text, usage] = scenario === 'after-tool' ? [SPARK_AFTER_TOOL, SPARK_AFTER_TOOL_USAGE] : [SPARK_TEXT, SPARK_TEXT_USAGE];
  const pieces = text.match(/.{1,6}/gsu) ?? [text];
  return pieces.map((piece, i) => frame(i === 0 ? 0 : i === pieces.length - 1 ? 2 : 1, i, { content: piece }, i === pieces.length - 1 ? usage : undefined));
}

function refuse(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ message });
  socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Not Found'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

async function answerSocket(ws: WebSocket, recorded: RecordedRequest, domain: string): Promise<void> {
  const message = await new Promise<Buffer | undefined>((resolve) => {
    ws.once('message', (data: Buffer) => resolve(data));
    ws.once('close', () => resolve(undefined));
  });
  if (!message) return;
  recorded.rawBody = message;
  let frame: unknown;
  try {
    frame = JSON.parse(message.toString('utf8'));
  } catch {
    frame = undefined;
  }
  recorded.body = frame;
  const sid = `cht000b${digest(String(Date.now() + Math.random())).slice(0, 12)}@dx${Date.now().toString(16)}`;
  const send = (data: unknown) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(data));
  const fail = (code: number, text: string) => {
    send({ header: { code, message: text, sid, status: 2 } });
    ws.close(1000);
  };
  const mode = recorded.mode;
  const problem = frame === undefined ? 'the message is not JSON' : validateSparkFrame(frame, { appId: sparkCredentials((recorded.key ?? 'ok') as MockMode).appId, domain });
  if (problem) return fail(problem.startsWith('app_id') ? 11200 : 10163, problem);
  if (mode === 'slow') return;
  if (mode === 'lag') await sleep(300);
  const error = mode ? ERROR_FOR_MODE[mode] : undefined;
  if (error) return fail(...error);
  const frames = answerFrames(scenarioOf(frame as never, mode), sid);
  const cut = mode === 'break' || mode === 'stream-error' ? Math.max(1, Math.floor(frames.length / 2)) : frames.length;
  for (let i = 0; i < cut; i++) {
    if (ws.readyState !== ws.OPEN) return;
    send(frames[i]);
    if (mode === 'slow-stream' && i < cut - 1) await sleep(60);
  }
  if (mode === 'break') {
    await sleep(30);
    ws.terminate(); // no close frame: the connection just drops
    return;
  }
  if (mode === 'stream-error') return fail(10014, 'output content is not compliant 输出内容涉及敏感信息，审核不通过，后续结果无法展示给用户');
  // Spark closes the connection once the answer is complete (接口说明: 短链接模式).
  ws.close(1000);
}

/** The HTTP OpenAI-compatible API: the bearer checked, the domain as the model, OpenAI's shapes plus Spark's code. */
async function answerHttp(req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest): Promise<void> {
  if (req.method !== 'POST' || recorded.path !== '/v1/chat/completions') return sendJson(res, 404, { error: { message: 'not found', type: 'api_error', param: null, code: null } });
  const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
  const [apiKey, apiSecret] = bearer.split(':');
  if (!apiKey || apiSecret !== sparkCredentials(apiKey as MockMode).apiSecret) {
    return sendJson(res, 401, { error: { message: 'HMAC signature does not match, invalid user', type: 'api_error', param: null, code: null } });
  }
  recorded.key = apiKey;
  recorded.mode = modeOf(apiKey);
  const body = recorded.body as { model?: string; stream?: boolean; messages?: unknown };
  if (!body || typeof body.model !== 'string' || !HTTP_MODELS.has(body.model) || !Array.isArray(body.messages)) {
    return sendJson(res, 200, { code: 10005, message: 'invalid model or messages', sid: 'cha000b0001@dx0' });
  }
  const sid = `cha000b${digest(String(Date.now())).slice(0, 10)}`;
  const error = recorded.mode ? ERROR_FOR_MODE[recorded.mode] : undefined;
  if (error) return sendJson(res, 200, { code: error[0], message: error[1], sid });
  const usage = { prompt_tokens: SPARK_TEXT_USAGE.prompt_tokens, completion_tokens: SPARK_TEXT_USAGE.completion_tokens, total_tokens: SPARK_TEXT_USAGE.total_tokens };
  if (!body.stream) return sendJson(res, 200, { code: 0, message: 'Success', sid, choices: [{ message: { role: 'assistant', content: SPARK_TEXT }, index: 0 }], usage });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const pieces = SPARK_TEXT.match(/.{1,6}/gsu) ?? [SPARK_TEXT];
  for (const [i, piece] of pieces.entries()) {
    const last = i === pieces.length - 1;
    res.write(`data:${JSON.stringify({ code: 0, message: 'Success', sid, id: sid, created: 1719546385, choices: [{ delta: { role: 'assistant', content: piece }, index: 0 }], ...(last ? { usage } : {}) })}\n\n`);
  }
  res.end('data:[DONE]\n\n');
}

export async function startMockSpark(): Promise<MockSpark> {
  const requests: RecordedRequest[] = [];
  const record = (req: IncomingMessage, url: URL): RecordedRequest => {
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body: undefined, rawBody: Buffer.alloc(0) };
    requests.push(recorded);
    return recorded;
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded = record(req, new URL(req.url ?? '/', 'http://mock'));
    recorded.rawBody = Buffer.concat(chunks);
    try {
      recorded.body = JSON.parse(recorded.rawBody.toString('utf8'));
    } catch {
      recorded.body = recorded.rawBody.toString('utf8');
    }
    await answerHttp(req, res, recorded);
  });
  const sockets = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const recorded = record(req, url);
    const domain = DOMAIN_OF_PATH[url.pathname];
    if (!domain) return refuse(socket, 404, 'Not Found');
    const verdict = verifySignature(req, url);
    if ('status' in verdict) return refuse(socket, verdict.status, verdict.message);
    recorded.key = verdict.apiKey;
    recorded.mode = modeOf(verdict.apiKey);
    sockets.handleUpgrade(req, socket, head, (ws) => {
      let complete = false;
      ws.on('close', () => {
        if (!complete) recorded.aborted = true;
      });
      void answerSocket(ws, recorded, domain).then(() => {
        complete = recorded.mode !== 'slow';
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const client of sockets.clients) client.terminate();
        sockets.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
