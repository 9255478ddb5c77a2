import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import { claudeInputTokens, claudeReply, claudeSignatures, type ClaudeScenario } from './anthropic-replies.js';
import { validateMessagesBody } from './anthropic-validate.js';
import { converseInputTokens, converseReply, needsProfile, parseModelId, reasoningSignatures, validateConverse, type Frame } from './bedrock-converse.js';
import { bedrockCredentials, verifySigV4 } from './bedrock-sigv4.js';
import { fixtures } from './fixtures.js';
import { applyTimingMode, firstHalf, modeOf, sendJson, startMockServer, writePaced, type MockHandle, type MockMode } from './mock-server.js';

/**
 * A local Amazon Bedrock Runtime (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_Operations_Amazon_Bedrock_Runtime.html)
 * that verifies real SigV4 signatures (service `bedrock`) and answers with providers/bedrock/__fixtures__:
 *   POST /model/{modelId}/converse | /converse-stream       any family (Claude, Nova, Llama, ...)
 *   POST /model/{modelId}/invoke | /invoke-with-response-stream   Claude (Anthropic Messages body, bedrock-2023-05-31)
 *   POST /model/{modelId}/count-tokens
 * Streams are application/vnd.amazon.eventstream frames. Credentials come from `bedrockCredentials(mode)` (the access
 * key id carries the mode); Bedrock API keys (`Authorization: Bearer` from `bedrockApiKey(mode)`) work too.
 */
export type MockBedrock = MockHandle;
export interface MockBedrockOptions {
  /** The region the endpoint serves: a signature scoped to another region is refused. Default: any. */
  region?: string;
  /** Refuse consecutive same-role turns in InvokeModel (Claude) bodies. */
  strictTurns?: boolean;
}
export { bedrockCredentials };

/** A Bedrock API key (long-term, `ABSK` + base64) for the mock, carrying the mode. */
export const bedrockApiKey = (mode: MockMode = 'ok') => `ABSK${Buffer.from(`BedrockAPIKey-${mode}`).toString('base64')}`;

const fx = fixtures('bedrock');
const codec = new EventStreamCodec(toUtf8, fromUtf8);
const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream|count-tokens)$/;
const ERROR_FOR_MODE: Partial<Record<MockMode, string>> = {
  'fail-400': 'validation',
  'fail-401': 'unrecognized_client',
  'fail-403': 'access_denied',
  'fail-408': 'model_timeout',
  'fail-429': 'throttling',
  'fail-500': 'internal',
  'fail-503': 'service_unavailable',
  'overloaded-529': 'service_unavailable',
};
const PADDING = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** One event-stream frame (prelude, string headers, JSON payload, CRCs) as Bedrock sends it. */
export function encodeFrame(frame: Frame): Uint8Array {
  const headers = Object.fromEntries(Object.entries(frame.headers).map(([name, value]) => [name, { type: 'string' as const, value }]));
  return codec.encode({ headers, body: fromUtf8(JSON.stringify(frame.payload)) });
}

function sendError(res: ServerResponse, name: string, message?: string): void {
  const error = fx.json('errors.json')[name];
  sendJson(res, error.status, message ? { message } : error.body, { ...error.headers, 'x-amzn-requestid': randomUUID() });
}
const validation = (res: ServerResponse, message: string) => sendError(res, 'validation', message);

/** Mode `no-usage`: the answer and its events with no usage anywhere (nor, so, the stream's invocation metrics). */
function withoutUsage(reply: ReturnType<typeof claudeReply>): ReturnType<typeof claudeReply> {
  const { usage: _usage, ...message } = reply.message;
  const events = reply.events.map((e: any) => {
    if (e.type === 'message_start') {
      const { usage: _startUsage, ...started } = e.message;
      return { ...e, message: started };
    }
    if (e.type === 'message_delta') {
      const { usage: _deltaUsage, ...delta } = e;
      return delta;
    }
    return e;
  });
  return { ...reply, message, events };
}

/** InvokeModelWithResponseStream: each Anthropic event base64 in a `chunk` frame; message_stop carries Bedrock's metrics. */
function invokeFrames(events: any[], scenario: ClaudeScenario): Frame[] {
  const latency = fx.json(`${scenario}.response.json`).metrics.latencyMs;
  const usage = events.find((e) => e.type === 'message_delta')?.usage;
  return events.map((event, i) => {
    const payload =
      event.type === 'message_stop' && usage
        ? { ...event, 'amazon-bedrock-invocationMetrics': { inputTokenCount: usage.input_tokens, outputTokenCount: usage.output_tokens, invocationLatency: latency, firstByteLatency: Math.round(latency / 3) } }
        : event;
    return { headers: { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, payload: { bytes: Buffer.from(JSON.stringify(payload)).toString('base64'), p: PADDING.slice(0, 3 + ((i * 17) % 50)) } };
  });
}

async function sendFrames(res: ServerResponse, frames: Frame[], mode: MockMode, headers: Record<string, string>): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': randomUUID(), ...headers });
  if (mode === 'stream-error') {
    await writePaced(res, firstHalf(frames).map(encodeFrame), 'ok');
    res.end(encodeFrame(fx.json('errors.json').stream_exception_frame.frame));
    return;
  }
  if (await writePaced(res, frames.map(encodeFrame), mode)) res.end();
}

async function authenticate(recorded: Parameters<Parameters<typeof startMockServer>[0]>[2], region: string | undefined): Promise<{ mode: MockMode } | { error: string; message?: string }> {
  const bearer = /^Bearer\s+ABSK(.+)$/i.exec(String(recorded.headers.authorization ?? ''))?.[1];
  if (bearer) {
    const mode = modeOf(/^BedrockAPIKey-(.+)$/.exec(Buffer.from(bearer, 'base64').toString('utf8'))?.[1]);
    recorded.key = `ABSK${bearer}`;
    return mode ? { mode } : { error: 'unrecognized_client' };
  }
  const checked = await verifySigV4(recorded, { service: 'bedrock', region });
  if (!checked.ok) return { error: checked.error, message: checked.message };
  recorded.key = checked.accessKeyId;
  return { mode: checked.mode };
}

export async function startMockBedrock(options: MockBedrockOptions = {}): Promise<MockBedrock> {
  const claudeSigs = claudeSignatures();
  const converseSigs = reasoningSignatures();
  return startMockServer(async (req, res, recorded) => {
    const route = ROUTE.exec(recorded.path);
    if (req.method !== 'POST' || !route) {
      return sendJson(res, 404, { message: null }, { 'x-amzn-errortype': 'UnknownOperationException:http://internal.amazon.com/coral/com.amazon.coral.service/' });
    }
    const auth = await authenticate(recorded, options.region);
    if ('error' in auth) return sendError(res, auth.error, auth.message);
    const mode = auth.mode;
    recorded.mode = mode;
    const [, encodedId, operation] = route;
    const stream = operation === 'converse-stream' || operation === 'invoke-with-response-stream';
    if (await applyTimingMode(res, mode, stream)) return;
    const failure = ERROR_FOR_MODE[mode];
    if (failure) return sendError(res, failure);

    const modelId = decodeURIComponent(encodedId);
    const model = parseModelId(modelId);
    if (!model) return sendError(res, 'invalid_model');
    if (needsProfile(model)) return validation(res, fx.json('errors.json').on_demand_not_supported.body.message.replace(/model ID \S+ with/, `model ID ${model.id} with`));
    const body = recorded.body as Record<string, any>;

    if (operation === 'count-tokens') {
      const input = body?.input;
      if (input?.converse) {
        const problem = validateConverse(input.converse, { family: model.family, stream: false, signatures: converseSigs });
        return problem ? validation(res, problem) : sendJson(res, 200, { inputTokens: converseInputTokens(input.converse) });
      }
      const invokeBody = typeof input?.invokeModel?.body === 'string' ? JSON.parse(input.invokeModel.body) : undefined;
      if (!invokeBody) return validation(res, 'The input field must set exactly one of: converse, invokeModel.');
      const problem = validateMessagesBody(invokeBody, { platform: 'bedrock', model: model.id, countTokens: false, signatures: claudeSigs, strictTurns: options.strictTurns });
      return problem ? validation(res, problem.message) : sendJson(res, 200, { inputTokens: claudeInputTokens(invokeBody) });
    }

    if (operation === 'converse' || operation === 'converse-stream') {
      const problem = validateConverse(body, { family: model.family, stream, signatures: converseSigs });
      if (problem) return validation(res, problem);
      const reply = converseReply(body, mode, model.family);
      if (!stream) return sendJson(res, 200, reply.response, { 'x-amzn-requestid': randomUUID() });
      return sendFrames(res, reply.frames, mode, {});
    }

    if (model.family !== 'anthropic') return validation(res, 'This mock serves InvokeModel for Anthropic Claude models only; use Converse for other families.');
    const problem = validateMessagesBody(body, { platform: 'bedrock', model: model.id, signatures: claudeSigs, strictTurns: options.strictTurns });
    if (problem) return validation(res, problem.message);
    const claudeModel = model.id.replace(/^([a-z-]+\.)?anthropic\./, '').replace(/-v\d+(:\d+)?$/, '');
    const reply = mode === 'no-usage' ? withoutUsage(claudeReply(body, undefined, { model: claudeModel, idPrefix: 'msg_bdrk_' })) : claudeReply(body, mode, { model: claudeModel, idPrefix: 'msg_bdrk_' });
    if (stream) return sendFrames(res, invokeFrames(reply.events, reply.scenario), mode, { 'x-amzn-bedrock-content-type': 'application/json' });
    const usage = reply.message.usage;
    sendJson(res, 200, reply.message, {
      'x-amzn-requestid': randomUUID(),
      ...(usage ? { 'x-amzn-bedrock-input-token-count': String(usage.input_tokens), 'x-amzn-bedrock-output-token-count': String(usage.output_tokens) } : {}),
      'x-amzn-bedrock-invocation-latency': String(fx.json(`${reply.scenario}.response.json`).metrics.latencyMs),
    });
  });
}
