import { ChannelType, providerInfo } from '@model-relay/contract';
import { asArray, asNumber, badRequest, isRecord, parseEvent } from '../../dialects/shared.js';
import { RelayError } from '../../relay-error.js';
import type { BuildInput, ChannelTarget, Endpoint, ErrorVerdict, ProviderAdapter, UpstreamRequest } from '../types.js';
import { cohereChatBody } from './chat-body.js';
import { cohereCodec } from './codec.js';
import { flatMap } from '../../../lib/arrays.js';

const PATHS: Partial<Record<Endpoint, string>> = { chat: '/v2/chat', embeddings: '/v2/embed', rerank: '/v2/rerank' };

/**
 * Cohere (type 35), API v2 (https://docs.cohere.com/reference/about): chat at POST /v2/chat (its own body and SSE
 * events, codec.ts), embeddings at /v2/embed and rerank at /v2/rerank, with `Authorization: Bearer <API key>`. The
 * host is api.cohere.com; channels saved with the older api.cohere.ai (one-api's default, still served) keep it.
 */
export const cohereAdapter: ProviderAdapter = {
  id: 'cohere',
  channelTypes: [ChannelType.Cohere],
  dialects: () => ['openai-chat'],
  supports: (endpoint) => PATHS[endpoint] !== undefined,

  build(input: BuildInput): UpstreamRequest {
    const path = PATHS[input.endpoint];
    if (!path || Buffer.isBuffer(input.body)) throw new RelayError(501, 'Cohere 渠道不支持此接口', 'upstream_error');
    const body = input.endpoint === 'chat' ? cohereChatBody(input.body, input.stream) : input.endpoint === 'embeddings' ? embedBody(input.body) : rerankBody(input.body);
    const headers: Record<string, string> = {
      authorization: `Bearer ${input.channel.key}`,
      'content-type': 'application/json',
      accept: input.endpoint === 'chat' && input.stream ? 'text/event-stream' : 'application/json',
    };
    return { url: `${cohereBase(input.channel)}${path}`, method: 'POST', headers, body: JSON.stringify(body) };
  },

  codec: (_channel, model) => cohereCodec(model),
  classifyError: classifyCohereError,
  // https://docs.cohere.com/reference/list-models
  modelList: (channel) => ({
    url: `${cohereBase(channel)}/v1/models?page_size=1000`,
    headers: { authorization: `Bearer ${channel.key}` },
    read: (json) => {
      const models = (json as { models?: unknown } | undefined)?.models;
      return Array.isArray(models) ? flatMap(models, (m: { name?: unknown }) => (typeof m.name === 'string' ? [m.name] : [])) : [];
    },
  }),
};

/** The channel's base URL (or the catalogue's), without a version path a one-api channel may have saved with it. */
function cohereBase(channel: ChannelTarget): string {
  return (channel.baseUrl || providerInfo(ChannelType.Cohere).baseUrl).replace(/\/+$/, '').replace(/\/v[12]$/, '');
}

/**
 * OpenAI's embeddings body as Embed v2's. `input_type` is required for v3+ models: what a client of OpenAI's API
 * embeds is taken as documents to search (`search_document`). A client that asked for base64 (the openai SDKs do
 * by default) gets it: base64 is asked for alongside the floats, which marks the answer (codec.ts).
 */
function embedBody(body: Record<string, unknown>): Record<string, unknown> {
  const input = typeof body.input === 'string' ? [body.input] : asArray(body.input);
  if (input.length === 0 || !input.every((text): text is string => typeof text === 'string')) throw badRequest('Cohere 的向量接口只接受文本（字符串或字符串数组）作为 input');
  const out: Record<string, unknown> = {
    model: body.model,
    texts: input,
    input_type: 'search_document',
    embedding_types: body.encoding_format === 'base64' ? ['float', 'base64'] : ['float'],
  };
  const dimensions = asNumber(body.dimensions);
  if (dimensions !== undefined) out.output_dimension = dimensions;
  return out;
}

/** The Cohere/Jina rerank body as Rerank v2's: documents are strings (a `{text}` object gives its text). */
function rerankBody(body: Record<string, unknown>): Record<string, unknown> {
  const documents = asArray(body.documents).map((doc) => (typeof doc === 'string' ? doc : isRecord(doc) && typeof doc.text === 'string' ? doc.text : JSON.stringify(doc)));
  const out: Record<string, unknown> = { model: body.model, query: body.query, documents };
  const top = asNumber(body.top_n);
  if (top !== undefined) out.top_n = Math.floor(top);
  const perDoc = asNumber(body.max_tokens_per_doc);
  if (perDoc !== undefined) out.max_tokens_per_doc = Math.floor(perDoc);
  return out;
}

/**
 * Cohere's errors (https://docs.cohere.com/reference/errors), a body `{"id", "message"}`:
 *  - 401 (no api key supplied, invalid api token, an expired trial key) and 402 (no payment method, or the key's
 *    maximum monthly billing reached): this key cannot serve; another channel is tried and this one may be disabled;
 *  - 429 (rate limits), 499 (request cancelled: "try the request again") and 5xx: passing, another channel is tried;
 *  - 403 (no access to what was asked): another channel may have it;
 *  - 400, 404 (model not found), 422 and 498 (a deny-listed token in the request): the request's own fault.
 */
export function classifyCohereError(status: number, body: string): ErrorVerdict {
  const parsed = parseEvent(body);
  const text = typeof parsed?.message === 'string' && parsed.message ? parsed.message : body.trim() && !body.trim().startsWith('{') ? body.trim().slice(0, 300) : undefined;
  const deadKey = status === 401 || status === 402;
  const retry = deadKey || status === 403 || status === 408 || status === 429 || status === 499 || status >= 500;
  return { retry, disableChannel: deadKey, message: text ?? `upstream returned HTTP ${status}` };
}
