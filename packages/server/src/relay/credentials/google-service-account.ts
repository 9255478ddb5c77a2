import { readServiceAccountKey, type ServiceAccountKey } from '@model-relay/contract';
import { optional } from '../../lib/optional-modules.js';
import { readVertexChannel, VertexConfigError } from '../providers/vertex/vertex-channel.js';
import { CredentialError, type CredentialSource } from './credential-resolver.js';

/** The token URL google-auth-library posts the signed JWT to, whatever the key file says. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const EXCHANGE_TIMEOUT_MS = 30_000;

/** The key file's fields (type service_account, client_email, private_key): the rules the console's checks use too. */
function readServiceAccount(json: string): ServiceAccountKey {
  const reading = readServiceAccountKey(json);
  if (!reading.ok) throw new CredentialError(reading.message);
  return reading.value;
}

/**
 * A Google service account's OAuth access token (https://developers.google.com/identity/protocols/oauth2/service-account):
 * google-auth-library signs the JWT (RS256, cloud-platform scope) and exchanges it at the key file's `token_uri`
 * (the library itself always posts to Google's token URL; a key file naming another endpoint is honoured by
 * sending that one request there). The token is good until it expires; the CredentialResolver caches it and
 * shares one exchange among concurrent requests.
 */
export const googleServiceAccountSource: CredentialSource = {
  async resolve(channel) {
    let credentials: string;
    try {
      credentials = readVertexChannel(channel).credentials;
    } catch (error) {
      throw new CredentialError(error instanceof VertexConfigError ? error.message : '渠道配置无效');
    }
    const key = readServiceAccount(credentials);
    const tokenUri = typeof key.token_uri === 'string' && /^https?:\/\//.test(key.token_uri) ? key.token_uri : GOOGLE_TOKEN_URL;
    const send: typeof fetch = (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      return fetch(url.startsWith(GOOGLE_TOKEN_URL) ? tokenUri : input, init);
    };
    const client = new (optional.googleAuth().JWT)({
      email: key.client_email,
      key: key.private_key,
      keyId: key.private_key_id,
      scopes: [CLOUD_PLATFORM_SCOPE],
      transporterOptions: { fetchImplementation: send, timeout: EXCHANGE_TIMEOUT_MS },
    });
    let answer;
    try {
      answer = await client.authorize();
    } catch (error) {
      throw new CredentialError(`服务账号登录失败：${(error as Error).message.slice(0, 300)}`);
    }
    if (!answer.access_token) throw new CredentialError('服务账号登录失败：未返回访问令牌');
    return { credentials: { kind: 'bearer', token: answer.access_token }, expiresAt: answer.expiry_date ?? Date.now() + 3_600_000 };
  },
};
