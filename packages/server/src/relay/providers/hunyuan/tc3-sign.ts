import { createHash, createHmac } from 'node:crypto';

/** What one TC3-HMAC-SHA256 signature covers. */
export interface Tc3Request {
  secretId: string;
  secretKey: string;
  /** The product's service name, the first label of its host: `hunyuan`, `cvm`. */
  service: string;
  /** Seconds since the epoch: the X-TC-Timestamp header. Its UTC date scopes the credential. */
  timestamp: number;
  method?: 'POST' | 'GET';
  /** The query string of a GET (already encoded); empty for a POST. */
  query?: string;
  /** The headers to sign, by lower-case name; `content-type` and `host` are required. */
  headers: Record<string, string>;
  /** The exact bytes sent. */
  body: string | Buffer;
}

export interface Tc3Signature {
  authorization: string;
  signature: string;
  canonicalRequest: string;
  stringToSign: string;
  credentialScope: string;
  signedHeaders: string;
}

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/**
 * Tencent Cloud API 3.0 signature v3 (TC3-HMAC-SHA256), as documented in "签名方法 v3"
 * (every product's API docs carry the page, e.g. CVM's https://cloud.tencent.com/document/api/213/30654; Hunyuan's
 * is under 调用方式 at https://cloud.tencent.com/document/api/1729/101840):
 *  1. CanonicalRequest = method \n / \n query \n canonical headers \n signed headers \n hex(sha256(body)), each signed
 *     header `name:value\n` in lower case and trimmed, names sorted;
 *  2. StringToSign = TC3-HMAC-SHA256 \n timestamp \n date/service/tc3_request \n hex(sha256(CanonicalRequest)), the date
 *     being the UTC date of the timestamp;
 *  3. the key is HMAC("TC3" + SecretKey, date) -> HMAC(·, service) -> HMAC(·, "tc3_request"), and the signature is
 *     hex(HMAC(key, StringToSign));
 *  4. Authorization = TC3-HMAC-SHA256 Credential=SecretId/scope, SignedHeaders=..., Signature=...
 * Pure: the caller gives the time.
 */
export function signTc3(request: Tc3Request): Tc3Signature {
  const names = Object.keys(request.headers)
    .map((name) => name.toLowerCase())
    .sort();
  const lower = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]));
  const canonicalHeaders = names.map((name) => `${name}:${lower[name].trim().toLowerCase()}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [request.method ?? 'POST', '/', request.query ?? '', canonicalHeaders, signedHeaders, sha256Hex(request.body)].join('\n');
  const date = new Date(request.timestamp * 1000).toISOString().slice(0, 10);
  const credentialScope = `${date}/${request.service}/tc3_request`;
  const stringToSign = ['TC3-HMAC-SHA256', String(request.timestamp), credentialScope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(`TC3${request.secretKey}`, date), request.service), 'tc3_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  const authorization = `TC3-HMAC-SHA256 Credential=${request.secretId}/${credentialScope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return { authorization, signature, canonicalRequest, stringToSign, credentialScope, signedHeaders };
}
