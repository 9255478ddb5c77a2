import type { ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { fixtures } from './fixtures.js';
import { applyTimingMode, modeOf, sendJson, startMockServer, type MockHandle, type MockMode } from './mock-server.js';

/**
 * A local DashScope native text-rerank API (https://help.aliyun.com/zh/model-studio/text-rerank-api), answering from
 * providers/dashscope/__fixtures__. It checks what DashScope checks: `Authorization: Bearer <API key>`, a rerank
 * model, `input.query` a non-empty string, `input.documents` 1..500 strings, `parameters.top_n` a positive integer,
 * no fields outside {model, input, parameters}. The fixture's request gets the fixture's answer; another gets scores
 * from shared characters and `usage.total_tokens` by DashScope's formula (query tokens x documents + document
 * tokens), a token being a CJK character or a run of letters/digits. The key is a mock mode (mock-server.ts).
 */
const fx = fixtures('dashscope');
export const DASHSCOPE_RERANK_MODELS = ['gte-rerank-v2', 'gte-rerank', 'qwen3-rerank'];
const MAX_DOCUMENTS = 500;

const ERROR_FOR_MODE: Partial<Record<MockMode, string>> = { 'fail-401': 'invalid_key', 'fail-403': 'invalid_key', 'fail-400': 'bad_parameter', 'fail-429': 'throttled' };

/** Tokens as the mock counts them: one per CJK character, one per run of letters or digits. */
export const rerankTokens = (text: string) => (text.match(/[\u3400-\u9fff]|[A-Za-z0-9]+/g) ?? []).length;

function sendError(res: ServerResponse, name: string, message?: string): void {
  const error = fx.json('errors.json')[name];
  sendJson(res, error.status, message ? { ...error.body, message } : error.body);
}

/** What DashScope says of a rerank body, or null when it takes it. */
export function dashScopeRerankProblem(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'Request body is not valid JSON';
  const { model, input, parameters, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `Unrecognized field: ${Object.keys(rest)[0]}`;
  if (typeof model !== 'string' || !DASHSCOPE_RERANK_MODELS.includes(model)) return `Model not exist: ${String(model)}`;
  if (typeof input !== 'object' || input === null) return 'Field required: input';
  const { query, documents } = input as Record<string, unknown>;
  if (typeof query !== 'string' || !query) return 'Field required: input.query';
  if (!Array.isArray(documents) || documents.length === 0 || documents.some((d) => typeof d !== 'string')) return 'Input should be a valid list: input.documents';
  if (documents.length > MAX_DOCUMENTS) return `Too many documents: at most ${MAX_DOCUMENTS}`;
  if (parameters !== undefined) {
    if (typeof parameters !== 'object' || parameters === null) return 'Input should be a valid dictionary: parameters';
    const { top_n: top, return_documents: back } = parameters as Record<string, unknown>;
    if (top !== undefined && (!Number.isInteger(top) || (top as number) < 1)) return 'Input should be greater than 0: parameters.top_n';
    if (back !== undefined && typeof back !== 'boolean') return 'Input should be a valid boolean: parameters.return_documents';
  }
  return null;
}

function answer(body: Record<string, unknown>): Record<string, unknown> {
  const recorded = fx.json('rerank.upstream.json');
  if (JSON.stringify(body) === JSON.stringify(recorded)) return fx.json('rerank.response.json');
  const { query, documents } = body.input as { query: string; documents: string[] };
  const parameters = (body.parameters ?? {}) as { top_n?: number; return_documents?: boolean };
  const chars = new Set(query);
  const results = documents
    .map((text, index) => ({ index, text, relevance_score: Math.round(([...text].filter((c) => chars.has(c)).length / Math.max(1, [...text].length) + 0.001 * (documents.length - index)) * 10_000) / 10_000 }))
    .sort((a, b) => b.relevance_score - a.relevance_score)
    .slice(0, parameters.top_n ?? documents.length)
    .map(({ index, text, relevance_score }) => (parameters.return_documents ? { document: { text }, index, relevance_score } : { index, relevance_score }));
  const total = rerankTokens(query) * documents.length + documents.reduce((sum, doc) => sum + rerankTokens(doc), 0);
  return { output: { results }, usage: { total_tokens: total }, request_id: randomUUID() };
}

export async function startMockDashScope(): Promise<MockHandle> {
  return startMockServer(async (req, res, recorded) => {
    if (req.method !== 'POST' || recorded.path !== '/api/v1/services/rerank/text-rerank/text-rerank') return sendJson(res, 404, { code: 'NotFound', message: 'Not Found', request_id: randomUUID() });
    const key = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''))?.[1];
    recorded.key = key;
    const mode = modeOf(key);
    recorded.mode = mode;
    if (!mode) return sendError(res, 'invalid_key');
    if (await applyTimingMode(res, mode, false)) return;
    const failure = ERROR_FOR_MODE[mode];
    if (failure) return sendError(res, failure);
    if (mode === 'fail-500' || mode === 'fail-503') return sendJson(res, mode === 'fail-500' ? 500 : 503, { code: 'InternalError', message: 'An internal error has occured, please try again later.', request_id: randomUUID() });
    const problem = dashScopeRerankProblem(recorded.body);
    if (problem) return sendError(res, 'bad_parameter', problem);
    sendJson(res, 200, answer(recorded.body as Record<string, unknown>));
  });
}
