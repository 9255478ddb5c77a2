import { createHmac } from 'node:crypto';
import { RelayError } from '../../relay-error.js';

/** A Spark key as docs/console.md §5 writes it (`APPID|APISecret|APIKey`, type 18), what one-api's Spark channels carry. */
export interface SparkKey {
  appId: string;
  apiSecret: string;
  apiKey: string;
}

export function parseSparkKey(key: string): SparkKey | undefined {
  const parts = key.split('|').map((part) => part.trim());
  if (parts.length !== 3 || parts.some((part) => !part)) return undefined;
  return { appId: parts[0], apiSecret: parts[1], apiKey: parts[2] };
}

export function requireSparkKey(key: string): SparkKey {
  const parsed = parseSparkKey(key);
  if (!parsed) throw new RelayError(502, '讯飞星火渠道的密钥格式应为 APPID|APISecret|APIKey', 'upstream_error', 'upstream_error');
  return parsed;
}

/**
 * The signed URL of a Spark WebSocket call (https://www.xfyun.cn/doc/spark/general_url_authentication.html): HMAC-SHA256
 * with the APISecret over `host: {host}\ndate: {RFC 1123 date}\nGET {path} HTTP/1.1`, base64; `authorization` is the
 * base64 of `api_key="…", algorithm="hmac-sha256", headers="host date request-line", signature="…"`; the query carries
 * authorization, date and host. The date must be within 300 s of iFlytek's clock, so a URL is signed per call.
 */
export function signSparkUrl(endpoint: string, key: SparkKey, now = Date.now()): string {
  const url = new URL(endpoint);
  const date = new Date(now).toUTCString();
  const signed = `host: ${url.host}\ndate: ${date}\nGET ${url.pathname} HTTP/1.1`;
  const signature = createHmac('sha256', key.apiSecret).update(signed).digest('base64');
  const authorization = Buffer.from(`api_key="${key.apiKey}", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`).toString('base64');
  url.search = new URLSearchParams({ authorization, date, host: url.host }).toString();
  return url.toString();
}
