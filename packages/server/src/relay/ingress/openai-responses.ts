import type { FastifyInstance, FastifyRequest } from 'fastify';
import { imageTokenBoundOf } from '../../billing/model-limits.js';
import { openAiResponsesDialect } from '../dialects/openai-responses/index.js';
import { isRecord } from '../dialects/shared.js';
import { handleRelay, type IncomingCall, type RelayDeps } from '../pipeline/handle-relay.js';
import { RelayError } from '../relay-error.js';

/**
 * OpenAI's Responses API for Codex CLI and the OpenAI SDKs: POST /v1/responses to any channel, passed through
 * to OpenAI channels and translated for the others, billed, logged and retried like chat.
 */
export function openAiResponsesIngress(app: FastifyInstance, deps: RelayDeps): void {
  app.post('/v1/responses', (request, reply) => handleRelay(deps, readCall(request), request, reply));
}

function readCall(request: FastifyRequest): IncomingCall {
  const body = request.body;
  if (!isRecord(body)) throw new RelayError(400, '请求体必须是 JSON 对象');
  // A background response is generated after this request has been answered and settled: its usage could never
  // be billed. Refused on every channel.
  if (body.background === true) throw new RelayError(400, '网关不支持后台模式（background）：后台生成的用量无法计费，请去掉 background 参数');
  return { dialect: openAiResponsesDialect, endpoint: 'chat', body, facts: openAiResponsesDialect.inspect(body, imageTokenBoundOf), path: '/v1/responses' };
}
