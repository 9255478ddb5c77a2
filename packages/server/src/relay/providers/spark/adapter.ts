import { ChannelType, providerInfo } from '@model-relay/contract';
import { RelayError } from '../../relay-error.js';
import type { BuildInput, ChannelTarget, ProviderAdapter, UpstreamRequest } from '../types.js';
import { sparkRequestFrame } from './request-frame.js';
import { parseSparkKey, requireSparkKey, signSparkUrl } from './sign-url.js';
import { sparkCodec } from './spark-codec.js';
import { classifySparkError } from './spark-errors.js';
import { sparkVersion } from './versions.js';

/** Spark's HTTP OpenAI-compatible API (https://www.xfyun.cn/doc/spark/HTTP调用文档.html), for an https:// channel. */
const HTTP_BASE = 'https://spark-api-open.xf-yun.com';

/** Whether a channel reaches Spark over its WebSocket API: its base URL is ws(s):// or empty (the catalogue's wss://). */
export function speaksWebSocket(channel: ChannelTarget): boolean {
  return /^wss?:\/\//i.test(channel.baseUrl || providerInfo(ChannelType.Xunfei).baseUrl);
}

/**
 * iFlytek Spark (type 18). The key `APPID|APISecret|APIKey` serves both of Spark's APIs:
 *  - a channel whose base URL is the WebSocket API (`wss://spark-api.xf-yun.com`, the catalogue's default and what
 *    one-api's Spark channels carry) opens a socket at the version's path, signed with HMAC-SHA256 (sign-url.ts), and
 *    sends the header/parameter/payload frame; the answer's frames stream back through the transport seam
 *    (transport/websocket.ts) and the codec makes them OpenAI chunks (a client that asked for the whole answer gets
 *    it collected by the core);
 *  - a channel with an http(s):// base URL uses the HTTP OpenAI-compatible API at `/v1/chat/completions` with
 *    `Authorization: Bearer APIKey:APISecret` (a key without `|` is sent as is: the console's APIPassword) and the
 *    version's domain as the model.
 */
export const sparkAdapter: ProviderAdapter = {
  id: 'spark',
  channelTypes: [ChannelType.Xunfei],
  dialects: () => ['openai-chat'],
  supports: (endpoint) => endpoint === 'chat',

  build(input: BuildInput): UpstreamRequest {
    if (Buffer.isBuffer(input.body) || input.endpoint !== 'chat') throw new RelayError(501, '讯飞星火渠道只支持对话接口', 'upstream_error');
    const version = sparkVersion(input.model);
    if (speaksWebSocket(input.channel)) {
      const key = requireSparkKey(input.channel.key);
      const base = new URL(input.channel.baseUrl || providerInfo(ChannelType.Xunfei).baseUrl);
      const url = signSparkUrl(`${base.protocol}//${base.host}${version.path}`, key);
      return { url, method: 'GET', headers: {}, body: JSON.stringify(sparkRequestFrame(input.body, version, key.appId)) };
    }
    const key = parseSparkKey(input.channel.key);
    const bearer = key ? `${key.apiKey}:${key.apiSecret}` : input.channel.key.trim();
    const base = (input.channel.baseUrl || HTTP_BASE).replace(/\/+$/, '');
    const url = `${base}${/\/v1$/.test(base) ? '' : '/v1'}/chat/completions`;
    // Spark's parameter list has no stream_options: its stream ends with the usage anyway.
    const { stream_options: _ignored, ...body } = input.body;
    return { url, method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify({ ...body, model: version.domain }) };
  },

  codec: (_channel, model) => sparkCodec(model),
  classifyError: classifySparkError,
};
