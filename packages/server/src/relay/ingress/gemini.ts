import { geminiModelParams, geminiQuery } from '@model-relay/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '../../http/typed-routes.js';
import { outputLimitOf } from '../../billing/model-limits.js';
import { geminiDialect } from '../dialects/gemini/index.js';
import { authenticateKey } from '../pipeline/authenticate-key.js';
import { handleRelay, release, type IncomingCall, type RelayDeps } from '../pipeline/handle-relay.js';
import type { RelayRequest } from '../pipeline/types.js';
import { RelayError } from '../relay-error.js';
import type { DirectRelay, PrefixRequest, RelayHandler } from './direct.js';
import { readJsonBody } from './large-json.js';
import { EMBED_METHODS, geminiEmbedCall } from './gemini-embeddings.js';

/** A Gemini post: the path after models/ is `{model}:{method}`. */
type GeminiRequest = PrefixRequest;

/** The models a request's key may use (shared with OpenAI's /v1/models). */
export type KeyModels = (deps: RelayDeps, request: FastifyRequest) => Promise<string[]>;

const METHODS = ['generateContent', 'countTokens'];

/**
 * The Gemini API's endpoints for Gemini CLI and the @google/genai SDKs (https://ai.google.dev/api):
 *   GET  /v1beta/models, /v1beta/models/{model}
 *   POST /v1beta/models/{model}:generateContent | :streamGenerateContent (SSE with `alt=sse`, else one JSON array)
 *   POST /v1beta/models/{model}:countTokens (counted here, like Anthropic's count_tokens)
 *   POST /v1beta/models/{model}:embedContent | :batchEmbedContents (served as OpenAI's embeddings: gemini-embeddings.ts)
 * The same under /v1 (the stable API version, which @google/genai 3 calls by default): the posts here, the model
 * list and lookup in model-list.ts, where GET /v1/models answers each client in its own shape.
 * Chat goes to any channel: passed through to Gemini and Vertex Gemini channels, translated for the others. The
 * key comes in `x-goog-api-key` or `?key=` (with or without `sk-`). The colon of `{model}:method` is not fastify
 * route syntax, so the path after models/ is one wildcard, split here.
 */
export function geminiIngress(server: FastifyInstance, deps: RelayDeps, keyModels: KeyModels, direct: DirectRelay): void {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const schema = { params: geminiModelParams, querystring: geminiQuery };
  app.get('/v1beta/models', async (request) => ({ models: (await keyModels(deps, request)).map(toGeminiModel) }));

  app.get('/v1beta/models/*', { schema }, async (request) => {
    const model = modelName(request.params['*']);
    if (!(await keyModels(deps, request)).includes(model)) throw new RelayError(404, `模型 models/${model.slice(0, 200)} 不存在`, 'invalid_request_error', 'model_not_found');
    return toGeminiModel(model);
  });

  // generateContent, streamGenerateContent and countTokens, served by fastify and by the direct relay alike.
  const post: RelayHandler<GeminiRequest> = async (request, reply) => {
    const path = request.params['*'];
    const colon = path.lastIndexOf(':');
    const model = modelName(colon < 0 ? path : path.slice(0, colon));
    const method = colon < 0 ? '' : path.slice(colon + 1);
    if (method === 'generateContent' || method === 'streamGenerateContent') return handleRelay(deps, await readCall(deps, request, model, method === 'streamGenerateContent', (request.query as { alt?: unknown }).alt === 'sse'), request, reply);
    if (EMBED_METHODS.includes(method)) return handleRelay(deps, await geminiEmbedCall(deps, request.body, model, method), request, reply);
    if (method === 'countTokens') {
      await authenticateKey(deps.store, request);
      // Either {contents} or a whole {generateContentRequest}; both count what the model would read.
      const read = await readJsonBody(deps.bodies, request.body, { dialect: 'gemini', endpoint: 'chat', model, countTokens: true });
      try {
        const [totalTokens] = await deps.counter.count([await read.facts.promptText()]);
        return { totalTokens };
      } finally {
        release(deps, read);
      }
    }
    throw new RelayError(404, `不支持的方法：${method.slice(0, 60) || '（空）'}，可用的有 ${[...METHODS, 'streamGenerateContent', ...EMBED_METHODS].join('、')}`, 'invalid_request_error', 'method_not_found');
  };
  for (const version of ['v1beta', 'v1']) {
    app.post(`/${version}/models/*`, { schema }, post);
    direct.postUnder(`/${version}/models/`, geminiDialect, post);
  }
}

/** "models/x" and "x" name the same model (some clients repeat the collection). */
const modelName = (text: string) => text.replace(/^models\//, '');

async function readCall(deps: RelayDeps, request: RelayRequest, model: string, stream: boolean, sse: boolean): Promise<IncomingCall> {
  const { body, facts, problem } = await readJsonBody(deps.bodies, request.body, { dialect: 'gemini', endpoint: 'chat', model, stream });
  return { dialect: geminiDialect, endpoint: 'chat', body, facts, problem, path: request.url.split('?')[0], jsonArrayStream: stream && !sse };
}

/** A model in the shape of the Gemini API's models.list. */
export function toGeminiModel(id: string) {
  return {
    name: `models/${id}`,
    baseModelId: id,
    version: '001',
    displayName: id,
    outputTokenLimit: outputLimitOf(id),
    // Clients pick their embedding models by these (Google lists embedContent for its embedding models only).
    supportedGenerationMethods: EMBEDDING_MODEL.test(id) ? [...EMBED_METHODS, 'countTokens'] : METHODS,
  };
}

/** An embedding model, by its name (gemini-embedding-001, text-embedding-3-small; one whose name does not say so, bge-m3, is listed with the chat methods). */
const EMBEDDING_MODEL = /embed/i;
