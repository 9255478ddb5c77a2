import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { validateCohereChat, validateCohereEmbed, validateCohereRerank } from './cohere-validate.js';
import { fixtures } from './fixtures.js';
import { applyTimingMode, firstHalf, modeOf, sendJson, startMockServer, writePaced, type MockHandle, type MockMode } from './mock-server.js';

/**
 * A local Cohere API v2 (https://docs.cohere.com/reference/about) answering with providers/cohere/__fixtures__:
 *   POST /v2/chat     JSON, or an SSE stream of Cohere's typed events when `stream: true`
 *   POST /v2/embed    embeddings by type, billed input tokens in meta
 *   POST /v2/rerank   results by relevance, billed search units in meta
 *   GET  /v1/models   the models the key can use (https://docs.cohere.com/reference/list-models), COHERE_MODELS
 * It checks what Cohere checks (cohere-validate.ts): `Authorization: Bearer <key>` (the key carries the mock mode;
 * no key is "no api key supplied", a key that names no mode is "invalid api token"), the v2 paths and bodies. Errors
 * are Cohere's `{id, message}`.
 */
export type MockCohere = MockHandle;

const fx = fixtures('cohere');

/** What GET /v1/models lists. */
export const COHERE_MODELS = ['command-a-03-2025', 'command-r-08-2024', 'embed-v4.0', 'rerank-v3.5'];
const ENDPOINTS_OF = (name: string) => (name.startsWith('embed') ? ['embed'] : name.startsWith('rerank') ? ['rerank'] : ['chat']);
const ERROR_FOR_MODE: Partial<Record<MockMode, string>> = {
  'fail-400': 'bad_request',
  'fail-401': 'invalid_api_token',
  'fail-429': 'rate_limited',
  'fail-500': 'internal',
  'fail-503': 'unavailable',
  'overloaded-529': 'unavailable',
};

function sendError(res: ServerResponse, name: string, message?: string): void {
  const error = fx.json('errors.json')[name];
  sendJson(res, error.status, message ? { id: randomUUID(), message } : error.body);
}
const badRequest = (res: ServerResponse, message: string) => sendJson(res, 400, { id: randomUUID(), message });

/** The recorded exchange a chat body asks for: the answer to a tool result, a tool call, or plain text. */
function chatScenario(body: Record<string, unknown>, mode: MockMode): 'text' | 'tools' | 'tool-result' {
  const messages = body.messages as Array<Record<string, unknown>>;
  if (messages.at(-1)?.role === 'tool') return 'tool-result';
  const tools = Array.isArray(body.tools) && body.tools.length > 0 && body.tool_choice !== 'NONE';
  return tools && (mode === 'ok' || mode === 'tool') ? 'tools' : 'text';
}

async function chat(res: ServerResponse, body: Record<string, unknown>, mode: MockMode): Promise<void> {
  const problem = validateCohereChat(body);
  if (problem) return badRequest(res, problem);
  const scenario = chatScenario(body, mode);
  if (mode === 'tool' && scenario !== 'tools') return badRequest(res, 'invalid request: tool_choice REQUIRED requires tools');
  if (body.stream !== true) return sendJson(res, 200, fx.json(`${scenario}.response.json`));
  const events = fx
    .text(`${scenario}.stream.txt`)
    .split('\n\n')
    .filter((e) => e.trim())
    .map((e) => `${e}\n\n`);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (mode === 'stream-error') {
    await writePaced(res, firstHalf(events), 'ok');
    const { frame } = fx.json('errors.json').stream_error_event;
    res.end(`event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`);
    return;
  }
  if (await writePaced(res, events, mode)) res.end();
}

/** A stable small vector per text (Cohere's are 256 to 1536 floats; the count follows output_dimension). */
function vector(text: string, dimensions: number): number[] {
  let hash = 0;
  for (const ch of text) hash = (hash * 31 + ch.codePointAt(0)!) >>> 0;
  return Array.from({ length: dimensions }, (_, j) => Math.round((((hash + j * 7919) % 2000) - 1000) / 10) / 1000);
}

/** Billed input tokens of a text: its words plus one (a stand-in for Cohere's tokenizer, stable for the tests). */
export const embedTokens = (texts: string[]) => texts.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length + 1, 0);

function embed(res: ServerResponse, body: Record<string, unknown>): void {
  const problem = validateCohereEmbed(body);
  if (problem) return badRequest(res, problem);
  const texts = body.texts as string[];
  const floats = texts.map((t) => vector(t, typeof body.output_dimension === 'number' ? body.output_dimension : 4));
  const embeddings: Record<string, unknown> = {};
  for (const type of body.embedding_types as string[]) {
    if (type === 'float') embeddings.float = floats;
    else if (type === 'base64') embeddings.base64 = floats.map((v) => Buffer.from(new Float32Array(v).buffer).toString('base64'));
    else embeddings[type] = floats.map((v) => v.map((x) => Math.round(x * 127)));
  }
  sendJson(res, 200, { id: randomUUID(), embeddings, texts: texts.map((t) => t.toLowerCase()), meta: { api_version: { version: '2' }, billed_units: { input_tokens: embedTokens(texts) } }, response_type: 'embeddings_by_type' });
}

/** One search unit per query and up to 100 documents. */
export const searchUnits = (documents: number) => Math.max(1, Math.ceil(documents / 100));

function rerank(res: ServerResponse, body: Record<string, unknown>): void {
  const problem = validateCohereRerank(body);
  if (problem) return badRequest(res, problem);
  const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  const query = words(body.query as string);
  const documents = body.documents as string[];
  const results = documents
    .map((doc, index) => {
      const shared = [...words(doc)].filter((w) => query.has(w)).length;
      return { index, relevance_score: Math.round((shared / Math.max(1, query.size) + 0.001 * (documents.length - index)) * 10_000) / 10_000 };
    })
    .sort((a, b) => b.relevance_score - a.relevance_score)
    .slice(0, typeof body.top_n === 'number' ? body.top_n : documents.length);
  sendJson(res, 200, { id: randomUUID(), results, meta: { api_version: { version: '2' }, billed_units: { search_units: searchUnits(documents.length) } } });
}

export async function startMockCohere(): Promise<MockCohere> {
  return startMockServer(async (req, res, recorded) => {
    const auth = String(req.headers.authorization ?? '');
    const key = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
    recorded.key = key;
    const mode = modeOf(key);
    recorded.mode = mode;
    const list = req.method === 'GET' && recorded.path === '/v1/models';
    const route = req.method === 'POST' ? { '/v2/chat': 'chat', '/v2/embed': 'embed', '/v2/rerank': 'rerank' }[recorded.path] : undefined;
    if (!route && !list) return sendJson(res, 404, { id: randomUUID(), message: '404 page not found' });
    if (!key) return sendError(res, 'no_api_key');
    if (!mode) return sendError(res, 'invalid_api_token');
    if (list) {
      const failure = ERROR_FOR_MODE[mode];
      if (failure) return sendError(res, failure);
      return sendJson(res, 200, { models: COHERE_MODELS.map((name) => ({ name, endpoints: ENDPOINTS_OF(name), finetuned: false, context_length: 128_000 })), next_page_token: '' });
    }
    const body = recorded.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return badRequest(res, 'invalid json syntax');
    const stream = route === 'chat' && (body as Record<string, unknown>).stream === true;
    if (await applyTimingMode(res, mode, stream)) return;
    const failure = ERROR_FOR_MODE[mode];
    if (failure) return sendError(res, failure);
    if (route === 'chat') return chat(res, body as Record<string, unknown>, mode);
    if (route === 'embed') return embed(res, body as Record<string, unknown>);
    return rerank(res, body as Record<string, unknown>);
  });
}
