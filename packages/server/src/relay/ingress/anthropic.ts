import type { RelayRequest } from '../pipeline/types.js';
import type { FastifyInstance } from 'fastify';
import { anthropicDialect } from '../dialects/anthropic/index.js';
import { authenticateKey } from '../pipeline/authenticate-key.js';
import { handleRelay, release, type IncomingCall, type RelayDeps } from '../pipeline/handle-relay.js';
import type { DirectRelay, RelayHandler } from './direct.js';
import { readJsonBody } from './large-json.js';

/**
 * Anthropic's Messages API for Claude Code and the Anthropic SDKs: POST /v1/messages to any channel (passed
 * through to Claude channels, translated for the others) and POST /v1/messages/count_tokens.
 */
export function anthropicIngress(app: FastifyInstance, deps: RelayDeps, direct: DirectRelay): void {
  const messages: RelayHandler = async (request, reply) => handleRelay(deps, await readCall(deps, request), request, reply);
  app.post('/v1/messages', messages);
  direct.post('/v1/messages', anthropicDialect, messages);

  // Counting is free: answered here with the gateway's tokenizer, off the event loop, without an upstream call.
  const countTokens: RelayHandler = async (request) => {
    await authenticateKey(deps.store, request);
    const call = await readCall(deps, request);
    try {
      const [input_tokens] = await deps.counter.count([await call.facts.promptText()]);
      return { input_tokens };
    } finally {
      release(deps, call);
    }
  };
  app.post('/v1/messages/count_tokens', countTokens);
  direct.post('/v1/messages/count_tokens', anthropicDialect, countTokens);
}

async function readCall(deps: RelayDeps, request: RelayRequest): Promise<IncomingCall> {
  const { body, facts, problem } = await readJsonBody(deps.bodies, request.body, { dialect: 'anthropic', endpoint: 'chat' });
  const beta = request.headers['anthropic-beta'];
  return {
    dialect: anthropicDialect,
    endpoint: 'chat',
    body,
    facts,
    problem,
    path: '/v1/messages',
    forwardHeaders: typeof beta === 'string' ? { 'anthropic-beta': beta } : undefined,
  };
}
