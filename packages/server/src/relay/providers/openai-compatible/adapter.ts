import { ChannelType, providerInfo } from '@model-relay/contract';
import { RelayError } from '../../relay-error.js';
import { ANTHROPIC_VERSION } from '../anthropic/adapter.js';
import { dashScopeRerankCodec, dashScopeRerankRequest } from '../dashscope/rerank.js';
import { idsOfList, type BuildInput, type ChannelTarget, type Endpoint, type ErrorVerdict, type ProviderAdapter, type UpstreamRequest } from '../types.js';

/** OpenAI error statuses that mean the key or the account is dead, not a passing fault. */
const DEAD_KEY_HINTS = ['invalid_api_key', 'account_deactivated', 'insufficient_quota', 'billing_not_active', 'Incorrect API key'];

/** The path of each OpenAI endpoint under /v1. */
export const OPENAI_PATHS: Record<Endpoint, string> = {
  chat: '/v1/chat/completions',
  completions: '/v1/completions',
  embeddings: '/v1/embeddings',
  images: '/v1/images/generations',
  audio_speech: '/v1/audio/speech',
  audio_transcription: '/v1/audio/transcriptions',
  audio_translation: '/v1/audio/translations',
  moderations: '/v1/moderations',
  rerank: '/v1/rerank',
};

/** Types whose vendor speaks OpenAI's wire format at the catalogue's base URL and `apiPath` (contract providers.ts). */
export const OPENAI_COMPATIBLE_TYPES: readonly number[] = [
  ChannelType.OpenAI, ChannelType.API2D, ChannelType.CloseAI, ChannelType.OpenAISB, ChannelType.OpenAIMax, ChannelType.OhMyGPT,
  ChannelType.Custom, ChannelType.AILS, ChannelType.AIProxy, ChannelType.API2GPT, ChannelType.AIGC2D, ChannelType.Zhipu, ChannelType.Ali,
  ChannelType.AI360, ChannelType.OpenRouter, ChannelType.FastGPT, ChannelType.Moonshot, ChannelType.Baichuan, ChannelType.MiniMax,
  ChannelType.Mistral, ChannelType.Groq, ChannelType.LingYiWanWu, ChannelType.StepFun, ChannelType.DeepSeek, ChannelType.Cloudflare,
  ChannelType.TogetherAI, ChannelType.Doubao, ChannelType.Novita, ChannelType.Proxy,
];

/**
 * The URL of an OpenAI path (`/v1/...`) at a channel: its base URL (or the catalogue's), with `/v1` replaced by the
 * prefix its vendor serves the API under. What the relay, the channel test, model discovery and balances all call.
 */
export function openAiUrl(channel: ChannelTarget, path: string, base = channel.baseUrl || providerInfo(channel.type).baseUrl || providerInfo(ChannelType.OpenAI).baseUrl): string {
  let prefix = providerInfo(channel.type).apiPath ?? '/v1';
  if (prefix.includes('{account}')) {
    const account = typeof channel.config.user_id === 'string' ? channel.config.user_id.trim() : '';
    if (!account) throw new RelayError(400, '渠道未填写 Account ID', 'upstream_error');
    prefix = prefix.replace('{account}', encodeURIComponent(account));
  }
  // A base URL saved with the prefix already on it (what an OpenAI SDK is given: https://api.deepseek.com/v1) gets it once.
  const trimmed = base.replace(/\/+$/, '');
  if (prefix && trimmed.endsWith(prefix)) base = trimmed.slice(0, -prefix.length);
  return `${base}${path.replace(/^\/v1(?=\/|$)/, prefix)}`;
}


/**
 * Every upstream that speaks OpenAI's wire format: OpenAI itself, the proxy types, the custom channel and the
 * OpenAI-compatible vendors. Bodies pass through as given (model rewritten upstream of here), with
 * `stream_options.include_usage` added to streams so billing sees real usage. OpenAI itself also takes the
 * Responses API, so a Responses client reaches it without translation.
 */
export const openAiCompatibleAdapter: ProviderAdapter = {
  id: 'openai-compatible',
  channelTypes: OPENAI_COMPATIBLE_TYPES,

  dialects: (channel) => (channel.type === ChannelType.OpenAI ? ['openai-chat', 'openai-responses'] : claudeApiOf(channel) ? ['openai-chat', 'anthropic'] : ['openai-chat']),
  supports: () => true,

  build(input: BuildInput): UpstreamRequest {
    const claudeApi = input.dialect === 'anthropic' ? claudeApiOf(input.channel) : undefined;
    if (claudeApi) return claudeApiRequest(input, claudeApi);
    // DashScope's compatible mode has no rerank: its native text-rerank API does (providers/dashscope/rerank.ts).
    if (input.endpoint === 'rerank' && input.channel.type === ChannelType.Ali) return dashScopeRerankRequest(input, providerInfo(ChannelType.Ali).baseUrl);
    const path = input.dialect === 'openai-responses' ? '/v1/responses' : OPENAI_PATHS[input.endpoint];
    return { url: openAiUrl(input.channel, path), method: 'POST', ...openAiBody(input, { authorization: `Bearer ${input.channel.key}` }) };
  },

  codec: (channel, model, _body, endpoint) => (endpoint === 'rerank' && channel.type === ChannelType.Ali ? dashScopeRerankCodec(model) : undefined),
  classifyError: classifyOpenAiError,
  modelList: (channel) => ({ url: openAiUrl(channel, '/v1/models'), headers: { authorization: `Bearer ${channel.key}` }, read: idsOfList }),
};

/**
 * The vendor's Anthropic-compatible Messages endpoint (catalogue `anthropicPath`, under the base URL's origin) when the
 * channel turned it on (config `claude_api: "on"`): a `/v1/messages` client such as Claude Code passes through to it.
 */
export function claudeApiOf(channel: ChannelTarget): string | undefined {
  const path = providerInfo(channel.type).anthropicPath;
  if (!path || channel.config.claude_api !== 'on') return undefined;
  const base = channel.baseUrl || providerInfo(channel.type).baseUrl;
  try {
    return `${new URL(base).origin}${path}/v1/messages`;
  } catch {
    return undefined;
  }
}

/** The client's Messages body as it came (model and output cap applied), with both of the vendors' ways to take a key. */
export function claudeApiRequest(input: BuildInput, url: string): UpstreamRequest {
  const headers: Record<string, string> = {
    'x-api-key': input.channel.key,
    authorization: `Bearer ${input.channel.key}`,
    'anthropic-version': input.forwardHeaders?.['anthropic-version'] ?? ANTHROPIC_VERSION,
    'content-type': 'application/json',
  };
  if (input.forwardHeaders?.['anthropic-beta']) headers['anthropic-beta'] = input.forwardHeaders['anthropic-beta'];
  return { url, method: 'POST', headers, body: Buffer.isBuffer(input.body) ? input.body : JSON.stringify(input.body) };
}

/**
 * JSON bodies are serialised with usage requested for streams; uploads pass through byte for byte. An upstream that
 * does not know `stream_options` (`streamUsage` false: Azure before API version 2024-09-01-preview) is sent none, the
 * client's included: it refuses the request for it, and the gateway counts such a stream's usage itself.
 */
export function openAiBody(input: BuildInput, authHeaders: Record<string, string>, streamUsage = true): Pick<UpstreamRequest, 'body' | 'headers'> {
  const headers: Record<string, string> = Object.assign({}, authHeaders);
  if (Buffer.isBuffer(input.body)) {
    headers['content-type'] = input.contentType ?? 'application/octet-stream';
    return { headers, body: input.body };
  }
  let body = input.body;
  if (input.stream && input.dialect === 'openai-chat' && (input.endpoint === 'chat' || input.endpoint === 'completions')) {
    if (streamUsage) {
      const options = typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {};
      body = Object.assign({}, body, { stream_options: Object.assign({}, options, { include_usage: true }) });
    } else if (body.stream_options !== undefined) {
      const { stream_options: _unknownUpstream, ...rest } = body;
      body = rest;
    }
  }
  headers['content-type'] = 'application/json';
  return { headers, body: JSON.stringify(body) };
}

export function classifyOpenAiError(status: number, body: string): ErrorVerdict {
  const message = errorMessageOf(body) ?? `upstream returned HTTP ${status}`;
  const deadKey = status === 401 || DEAD_KEY_HINTS.some((hint) => body.includes(hint));
  const retry = status === 429 || status >= 500 || status === 401 || status === 403 || status === 408;
  return { retry, disableChannel: deadKey, message };
}

/** The message of an upstream error body in any of the common shapes, else the body's start. */
export function errorMessageOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown } | Array<{ error?: { message?: unknown } }>;
    const first = Array.isArray(parsed) ? parsed[0] : parsed;
    if (typeof first?.error === 'string') return first.error;
    if (first?.error && typeof first.error.message === 'string') return first.error.message;
    if (!Array.isArray(parsed) && typeof parsed.message === 'string') return parsed.message;
  } catch {
    /* not JSON */
  }
  return body ? body.slice(0, 300) : undefined;
}
