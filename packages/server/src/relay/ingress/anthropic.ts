import type { FastifyInstance, FastifyRequest } from 'fastify';
import { imageTokenBoundOf } from '../../billing/model-limits.js';
import { anthropicDialect } from '../dialects/anthropic/index.js';
import { isRecord } from '../dialects/shared.js';
import { authenticateKey } from '../pipeline/authenticate-key.js';
import { handleRelay, type IncomingCall, type RelayDeps } from '../pipeline/handle-relay.js';
import { RelayError } from '../relay-error.js';

/**
 * Anthropic's Messages API for Claude Code and the Anthropic SDKs: POST /v1/messages to any channel (passed
 * through to Claude channels, translated for the others) and POST /v1/messages/count_tokens.
 */
export function anthropicIngress(app: FastifyInstance, deps: RelayDeps): void {
  app.post('/v1/messages', (request, reply) => handleRelay(deps, readCall(request), request, reply));

  // Counting is free: answered here with the gateway's tokenizer, off the event loop, without an upstream call.
  app.post('/v1/messages/count_tokens', async (request) => {
    await authenticateKey(deps.store, request);
    const call = readCall(request);
    const [input_tokens] = await deps.counter.count([call.facts.promptText()]);
    return { input_tokens };
  });
}

function readCall(request: FastifyRequest): IncomingCall {
  const body = request.body;
  if (!isRecord(body)) throw new RelayError(400, '请求体必须是 JSON 对象');
  const beta = request.headers['anthropic-beta'];
  return {
    dialect: anthropicDialect,
    endpoint: 'chat',
    body,
    facts: anthropicDialect.inspect(body, imageTokenBoundOf),
    path: '/v1/messages',
    forwardHeaders: typeof beta === 'string' ? { 'anthropic-beta': beta } : undefined,
  };
}
