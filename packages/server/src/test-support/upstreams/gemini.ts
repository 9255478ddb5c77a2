import type { ServerResponse } from 'node:http';
import { fixtures } from './fixtures.js';
import { GEMINI_MODELS, geminiCaches, geminiCountTokens, geminiReply, geminiSignatures, sendGeminiReply } from './gemini-replies.js';
import { normalizeProtoJson, validateGenerateContent, type GoogleProblem } from './gemini-validate.js';
import { applyTimingMode, modeOf, sendJson, startMockServer, type MockHandle, type MockMode } from './mock-server.js';

/**
 * A local Gemini API (generativelanguage, https://ai.google.dev/api) that checks what the real one checks and
 * answers with the payloads in providers/gemini/__fixtures__.
 *
 * Auth: `x-goog-api-key: <mode>` or `?key=<mode>`; no key is 403 PERMISSION_DENIED and a key that is no mode name
 * is 400 API_KEY_INVALID, as the API answers. Routes: GET /v1beta/models, GET /v1beta/models/{model},
 * POST /v1beta/models/{model}:generateContent | :streamGenerateContent (`alt=sse` for SSE, a JSON array streamed
 * piece by piece without it) | :countTokens | :batchEmbedContents (v1 works the same).
 */
export type MockGemini = MockHandle;

const fx = fixtures('gemini');
const ERROR_FOR_MODE: Partial<Record<MockMode, string>> = {
  'fail-400': 'invalid_argument',
  'fail-401': 'api_key_invalid',
  'fail-403': 'permission_denied',
  'fail-408': 'deadline_exceeded',
  'fail-429': 'resource_exhausted',
  'fail-500': 'internal',
  'fail-503': 'unavailable',
  'overloaded-529': 'unavailable',
};
const ROUTE = /^\/(v1beta|v1|v1alpha)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens|batchEmbedContents)$/;

export function sendGoogleProblem(res: ServerResponse, problem: GoogleProblem): void {
  sendJson(res, problem.code, { error: { code: problem.code, message: problem.message, status: problem.status } });
}

function sendRecorded(res: ServerResponse, name: string): void {
  const error = fx.json('errors.json')[name];
  sendJson(res, error.status, error.body);
}

export async function startMockGemini(): Promise<MockGemini> {
  const signatures = geminiSignatures(fx);
  const cachedContents = geminiCaches(fx);
  return startMockServer(async (req, res, recorded) => {
    const header = req.headers['x-goog-api-key'];
    const key = typeof header === 'string' && header ? header : recorded.query.key;
    recorded.key = key;
    if (!key) return sendRecorded(res, 'permission_denied');
    const mode = modeOf(key);
    recorded.mode = mode;
    if (!mode) return sendRecorded(res, 'api_key_invalid');

    const list = /^\/(v1beta|v1|v1alpha)\/models\/?$/.exec(recorded.path);
    if (req.method === 'GET' && list) return sendJson(res, 200, GEMINI_MODELS);
    const one = /^\/(v1beta|v1|v1alpha)\/models\/([^/:]+)$/.exec(recorded.path);
    if (req.method === 'GET' && one) {
      const model = GEMINI_MODELS.models.find((m: any) => m.name === `models/${one[2]}`);
      return model ? sendJson(res, 200, model) : sendGoogleProblem(res, { code: 404, status: 'NOT_FOUND', message: `models/${one[2]} is not found for API version ${one[1]}, or is not supported for get.` });
    }
    const route = ROUTE.exec(decodeURIComponent(recorded.path));
    if (req.method !== 'POST' || !route) return sendGoogleProblem(res, { code: 404, status: 'NOT_FOUND', message: `Method not found: ${req.method} ${recorded.path}` });
    const [, version, model, method] = route;

    const stream = method === 'streamGenerateContent';
    if (await applyTimingMode(res, mode, stream)) return;
    const failure = ERROR_FOR_MODE[mode];
    if (failure) return sendRecorded(res, failure);
    if (method === 'batchEmbedContents') return sendEmbeddings(res, model, version, recorded.body);
    if (!/^(gemini|gemma)-/.test(model)) {
      return sendGoogleProblem(res, { code: 404, status: 'NOT_FOUND', message: `models/${model} is not found for API version ${version}, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.` });
    }

    const rules = { platform: 'gemini' as const, model, signatures, cachedContents };
    if (method === 'countTokens') {
      const body = normalizeProtoJson(recorded.body) as Record<string, any> | undefined;
      for (const key of Object.keys(body ?? {})) if (key !== 'contents' && key !== 'generateContentRequest') return sendGoogleProblem(res, { code: 400, status: 'INVALID_ARGUMENT', message: `Invalid JSON payload received. Unknown name "${key}": Cannot find field.` });
      if (body?.contents && body.generateContentRequest) return sendGoogleProblem(res, { code: 400, status: 'INVALID_ARGUMENT', message: '* CountTokensRequest: contents and generate_content_request must not both be set.\n' });
      const inner = body?.generateContentRequest ?? { contents: body?.contents };
      const problem = validateGenerateContent(inner, rules);
      return problem ? sendGoogleProblem(res, problem) : sendJson(res, 200, geminiCountTokens(fx, inner, 'gemini'));
    }
    const problem = validateGenerateContent(recorded.body, rules);
    if (problem) return sendGoogleProblem(res, problem);
    const reply = geminiReply(fx, recorded.body as Record<string, any>, mode, model);
    await sendGeminiReply(res, reply, { stream, sse: recorded.query.alt === 'sse', mode, streamError: fx.json('errors.json').unavailable.body });
  });
}

/** The embedding models the mock serves, with their default output size (ai.google.dev/gemini-api/docs/embeddings). */
const EMBEDDING_MODELS: Record<string, number> = { 'gemini-embedding-001': 3072, 'text-embedding-004': 768 };
/** Gemini's embedding task types (https://ai.google.dev/api/embeddings#tasktype). */
const TASK_TYPES = new Set(['TASK_TYPE_UNSPECIFIED', 'RETRIEVAL_QUERY', 'RETRIEVAL_DOCUMENT', 'SEMANTIC_SIMILARITY', 'CLASSIFICATION', 'CLUSTERING', 'QUESTION_ANSWERING', 'FACT_VERIFICATION', 'CODE_RETRIEVAL_QUERY']);
/** Requests one batchEmbedContents call may carry. */
const MAX_BATCH = 100;

/**
 * batchEmbedContents (https://ai.google.dev/api/embeddings#method:-models.batchembedcontents): `{requests: [{model,
 * content: {parts: [{text}]}, taskType?, title?, outputDimensionality?}]}`, each request naming the model of the URL,
 * answered `{embeddings: [{values}]}` in order, without usage (the Gemini API reports none for embeddings). The
 * values are made from the text, so a test can tell the vectors apart.
 */
function sendEmbeddings(res: ServerResponse, model: string, version: string, body: unknown): void {
  const size = EMBEDDING_MODELS[model];
  if (!size) return sendGoogleProblem(res, { code: 404, status: 'NOT_FOUND', message: `models/${model} is not found for API version ${version}, or is not supported for batchEmbedContents. Call ListModels to see the list of available models and their supported methods.` });
  const invalid = (message: string) => sendGoogleProblem(res, { code: 400, status: 'INVALID_ARGUMENT', message });
  const json = (body ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(json)) if (key !== 'requests') return invalid(`Invalid JSON payload received. Unknown name "${key}": Cannot find field.`);
  const requests = json.requests;
  if (!Array.isArray(requests) || requests.length === 0) return invalid('* BatchEmbedContentsRequest.requests: requests must not be empty.\n');
  if (requests.length > MAX_BATCH) return invalid(`* BatchEmbedContentsRequest.requests: at most ${MAX_BATCH} requests can be in one batch.\n`);
  const embeddings = [];
  for (const [i, request] of requests.entries()) {
    const r = (request ?? {}) as { model?: unknown; content?: { parts?: Array<{ text?: unknown }> }; outputDimensionality?: unknown; taskType?: unknown };
    if (r.taskType !== undefined && !TASK_TYPES.has(String(r.taskType))) return invalid(`Invalid value at 'requests[${i}].task_type' (type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), "${String(r.taskType)}"`);
    if (r.model !== `models/${model}`) return invalid(`* BatchEmbedContentsRequest.requests[${i}].model: model must be the same as the batch model (models/${model}).\n`);
    const texts = Array.isArray(r.content?.parts) ? r.content.parts.map((p) => p?.text) : [];
    if (texts.length === 0 || !texts.every((t) => typeof t === 'string' && t.length > 0)) return invalid(`* BatchEmbedContentsRequest.requests[${i}].content: contains an empty Part.\n`);
    const dimensions = r.outputDimensionality ?? size;
    if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > size) return invalid(`* BatchEmbedContentsRequest.requests[${i}].output_dimensionality: must be between 1 and ${size}.\n`);
    const text = texts.join(' ');
    embeddings.push({ values: Array.from({ length: dimensions }, (_, d) => Math.round(((((text.length + 1) * (d + 1)) % 997) / 997 - 0.5) * 1e6) / 1e6) });
  }
  sendJson(res, 200, { embeddings });
}
