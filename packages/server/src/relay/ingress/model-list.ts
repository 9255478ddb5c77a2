import { modelParams } from '@model-relay/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '../../http/typed-routes.js';
import { anthropicDialect } from '../dialects/anthropic/index.js';
import { geminiDialect } from '../dialects/gemini/index.js';
import { openAiChatDialect } from '../dialects/openai-chat/index.js';
import type { Dialect } from '../dialects/types.js';
import type { RelayDeps } from '../pipeline/handle-relay.js';
import { RelayError } from '../relay-error.js';
import { toGeminiModel, type KeyModels } from './gemini.js';

/** When the models were "created", as the lists say it: one date for all (the gateway does not know the vendors'). */
const CREATED_SECONDS = 1626777600;

/**
 * GET /v1/models and /v1/models/{model}: the models the key may use, in the shape of the client that asks. The
 * official SDKs of all three dialects call these paths: openai's `models.list()`, @anthropic-ai/sdk's (which sends
 * `anthropic-version`), and @google/genai 3's, whose default API version is the stable /v1 (its key in
 * `x-goog-api-key` or `?key=`, never a bearer token). Its scope answers errors in the same client's shape
 * (routes.ts: `errorHandler(listingDialect)`).
 */
export function modelListRoutes(server: FastifyInstance, deps: RelayDeps, keyModels: KeyModels): void {
  const app = server.withTypeProvider<ZodTypeProvider>();
  app.get('/v1/models', async (request) => {
    const models = await keyModels(deps, request);
    const dialect = listingDialect(request);
    if (dialect === geminiDialect) return { models: models.map(toGeminiModel) };
    if (dialect === anthropicDialect) return { data: models.map(toAnthropicModel), has_more: false, first_id: models[0] ?? null, last_id: models.at(-1) ?? null };
    return { object: 'list', data: models.map(toOpenAiModel) };
  });
  app.get('/v1/models/:model', { schema: { params: modelParams } }, async (request) => {
    const dialect = listingDialect(request);
    const model = request.params.model;
    if (!(await keyModels(deps, request)).includes(model)) {
      throw new RelayError(404, `模型 ${dialect === geminiDialect ? 'models/' : ''}${model.slice(0, 200)} 不存在`, 'invalid_request_error', 'model_not_found');
    }
    if (dialect === geminiDialect) return toGeminiModel(model);
    return dialect === anthropicDialect ? toAnthropicModel(model) : toOpenAiModel(model);
  });
}

/**
 * Whose SDK asks: Anthropic's sends `anthropic-version`; Google's its key in `x-goog-api-key` or `?key=` with no
 * bearer token; anything else is answered as OpenAI answers.
 */
export function listingDialect(request: Pick<FastifyRequest, 'headers' | 'query'>): Dialect {
  const { headers } = request;
  if (headers['anthropic-version'] !== undefined) return anthropicDialect;
  const key = (request.query as { key?: unknown } | undefined)?.key;
  if (headers.authorization === undefined && (headers['x-goog-api-key'] !== undefined || typeof key === 'string')) return geminiDialect;
  return openAiChatDialect;
}

function toOpenAiModel(id: string) {
  return { id, object: 'model', created: CREATED_SECONDS, owned_by: 'model-relay' };
}

/** Anthropic's ModelInfo (GET /v1/models of the Claude API). */
function toAnthropicModel(id: string) {
  return { type: 'model', id, display_name: id, created_at: new Date(CREATED_SECONDS * 1000).toISOString().replace('.000Z', 'Z') };
}
