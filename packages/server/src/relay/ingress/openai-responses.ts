import type { RelayRequest } from '../pipeline/types.js';
import { responseIdParams } from '@model-relay/contract';
import type { FastifyInstance } from 'fastify';
import { openAiChatDialect } from '../dialects/openai-chat/index.js';
import { openAiResponsesDialect } from '../dialects/openai-responses/index.js';
import { authenticateKey } from '../pipeline/authenticate-key.js';
import { handleRelay, release, type IncomingCall, type RelayDeps } from '../pipeline/handle-relay.js';
import { RelayError } from '../relay-error.js';
import type { DirectRelay, RelayHandler } from './direct.js';
import { readJsonBody } from './large-json.js';

/**
 * OpenAI's Responses API for Codex CLI and the OpenAI SDKs: POST /v1/responses to any channel, passed through
 * to OpenAI channels and translated for the others, billed, logged and retried like chat; input token counts;
 * and a clear answer to the calls that need responses stored by the gateway (it stores none).
 */
export function openAiResponsesIngress(app: FastifyInstance, deps: RelayDeps, direct: DirectRelay): void {
  const responses: RelayHandler = async (request, reply) => handleRelay(deps, await readCall(deps, request), request, reply);
  app.post('/v1/responses', responses);
  direct.post('/v1/responses', openAiChatDialect, responses);

  // Counting is free: answered here with the gateway's tokenizer, off the event loop, without an upstream call.
  const inputTokens: RelayHandler = async (request) => {
    await authenticateKey(deps.store, request);
    const read = await readJsonBody(deps.bodies, request.body, READING);
    try {
      const [input_tokens] = await deps.counter.count([await read.facts.promptText()]);
      return { object: 'response.input_tokens', input_tokens };
    } finally {
      release(deps, read);
    }
  };
  app.post('/v1/responses/input_tokens', inputTokens);
  direct.post('/v1/responses/input_tokens', openAiChatDialect, inputTokens);

  // Stored responses live at OpenAI under the key of whichever channel answered: the gateway keeps none to show.
  const stateless = async (request: RelayRequest) => {
    await authenticateKey(deps.store, request);
    throw new RelayError(404, '网关不保存 Responses 对象，无法查询、取消或删除已生成的 response：请自行保存需要的输出（可在请求中设置 store: false）', 'invalid_request_error', 'not_found');
  };
  const params = { schema: { params: responseIdParams } };
  app.get('/v1/responses/:id', params, stateless);
  app.delete('/v1/responses/:id', params, stateless);
  app.get('/v1/responses/:id/input_items', params, stateless);
  app.post('/v1/responses/:id/cancel', params, stateless);
}

const READING = { dialect: 'openai-responses', endpoint: 'chat' } as const;

async function readCall(deps: RelayDeps, request: RelayRequest): Promise<IncomingCall> {
  const read = await readJsonBody(deps.bodies, request.body, READING);
  // A background response is generated after this request has been answered and settled: its usage could never
  // be billed. Refused on every channel.
  if (read.background) {
    release(deps, read);
    throw new RelayError(400, '网关不支持后台模式（background）：后台生成的用量无法计费，请去掉 background 参数');
  }
  return { dialect: openAiResponsesDialect, endpoint: 'chat', body: read.body, facts: read.facts, problem: read.problem, path: '/v1/responses' };
}
