import { createHash, timingSafeEqual } from 'node:crypto';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import { modeOf, type MockMode, type RecordedRequest } from './mock-server.js';

/**
 * Checks an AWS Signature Version 4 the way AWS does
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html): the signature is
 * computed again from the request as received (method, encoded path, query, the signed headers, the SHA-256 of the
 * body) with the secret key the mock knows for the access key id, using the same library the AWS SDK signs with,
 * and compared. A wrong secret, an altered body or header, a wrong service, an old date: all 403.
 */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}
export type SigV4Result = { ok: true; accessKeyId: string; region: string; mode: MockMode } | { ok: false; error: string; message?: string };

/** Access keys are `<mode>` or `<mode>:<anything>`; the secret the mock expects for them is derived from the id. */
export function bedrockCredentials(mode: MockMode | `${MockMode}:${string}` = 'ok'): AwsCredentials {
  return { accessKeyId: mode, secretAccessKey: secretFor(mode) };
}
const secretFor = (accessKeyId: string) => `mock-secret/${createHash('sha256').update(accessKeyId).digest('base64url').slice(0, 32)}`;

const AUTH = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;

function amzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])) : undefined;
}
const iso = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

export async function verifySigV4(recorded: RecordedRequest, expected: { service: string; region?: string }): Promise<SigV4Result> {
  const authorization = recorded.headers.authorization;
  if (!authorization) return { ok: false, error: 'missing_token' };
  const parts = AUTH.exec(String(authorization));
  if (!parts) return { ok: false, error: 'incomplete_signature' };
  const [, accessKeyId, scopeDate, region, service, signedHeaders, signature] = parts;
  const mode = modeOf(accessKeyId);
  if (!mode) return { ok: false, error: 'unrecognized_client' };
  if (recorded.headers['x-amz-security-token'] !== undefined) return { ok: false, error: 'unrecognized_client' };
  if (service !== expected.service) return { ok: false, error: 'signature_mismatch', message: `Credential should be scoped to correct service: '${expected.service}'. ` };
  if (expected.region && region !== expected.region) return { ok: false, error: 'signature_mismatch', message: `Credential should be scoped to a valid region. ` };

  const dateHeader = String(recorded.headers['x-amz-date'] ?? '');
  const signingDate = amzDate(dateHeader);
  if (!signingDate || !signedHeaders.split(';').includes('x-amz-date')) return { ok: false, error: 'incomplete_signature', message: 'Authorization header requires existence of either a \'X-Amz-Date\' or a \'Date\' header.' };
  if (dateHeader.slice(0, 8) !== scopeDate) return { ok: false, error: 'signature_mismatch', message: `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${scopeDate}' != '${dateHeader.slice(0, 8)}', from 'X-Amz-Date'.` };
  const now = Date.now();
  if (Math.abs(now - signingDate.getTime()) > 15 * 60_000) {
    return { ok: false, error: 'signature_mismatch', message: `Signature expired: ${dateHeader} is now earlier than ${iso(new Date(now - 15 * 60_000))} (${iso(new Date(now))} - 15 min.)` };
  }

  // Only what the caller signed, with the values that arrived; the payload hash is the one of the body that arrived.
  const headers: Record<string, string> = {};
  for (const name of signedHeaders.split(';')) {
    const value = recorded.headers[name];
    if (value === undefined) return { ok: false, error: 'signature_mismatch' };
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  if (headers['x-amz-content-sha256'] !== undefined && headers['x-amz-content-sha256'] !== 'UNSIGNED-PAYLOAD') {
    const actual = createHash('sha256').update(recorded.rawBody).digest('hex');
    if (headers['x-amz-content-sha256'] !== actual) return { ok: false, error: 'signature_mismatch' };
  }
  const signer = new SignatureV4({ service, region, credentials: { accessKeyId, secretAccessKey: secretFor(accessKeyId) }, sha256: Hash.bind(null, 'sha256'), uriEscapePath: true });
  const host = String(recorded.headers.host ?? 'localhost');
  const signed = await signer.sign(
    { method: recorded.method, protocol: 'http:', hostname: host.split(':')[0], path: recorded.path, query: recorded.query, headers, body: recorded.rawBody },
    { signingDate },
  );
  const ours = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1] ?? '';
  const same = ours.length === signature.length && timingSafeEqual(Buffer.from(ours), Buffer.from(signature));
  return same ? { ok: true, accessKeyId, region, mode } : { ok: false, error: 'signature_mismatch' };
}
