import type { FastifyError, FastifyInstance } from 'fastify';
import { keyBalanceRoutes } from './key-balance-routes.js';
import { anthropicDialect } from './dialects/anthropic/index.js';
import { geminiDialect } from './dialects/gemini/index.js';
import { openAiChatDialect } from './dialects/openai-chat/index.js';
import type { Dialect } from './dialects/types.js';
import { anthropicIngress } from './ingress/anthropic.js';
import type { DirectRelay } from './ingress/direct.js';
import { geminiIngress } from './ingress/gemini.js';
import { listingDialect, modelListRoutes } from './ingress/model-list.js';
import { openAiIngress } from './ingress/openai.js';
import { openAiResponsesIngress } from './ingress/openai-responses.js';
import { authenticateKey } from './pipeline/authenticate-key.js';
import type { RelayDeps } from './pipeline/handle-relay.js';
import { errorAnswer } from './error-answer.js';

/** The relay: every client dialect's endpoints, each answering errors in its own dialect's shape. */
export async function relayRoutes(app: FastifyInstance, deps: RelayDeps, direct: DirectRelay): Promise<void> {
  await app.register(async (v1) => {
    // Uploads (audio) are relayed byte for byte: keep multipart bodies raw.
    v1.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: 64 * 1024 * 1024 }, (_request, body, done) => done(null, body));
    // (X-Request-Id, CORS and the security headers go on every relay answer: app.ts, http/security-headers.ts.)
    // CORS preflight: browser-based chat clients call /v1 and the billing endpoints from other origins.
    for (const path of ['/v1/*', '/v1beta/*', '/dashboard/*']) {
      v1.options(path, async (_request, reply) => {
        reply.header('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS').header('Access-Control-Allow-Headers', '*').status(204).send();
      });
    }

    await v1.register(async (openai) => {
      openai.setErrorHandler(errorHandler(openAiChatDialect));
      keyBalanceRoutes(openai, deps);
      openAiIngress(openai, deps, direct);
      openAiResponsesIngress(openai, deps, direct);
    });
    // GET /v1/models and /v1/models/{model}, answered in the shape of whichever SDK asks.
    await v1.register(async (listing) => {
      listing.setErrorHandler(errorHandler(listingDialect));
      modelListRoutes(listing, deps, modelsFor);
    });
    await v1.register(async (anthropic) => {
      anthropic.setErrorHandler(errorHandler(anthropicDialect));
      anthropicIngress(anthropic, deps, direct);
    });
    await v1.register(async (gemini) => {
      gemini.setErrorHandler(errorHandler(geminiDialect));
      geminiIngress(gemini, deps, modelsFor, direct);
    });
  });
}

type ErrorRequest = Parameters<Parameters<FastifyInstance['setErrorHandler']>[0]>[1];

/** Fastify's error handler of a dialect's routes (errorAnswer); the dialect may be the request's (`listingDialect`). */
export function errorHandler(dialect: Dialect | ((request: ErrorRequest) => Dialect)) {
  return (error: FastifyError, request: ErrorRequest, reply: Parameters<Parameters<FastifyInstance['setErrorHandler']>[0]>[2]) => {
    if (reply.sent || reply.raw.headersSent) return;
    const answer = errorAnswer(typeof dialect === 'function' ? dialect(request) : dialect, error, request.log);
    reply.status(answer.status).headers(answer.headers);
    if (answer.contentType) reply.header('content-type', answer.contentType);
    return reply.send(answer.body);
  };
}

async function modelsFor(deps: RelayDeps, request: Parameters<typeof authenticateKey>[1]): Promise<string[]> {
  const { token, user } = await authenticateKey(deps.store, request);
  const models = await deps.store.groupModels(user.group);
  const scope = token.models ? token.models.split(',').map((m) => m.trim()).filter(Boolean) : [];
  return scope.length ? models.filter((m) => scope.includes(m)) : models;
}

