import type { ErrorVerdict, ProviderAdapter, VendorCodec } from '../types.js';
import { DEAD_CHANNEL_REASONS, isPassingFault, readGoogleError } from './google-errors.js';
import { flatMap } from '../../../lib/arrays.js';
import { asArray, asNumber, badRequest, isRecord } from '../../dialects/shared.js';
import { openAiEmbeddingList } from '../embeddings.js';

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';
/** The API version used when the channel names none (its `other` field, as in one-api): v1beta has every feature. */
const DEFAULT_VERSION = 'v1beta';
const VERSION = /^v\d+(alpha|beta)?\d*$/;

/**
 * Google Gemini API (type 24): generateContent with the key in `x-goog-api-key`
 * (https://ai.google.dev/api/generate-content). A stream asks for SSE (`alt=sse`) unless a Gemini client asked for
 * the JSON-array stream, which it then gets byte for byte. OpenAI's embeddings go to batchEmbedContents
 * (https://ai.google.dev/api/embeddings), one request per input text, and come back as OpenAI's list.
 */
export const geminiAdapter: ProviderAdapter = {
  id: 'gemini',
  channelTypes: [24],
  dialects: () => ['gemini'],
  supports: (endpoint) => endpoint === 'chat' || endpoint === 'embeddings',
  build(input) {
    let base = input.channel.baseUrl || GEMINI_BASE_URL;
    let version = VERSION.test(input.channel.other.trim()) ? input.channel.other.trim() : DEFAULT_VERSION;
    // A base URL that already ends with the version (".../v1beta") is taken as it is.
    const suffix = /\/(v\d+(?:alpha|beta)?\d*)$/.exec(base);
    if (suffix) {
      base = base.slice(0, -suffix[0].length);
      version = suffix[1];
    }
    const headers = { 'x-goog-api-key': input.channel.key, 'content-type': 'application/json' };
    if (input.endpoint === 'embeddings') {
      if (Buffer.isBuffer(input.body)) throw badRequest('Gemini 的向量接口只接受 JSON 请求');
      const body = nativeBatch(input.native, input.model) ?? batchEmbedBody(input.body, input.model);
      return { url: `${base}/${version}/models/${modelPath(input.model)}:batchEmbedContents`, method: 'POST', headers, body: JSON.stringify(body) };
    }
    const url = `${base}/${version}/models/${modelPath(input.model)}:${geminiMethod(input.stream, input.jsonArrayStream)}`;
    return { url, method: 'POST', headers, body: JSON.stringify(withoutModel(input.body)) };
  },
  // Only embeddings answer in Gemini's own wire to a client of another endpoint; chat is a dialect of its own.
  codec: (_channel, model, body, endpoint) => (endpoint === 'embeddings' ? embeddingsCodec(model, body?.encoding_format === 'base64') : undefined),
  classifyError: classifyGeminiError,
  // https://ai.google.dev/api/models#method:-models.list: the models that generate content or embeddings
  modelList: (channel) => ({
    url: `${(channel.baseUrl || GEMINI_BASE_URL).replace(/\/v\d+(?:alpha|beta)?\d*$/, '')}/v1beta/models?pageSize=1000`,
    headers: { 'x-goog-api-key': channel.key },
    read: (json) => {
      const models = (json as { models?: unknown } | undefined)?.models;
      if (!Array.isArray(models)) return [];
      return flatMap(models, (m: { name?: unknown; supportedGenerationMethods?: unknown }) => {
        const methods = Array.isArray(m.supportedGenerationMethods) ? m.supportedGenerationMethods : [];
        const usable = methods.includes('generateContent') || methods.includes('embedContent');
        return typeof m.name === 'string' && usable ? [m.name.replace(/^models\//, '')] : [];
      });
    },
  }),
};

/** The method part of a Gemini URL: a stream is SSE unless the client asked for Gemini's JSON-array framing. */
export function geminiMethod(stream: boolean, jsonArray?: boolean): string {
  if (!stream) return 'generateContent';
  return jsonArray ? 'streamGenerateContent' : 'streamGenerateContent?alt=sse';
}

/** A model id as a path segment ("models/x" taken as "x"; `@` kept, as Vertex model versions are written). */
export function modelPath(model: string): string {
  return encodeURIComponent(model.replace(/^models\//, '')).replace(/%40/g, '@');
}

/** Texts one batchEmbedContents call takes (the API refuses more: "at most 100 requests can be in one batch"). */
const MAX_EMBED_BATCH = 100;

/**
 * OpenAI's embeddings body as batchEmbedContents': each input text one request for the same model, `dimensions` as
 * `outputDimensionality`. Gemini embeds text only: token arrays (OpenAI's other input form) are refused.
 */
function batchEmbedBody(body: Record<string, unknown>, model: string): Record<string, unknown> {
  const input = typeof body.input === 'string' ? [body.input] : asArray(body.input);
  if (input.length === 0 || !input.every((text): text is string => typeof text === 'string')) throw badRequest('Gemini 的向量接口只接受文本（字符串或字符串数组）作为 input');
  if (input.length > MAX_EMBED_BATCH) throw badRequest(`Gemini 的向量接口一次最多接受 ${MAX_EMBED_BATCH} 段文本，本次为 ${input.length} 段，请分批请求`);
  const dimensions = asNumber(body.dimensions);
  const name = resourceName(model);
  return { requests: input.map((text) => ({ model: name, content: { parts: [{ text }] }, ...(dimensions !== undefined ? { outputDimensionality: Math.floor(dimensions) } : {}) })) };
}

/**
 * A Gemini client's own embedding requests (ingress/gemini-embeddings.ts), sent on as it wrote them (its task types,
 * titles and output sizes kept), each naming the channel's model.
 */
function nativeBatch(native: Record<string, unknown> | undefined, model: string): Record<string, unknown> | undefined {
  if (!native || !Array.isArray(native.requests)) return undefined;
  const name = resourceName(model);
  return { requests: native.requests.map((request) => Object.assign({}, request, { model: name })) };
}

/**
 * batchEmbedContents' answer (`{embeddings: [{values}]}`, in the order asked) as OpenAI's embeddings list. The Gemini
 * API reports no usage for it (a `usageMetadata`, which @google/genai's type allows, is read when there): the gateway
 * then counts the input, and the client is told that count (deliver-whole.ts). A body parsed on a worker (over 1 MB)
 * is not at hand here, so such a request gets floats even if it asked for base64 (the openai SDKs take either when
 * they chose base64).
 */
function embeddingsCodec(model: string, base64: boolean): VendorCodec {
  return {
    answer(json) {
      const vectors = asArray(json.embeddings).map((e) => (isRecord(e) ? asArray(e.values) : []));
      const usage = isRecord(json.usageMetadata) ? json.usageMetadata : {};
      return openAiEmbeddingList(vectors, model, base64, asNumber(usage.promptTokenCount) ?? 0);
    },
  };
}

/** A model as the Gemini API names it in a body: `models/{id}`. */
const resourceName = (model: string) => `models/${model.replace(/^models\//, '')}`;

/** The body without `model`: the model is in the URL. */
export function withoutModel(body: Record<string, unknown> | Buffer): Record<string, unknown> {
  if (Buffer.isBuffer(body)) return {};
  const { model: _model, ...rest } = body;
  return rest;
}

/**
 * The Gemini API's errors (https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes). A wrong or expired
 * key is 400 with reason API_KEY_INVALID, a missing one 403: the channel is dead. 429 (quota), 500, 503
 * (overload) and 504 are worth another channel, and so are a refused location (400 FAILED_PRECONDITION) and
 * other 401/403s; other 400s and 404 are the request's own fault. A 403 about a cachedContent names the
 * client's cache, not the channel.
 */
export function classifyGeminiError(status: number, body: string): ErrorVerdict {
  const error = readGoogleError(status, body);
  const dead =
    error.reasons.some((reason) => DEAD_CHANNEL_REASONS.includes(reason)) ||
    /API key (not valid|expired)|unregistered callers|reported as leaked|has been suspended/i.test(error.message) ||
    status === 401;
  if (dead) return { retry: true, disableChannel: true, message: error.message };
  if (status === 403 && /cachedcontent/i.test(error.message)) return { retry: false, disableChannel: false, message: error.message };
  const retry = isPassingFault(status) || status === 403 || error.status === 'FAILED_PRECONDITION';
  return { retry, disableChannel: false, message: error.message };
}
