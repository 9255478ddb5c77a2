import { ChannelType, providerInfo } from '@model-relay/contract';
import { RelayError } from '../../relay-error.js';
import { claudeApiRequest, OPENAI_PATHS, openAiBody } from '../openai-compatible/adapter.js';
import type { BuildInput, ChannelTarget, ProviderAdapter, UpstreamRequest } from '../types.js';
import { classifyHunyuanError, hunyuanCodec } from './hunyuan-codec.js';
import { hunyuanChatBody, hunyuanEmbeddingBody } from './hunyuan-body.js';
import { signTc3 } from './tc3-sign.js';

/** Tencent Cloud API 3.0's endpoint for Hunyuan (the catalogue's base URL). */
export const HUNYUAN_API = 'https://hunyuan.tencentcloudapi.com';
/** Hunyuan's OpenAI-compatible API (https://cloud.tencent.com/document/product/1729/111007), reached with an API key. */
export const HUNYUAN_OPENAI = 'https://api.hunyuan.cloud.tencent.com';
const VERSION = '2023-09-01';

/** The credentials of a key `AppId|SecretId|SecretKey` (one-api's format; `SecretId|SecretKey` too); undefined for an API key. */
export function tencentSecret(key: string): { secretId: string; secretKey: string } | undefined {
  if (!key.includes('|')) return undefined;
  const parts = key.split('|').map((part) => part.trim());
  const [secretId, secretKey] = parts.length === 3 ? parts.slice(1) : parts;
  if ((parts.length !== 2 && parts.length !== 3) || !secretId || !secretKey) throw new RelayError(400, '腾讯混元渠道密钥格式应为 AppId|SecretId|SecretKey（或混元 API Key）', 'upstream_error');
  return { secretId, secretKey };
}

/**
 * Tencent Hunyuan (type 23). A key `AppId|SecretId|SecretKey` calls Tencent Cloud API 3.0 (`POST /` on
 * hunyuan.tencentcloudapi.com, or the host of the channel's base URL) with the action in X-TC-Action (ChatCompletions,
 * GetEmbedding), each request signed with TC3-HMAC-SHA256 here; its answers are read by the codec. A plain API key uses
 * the OpenAI-compatible API (api.hunyuan.cloud.tencent.com/v1, Bearer), whose answers are OpenAI's already, and, when
 * the channel turns it on (使用厂商的 Claude 兼容接口), Hunyuan's Anthropic-compatible API at the same host
 * (`/anthropic/v1/messages`, https://cloud.tencent.com/document/product/1729/127293), which takes a `/v1/messages`
 * client (Claude Code) byte for byte. The channel's `other` field, when set, is the region (X-TC-Region; optional
 * for Hunyuan).
 */
export const hunyuanAdapter: ProviderAdapter = {
  id: 'hunyuan',
  channelTypes: [ChannelType.Tencent],
  dialects: (channel) => (hunyuanClaudeApi(channel) ? ['openai-chat', 'anthropic'] : ['openai-chat']),
  supports: (endpoint) => endpoint === 'chat' || endpoint === 'embeddings',

  build(input: BuildInput): UpstreamRequest {
    if (Buffer.isBuffer(input.body) || (input.endpoint !== 'chat' && input.endpoint !== 'embeddings')) throw new RelayError(501, '腾讯混元渠道不支持此接口', 'upstream_error');
    const claudeApi = input.dialect === 'anthropic' ? hunyuanClaudeApi(input.channel) : undefined;
    if (claudeApi) return claudeApiRequest(input, claudeApi);
    const secret = tencentSecret(input.channel.key);
    if (!secret) {
      return { url: `${openAiBase(input.channel)}${OPENAI_PATHS[input.endpoint]}`, method: 'POST', ...openAiBody(input, { authorization: `Bearer ${input.channel.key}` }) };
    }
    const chat = input.endpoint === 'chat';
    const body = JSON.stringify(chat ? hunyuanChatBody(input.body, input.model, input.stream) : hunyuanEmbeddingBody(input.body));
    const url = `${tc3Base(input.channel)}/`;
    const timestamp = Math.floor(Date.now() / 1000);
    const action = chat ? 'ChatCompletions' : 'GetEmbedding';
    const signed = { 'content-type': 'application/json', host: new URL(url).host, 'x-tc-action': action };
    const { authorization } = signTc3({ ...secret, service: 'hunyuan', timestamp, headers: signed, body });
    const headers: Record<string, string> = {
      authorization,
      'content-type': signed['content-type'],
      'x-tc-action': action,
      'x-tc-version': VERSION,
      'x-tc-timestamp': String(timestamp),
    };
    const region = input.channel.other.trim();
    if (region) headers['x-tc-region'] = region;
    return { url, method: 'POST', headers, body };
  },

  // A channel on the Claude API passes Messages answers through as they are (its OpenAI answers need no codec either:
  // only API 3.0 answers in Tencent's envelope).
  codec: (channel, model) => (hunyuanClaudeApi(channel) ? undefined : hunyuanCodec(model)),
  classifyError: classifyHunyuanError,
};

/** The API 3.0 endpoint: the channel's base URL unless it names the OpenAI-compatible host. */
function tc3Base(channel: ChannelTarget): string {
  const base = channel.baseUrl.replace(/\/+$/, '');
  return !base || base.startsWith(HUNYUAN_OPENAI) ? HUNYUAN_API : base.replace(/\/v1$/, '');
}

/** The OpenAI-compatible endpoint: the channel's base URL (its /v1 added) unless it names the API 3.0 host. */
function openAiBase(channel: ChannelTarget): string {
  const base = channel.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  return !base || base === HUNYUAN_API ? HUNYUAN_OPENAI : base;
}

/**
 * Hunyuan's Anthropic-compatible Messages URL, when the channel turned it on (config `claude_api: "on"`) and has an API
 * key (the SecretId triple signs API 3.0 calls only): under the OpenAI-compatible host, not API 3.0's.
 */
export function hunyuanClaudeApi(channel: ChannelTarget): string | undefined {
  const path = providerInfo(ChannelType.Tencent).anthropicPath;
  if (!path || channel.config.claude_api !== 'on' || channel.key.includes('|')) return undefined;
  try {
    return `${new URL(openAiBase(channel)).origin}${path}/v1/messages`;
  } catch {
    return undefined;
  }
}
