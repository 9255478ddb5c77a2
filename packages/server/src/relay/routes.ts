import type { FastifyError, FastifyInstance } from 'fastify';
import { billingRoutes } from './billing-routes.js';
import { authenticateKey } from './pipeline/authenticate-key.js';
import type { RelayMode } from './providers/types.js';
import { handleRelay, type RelayDeps } from './relay-handler.js';
import { RelayError } from './relay-error.js';

const ENDPOINTS: Array<[string, RelayMode]> = [
  ['/v1/chat/completions', 'chat'],
  ['/v1/completions', 'completions'],
  ['/v1/embeddings', 'embeddings'],
  ['/v1/images/generations', 'images'],
  ['/v1/audio/speech', 'audio_speech'],
  ['/v1/audio/transcriptions', 'audio_transcription'],
  ['/v1/audio/translations', 'audio_translation'],
  ['/v1/moderations', 'moderations'],
];

/** /v1: the OpenAI-compatible relay, with errors in OpenAI's shape (its own error handler). */
export async function relayRoutes(app: FastifyInstance, deps: RelayDeps): Promise<void> {
  await app.register(async (v1) => {
    // Uploads (audio) are relayed byte for byte: keep multipart bodies raw.
    v1.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: 64 * 1024 * 1024 }, (_request, body, done) => done(null, body));

    v1.setErrorHandler((error: FastifyError, request, reply) => {
      if (reply.sent || reply.raw.headersSent) return;
      if (error instanceof RelayError) return reply.status(error.status).send(error.toBody());
      if (error.statusCode && error.statusCode < 500) {
        return reply.status(error.statusCode).send(new RelayError(error.statusCode, `请求无效：${error.message}`).toBody());
      }
      request.log.error({ err: error }, 'relay error');
      return reply.status(500).send(new RelayError(500, '网关内部错误', 'server_error', 'internal_error').toBody());
    });

    v1.addHook('onRequest', async (request, reply) => {
      reply.header('X-Request-Id', request.id);
      reply.header('Access-Control-Allow-Origin', '*');
    });
    // CORS preflight: browser-based chat clients call /v1 and the billing endpoints from other origins.
    for (const path of ['/v1/*', '/dashboard/*']) {
      v1.options(path, async (_request, reply) => {
        reply
          .header('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS')
          .header('Access-Control-Allow-Headers', '*')
          .status(204)
          .send();
      });
    }

    billingRoutes(v1, deps);

    for (const [path, mode] of ENDPOINTS) {
      v1.post(path, (request, reply) => handleRelay(deps, mode, request, reply));
    }

    v1.get('/v1/models', async (request) => {
      const models = await modelsFor(deps, request);
      return { object: 'list', data: models.map(toModelObject) };
    });
    v1.get('/v1/models/:model', async (request) => {
      const model = (request.params as { model: string }).model;
      const models = await modelsFor(deps, request);
      if (!models.includes(model)) throw new RelayError(404, `模型 ${model} 不存在`, 'invalid_request_error', 'model_not_found');
      return toModelObject(model);
    });
  });
}

async function modelsFor(deps: RelayDeps, request: Parameters<typeof authenticateKey>[1]): Promise<string[]> {
  const { token, user } = await authenticateKey(deps.store, request);
  const models = await deps.store.groupModels(user.group);
  const scope = token.models ? token.models.split(',').map((m) => m.trim()).filter(Boolean) : [];
  return scope.length ? models.filter((m) => scope.includes(m)) : models;
}

function toModelObject(id: string) {
  return { id, object: 'model', created: 1626777600, owned_by: 'model-relay' };
}
