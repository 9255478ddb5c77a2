import { RelayError } from '../../relay-error.js';

/** One version of Spark's chat API: its WebSocket path and the `domain` it takes (the HTTP API's `model`). */
export interface SparkVersion {
  path: string;
  domain: string;
  /** Largest `max_tokens` the version takes. */
  maxTokens: number;
}

/**
 * The versions of https://www.xfyun.cn/doc/spark/Web.html §1.2 (read 2026-11-23): Lite, Pro, Pro-128K, Max, Max-32K and
 * 4.0 Ultra, each at its own path of spark-api.xf-yun.com with its own domain. V2.1 (`generalv2`) is retired by
 * iFlytek but still named by one-api channels, so it is kept reachable.
 */
const LITE: SparkVersion = { path: '/v1.1/chat', domain: 'lite', maxTokens: 4096 };
const V2: SparkVersion = { path: '/v2.1/chat', domain: 'generalv2', maxTokens: 8192 };
const PRO: SparkVersion = { path: '/v3.1/chat', domain: 'generalv3', maxTokens: 8192 };
const PRO_128K: SparkVersion = { path: '/chat/pro-128k', domain: 'pro-128k', maxTokens: 8192 };
const MAX: SparkVersion = { path: '/v3.5/chat', domain: 'generalv3.5', maxTokens: 8192 };
const MAX_32K: SparkVersion = { path: '/chat/max-32k', domain: 'max-32k', maxTokens: 32768 };
const ULTRA: SparkVersion = { path: '/v4.0/chat', domain: '4.0Ultra', maxTokens: 32768 };

/** Model names, lower-cased: ours (Spark-Max), one-api's (SparkDesk-v3.5) and Spark's own domains (generalv3.5). */
const BY_NAME: Record<string, SparkVersion> = {
  'spark-lite': LITE, lite: LITE, general: LITE, sparkdesk: LITE, 'sparkdesk-v1.1': LITE,
  'sparkdesk-v2.1': V2, generalv2: V2,
  'spark-pro': PRO, generalv3: PRO, 'sparkdesk-v3.1': PRO,
  'spark-pro-128k': PRO_128K, 'pro-128k': PRO_128K, 'sparkdesk-v3.1-128k': PRO_128K,
  'spark-max': MAX, 'generalv3.5': MAX, 'sparkdesk-v3.5': MAX,
  'spark-max-32k': MAX_32K, 'max-32k': MAX_32K, 'sparkdesk-v3.5-32k': MAX_32K,
  'spark-4.0-ultra': ULTRA, 'spark-ultra': ULTRA, '4.0ultra': ULTRA, 'sparkdesk-v4.0': ULTRA,
};

/** The version a model name means; a name Spark does not know is refused before any call. */
export function sparkVersion(model: string): SparkVersion {
  const version = BY_NAME[model.trim().toLowerCase()];
  if (!version) throw new RelayError(400, `讯飞星火没有模型 ${model}（可用：Spark-Lite、Spark-Pro、Spark-Pro-128K、Spark-Max、Spark-Max-32K、Spark-4.0-Ultra）`, 'invalid_request_error', 'model_not_found');
  return version;
}
