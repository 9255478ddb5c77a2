import { ChannelType } from '@model-relay/contract';
import { RelayError } from '../../relay-error.js';
import { classifyOpenAiError, openAiBody } from '../openai-compatible/adapter.js';
import type { BuildInput, ChannelTarget, Endpoint, ErrorVerdict, ProviderAdapter, UpstreamRequest } from '../types.js';
import { classifyErnieError, ernieCodec } from './ernie-answer.js';
import { ernieChatBody, ernieEmbeddingsBody, ernieRerankBody, v2Model } from './ernie-request.js';
import { erniePath } from './endpoints.js';

/** Where the v1 API and the token endpoint live (https://cloud.baidu.com/doc/WENXINWORKSHOP/s/Ilkkrb0i5, 服务域名). */
export const ERNIE_BASE_URL = 'https://aip.baidubce.com';
/** Qianfan's v2 API, OpenAI-compatible (https://cloud.baidu.com/doc/qianfan-api/s/3m7of64lb). */
export const QIANFAN_V2_BASE_URL = 'https://qianfan.baidubce.com';

/** A Qianfan API Key of the single-credential kind, sent as a bearer token to the v2 API. */
export const isV2Key = (key: string) => key.trim().startsWith('bce-v3/');

/** The v2 API's base: the channel's own base URL, unless it is the v1 host (what the catalogue fills in). */
function v2Base(channel: ChannelTarget): string {
  const base = channel.baseUrl.replace(/\/+$/, '').replace(/\/v2$/, '');
  return base && !/^https?:\/\/aip\.baidubce\.com$/i.test(base) ? base : QIANFAN_V2_BASE_URL;
}

const V2_PATHS: Partial<Record<Endpoint, string>> = { chat: '/v2/chat/completions', embeddings: '/v2/embeddings', rerank: '/v2/rerankers' };

/**
 * Baidu Wenxin Qianfan (type 15). A one-api key `APIKey|SecretKey` is exchanged for an access token (credential
 * source `baidu-oauth`, cached for its life and shared) and calls ERNIE's v1 API, the model in the URL and the token
 * in the query: `/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/{endpoint}?access_token=...`, with ERNIE's own bodies,
 * answers and stream (its codec). A `bce-v3/...` key calls the v2 API, OpenAI's wire with `Authorization: Bearer`.
 */
export const baiduAdapter: ProviderAdapter = {
  id: 'baidu',
  channelTypes: [ChannelType.Baidu],
  credentials: 'baidu-oauth',
  dialects: () => ['openai-chat'],
  supports: (endpoint) => endpoint === 'chat' || endpoint === 'embeddings' || endpoint === 'rerank',

  build(input: BuildInput): UpstreamRequest {
    if (Buffer.isBuffer(input.body)) throw new RelayError(501, '文心千帆渠道不支持此接口', 'upstream_error');
    const { channel } = input;
    if (isV2Key(channel.key)) {
      const path = V2_PATHS[input.endpoint];
      if (!path) throw new RelayError(501, '文心千帆渠道不支持此接口', 'upstream_error');
      return { url: `${v2Base(channel)}${path}`, method: 'POST', ...openAiBody({ ...input, body: { ...input.body, model: v2Model(input.model) } }, { authorization: `Bearer ${channel.key.trim()}` }) };
    }
    const token = channel.credentials?.kind === 'bearer' ? channel.credentials.token : '';
    const base = channel.baseUrl.replace(/\/+$/, '') || ERNIE_BASE_URL;
    let path: string;
    let body: Record<string, unknown>;
    if (input.endpoint === 'embeddings') [path, body] = [erniePath('embeddings', input.model), ernieEmbeddingsBody(input.body)];
    else if (input.endpoint === 'rerank') [path, body] = [erniePath('reranker', input.model), ernieRerankBody(input.body)];
    else if (input.endpoint === 'chat') [path, body] = [erniePath('chat', input.model), ernieChatBody(input.body, input.model, input.stream)];
    else throw new RelayError(501, '文心千帆渠道不支持此接口', 'upstream_error');
    return {
      // The pipeline resolves the token before building; without one (a URL shown, not sent) the query is left off.
      url: token ? `${base}${path}?access_token=${encodeURIComponent(token)}` : `${base}${path}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    };
  },

  codec: (channel, model) => (isV2Key(channel.key) ? undefined : ernieCodec(model)),

  classifyError(status: number, body: string): ErrorVerdict {
    const ernie = classifyErnieError(body);
    if (ernie) return ernie;
    // The v2 API answers OpenAI's way; a refused bearer key (401) is a dead key.
    return classifyOpenAiError(status, body);
  },
};
