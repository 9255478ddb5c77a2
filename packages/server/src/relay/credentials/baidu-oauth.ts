import { requestJson } from '../../integrations/http-json.js';
import { isRecord } from '../dialects/shared.js';
import { ERNIE_BASE_URL, isV2Key } from '../providers/baidu/adapter.js';
import type { ChannelTarget } from '../providers/types.js';
import { CredentialError, type CredentialSource } from './credential-resolver.js';

const EXCHANGE_TIMEOUT_MS = 30_000;

/** The API Key and Secret Key of a one-api Baidu key `APIKey|SecretKey`; a CredentialError saying what is wrong otherwise. */
export function parseBaiduKey(channel: ChannelTarget): { apiKey: string; secretKey: string } {
  const [apiKey, secretKey, ...rest] = channel.key.split('|').map((part) => part.trim());
  if (!apiKey || !secretKey || rest.length > 0) throw new CredentialError('百度渠道的密钥格式应为 APIKey|SecretKey，或千帆 v2 的 API Key（bce-v3/...）');
  return { apiKey, secretKey };
}

/**
 * Baidu's access token for an application's API Key and Secret Key, by OAuth 2.0 client credentials
 * (https://cloud.baidu.com/doc/WENXINWORKSHOP/s/Ilkkrb0i5, 获取access_token): `POST /oauth/2.0/token` with
 * grant_type, client_id and client_secret in the query, answered `{access_token, expires_in, ...}` (30 days) or
 * `{error, error_description}`. The token is good until `expires_in`; the CredentialResolver caches it until a
 * minute before and shares one exchange among concurrent requests, and forgets it when ERNIE says it is no longer
 * valid (error 110/111, read as a 401). The exchange goes to the channel's base URL when it has one (a proxy of
 * aip.baidubce.com). A Qianfan v2 key (`bce-v3/...`) needs no exchange: it is the bearer token itself.
 */
export const baiduOAuthSource: CredentialSource = {
  async resolve(channel) {
    if (isV2Key(channel.key)) return { credentials: { kind: 'bearer', token: channel.key.trim() }, expiresAt: Number.POSITIVE_INFINITY };
    const { apiKey, secretKey } = parseBaiduKey(channel);
    const base = channel.baseUrl.replace(/\/+$/, '') || ERNIE_BASE_URL;
    const query = new URLSearchParams({ grant_type: 'client_credentials', client_id: apiKey, client_secret: secretKey });
    const started = Date.now();
    let answer;
    try {
      answer = await requestJson(`${base}/oauth/2.0/token?${query}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '', timeoutMs: EXCHANGE_TIMEOUT_MS });
    } catch (error) {
      throw new CredentialError(`百度 access_token 获取失败：${(error as Error).message.slice(0, 200)}`);
    }
    const body = isRecord(answer.body) ? answer.body : {};
    if (typeof body.access_token !== 'string' || !body.access_token) {
      const reason = [body.error, body.error_description].filter((v) => typeof v === 'string' && v).join(': ') || `HTTP ${answer.status}`;
      throw new CredentialError(`百度 access_token 获取失败：${reason.slice(0, 200)}`);
    }
    const seconds = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
    return { credentials: { kind: 'bearer', token: body.access_token }, expiresAt: started + seconds * 1000 };
  },
};
