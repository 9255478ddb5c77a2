import { isClaudeModel } from '../../dialects/bedrock-converse/model-family.js';
import { isRecord, parseEvent } from '../../dialects/shared.js';
import type { Frame } from '../../dialects/types.js';
import { RelayError } from '../../relay-error.js';
import type { BuildInput, ErrorVerdict, ProviderAdapter, UpstreamRequest, VendorCodec } from '../types.js';
import { invokeModelBody } from './invoke-body.js';
import { bedrockModelId } from './model-ids.js';

/** Region of a channel whose credentials were not resolved (never on the relay path; the credential source checks it). */
const DEFAULT_REGION = 'us-east-1';

/**
 * Amazon Bedrock (type 33), https://docs.aws.amazon.com/bedrock/latest/APIReference/API_Operations_Amazon_Bedrock_Runtime.html.
 * Requests go to bedrock-runtime.{region}.amazonaws.com (the channel's base URL overrides it) with the model id
 * percent-encoded in the path, and are signed with SigV4 for service `bedrock` by the pipeline after `build`
 * (credentials: `aws`, from the channel's AK|SK|Region).
 *
 * Claude is reached through InvokeModel / InvokeModelWithResponseStream, whose body is Anthropic's Messages body:
 * an Anthropic client (Claude Code) passes through, and the stream's `chunk` frames carry Anthropic's events in
 * base64 (its codec), re-framed as SSE for the client. Every other family (Nova, Llama, Mistral, ...) speaks
 * Converse / ConverseStream, which Claude also understands.
 */
export const bedrockAdapter: ProviderAdapter = {
  id: 'bedrock',
  channelTypes: [33],
  credentials: 'aws',
  dialects: (_channel, model) => (isClaudeModel(model) ? ['anthropic', 'bedrock-converse'] : ['bedrock-converse']),
  supports: (endpoint) => endpoint === 'chat',

  build(input: BuildInput): UpstreamRequest {
    if (Buffer.isBuffer(input.body)) throw new RelayError(501, 'AWS Bedrock 渠道不支持此接口', 'upstream_error');
    const credentials = input.channel.credentials;
    const region = credentials?.kind === 'aws' ? credentials.region : DEFAULT_REGION;
    const base = input.channel.baseUrl || `https://bedrock-runtime.${region}.amazonaws.com`;
    const model = `${base}/model/${encodeURIComponent(bedrockModelId(input.model, region))}`;
    let url: string;
    let body: Record<string, unknown>;
    if (input.dialect === 'anthropic') {
      url = `${model}/${input.stream ? 'invoke-with-response-stream' : 'invoke'}`;
      body = invokeModelBody(input.body, input.forwardHeaders?.['anthropic-beta']);
    } else if (input.dialect === 'bedrock-converse') {
      url = `${model}/${input.stream ? 'converse-stream' : 'converse'}`;
      body = input.body;
    } else {
      throw new RelayError(501, `AWS Bedrock 渠道不支持 ${input.dialect} 格式`, 'upstream_error');
    }
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: input.stream ? 'application/vnd.amazon.eventstream' : 'application/json',
    };
    return { url, method: 'POST', headers, body: JSON.stringify(body), sign: { scheme: 'aws-sigv4', service: 'bedrock' } };
  },

  codec: () => INVOKE_CODEC,
  classifyError: classifyBedrockError,
};

const INVOKE_CODEC: VendorCodec = {
  // InvokeModel's body is Anthropic's Messages body, Converse's the Converse dialect's.
  sendsDialectBody: true,
  stream: () => (frame) => {
    const event = unwrapInvokeChunk(frame);
    return event ? [event] : [];
  },
};

/**
 * InvokeModelWithResponseStream wraps each of the model's own events in a `chunk` frame as `{"bytes": base64}`
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html): the
 * frame becomes that event. ConverseStream's frames are already the events.
 */
export function unwrapInvokeChunk(frame: Frame): Frame | undefined {
  if (frame.event !== 'chunk') return frame;
  const bytes = parseEvent(frame.data)?.bytes;
  if (typeof bytes !== 'string') return undefined;
  const data = Buffer.from(bytes, 'base64').toString('utf8');
  // Anthropic puts the event's type first: read it without parsing the event a second time.
  const type = /^\{\s*"type"\s*:\s*"([a-z_]+)"/.exec(data)?.[1];
  return { event: type, data };
}

/**
 * Bedrock's errors (https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html and each operation's
 * Errors): the body is `{"message"}` and the status tells them apart. 403 is AccessDenied, UnrecognizedClient,
 * InvalidSignature or MissingAuthenticationToken: this channel's keys cannot serve, so another channel is tried and
 * this one may be disabled. Throttling and ModelNotReady (429), ModelTimeout (408), ModelError (424), InternalServer
 * (500) and ServiceUnavailable (503) are passing: try another channel. ValidationException (400) is the request's
 * fault, except ServiceQuotaExceeded (also 400), which is this account's limit.
 */
export function classifyBedrockError(status: number, body: string): ErrorVerdict {
  const message = bedrockMessage(body) ?? `upstream returned HTTP ${status}`;
  const deadKey = status === 401 || status === 403;
  const quota = status === 400 && /service quota/i.test(message);
  const retry = deadKey || quota || status === 408 || status === 424 || status === 429 || status >= 500;
  return { retry, disableChannel: deadKey, message };
}

function bedrockMessage(body: string): string | undefined {
  const parsed = parseEvent(body);
  if (parsed) {
    const text = parsed.message ?? parsed.Message ?? (isRecord(parsed.error) ? parsed.error.message : undefined);
    if (typeof text === 'string' && text) return text;
  }
  const trimmed = body.trim();
  return trimmed && !trimmed.startsWith('{') ? trimmed.slice(0, 300) : undefined;
}
