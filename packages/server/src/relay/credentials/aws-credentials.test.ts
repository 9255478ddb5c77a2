import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bedrockCredentials } from '../../test-support/upstreams/bedrock.js';
import { verifySigV4 } from '../../test-support/upstreams/bedrock-sigv4.js';
import type { RecordedRequest } from '../../test-support/upstreams/mock-server.js';
import type { ChannelTarget, UpstreamRequest } from '../providers/types.js';
import { awsCredentialSource, parseAwsKey } from './aws-credentials.js';
import { CredentialError, CredentialResolver } from './credential-resolver.js';

const channel = (key: string, config: Record<string, unknown> = {}): ChannelTarget => ({ type: 33, baseUrl: '', key, other: '', config });
const { accessKeyId, secretAccessKey } = bedrockCredentials('ok');

/** The request as a server receives it: what the Bedrock mock's verifier checks. */
function received(request: UpstreamRequest, body = request.body): RecordedRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v])),
    body: undefined,
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body ?? ''),
  };
}

describe('aws credentials', () => {
  it('reads AK|SK|Region from the key, or the config fields the console keeps', () => {
    expect(parseAwsKey(channel(' AKIA1 | secret/1 | us-west-2 '))).toEqual({ kind: 'aws', accessKeyId: 'AKIA1', secretAccessKey: 'secret/1', region: 'us-west-2' });
    expect(parseAwsKey(channel('', { ak: 'AKIA2', sk: 's2', region: 'eu-central-1' }))).toEqual({ kind: 'aws', accessKeyId: 'AKIA2', secretAccessKey: 's2', region: 'eu-central-1' });
    expect(parseAwsKey(channel('AKIA3|s3', { region: 'ap-northeast-1' })).region).toBe('ap-northeast-1');
  });

  it('refuses a key it cannot use, saying what is wrong', () => {
    expect(() => parseAwsKey(channel('AKIA-only'))).toThrow(new CredentialError('AWS 渠道的密钥格式应为 AK|SK|Region'));
    expect(() => parseAwsKey(channel('AKIA|secret'))).toThrow(/缺少区域/);
    expect(() => parseAwsKey(channel('AKIA|secret|Mars 1'))).toThrow(/AWS 区域格式不正确/);
  });

  it('never expires: one resolution serves every later request', async () => {
    let clock = 0;
    const resolver = new CredentialResolver({ aws: awsCredentialSource }, () => clock);
    const first = await resolver.resolve('aws', channel(`${accessKeyId}|${secretAccessKey}|us-east-1`));
    clock = 10 * 365 * 24 * 3_600_000;
    expect(await resolver.resolve('aws', channel(`${accessKeyId}|${secretAccessKey}|us-east-1`))).toBe(first);
    await expect(resolver.resolve('aws', channel('broken'))).rejects.toBeInstanceOf(CredentialError);
  });

  it('signs with SigV4 for the service and region, over exactly the bytes it hands back to send', async () => {
    const credentials = parseAwsKey(channel(`${accessKeyId}|${secretAccessKey}|us-east-1`));
    const request: UpstreamRequest = {
      url: 'http://127.0.0.1:8123/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse?trace=a%20b',
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'héllo ✓' }] }] }),
      sign: { scheme: 'aws-sigv4', service: 'bedrock' },
    };
    const signed = await awsCredentialSource.sign!(request, credentials);
    expect(Buffer.isBuffer(signed.body)).toBe(true);
    expect((signed.body as Buffer).equals(Buffer.from(request.body as string, 'utf8'))).toBe(true);
    expect(signed.headers.host).toBe('127.0.0.1:8123');
    expect(signed.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(signed.body as Buffer).digest('hex'));
    expect(signed.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=ok\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/);

    // The Bedrock mock recomputes the signature from what arrives, with the AWS SDK's own signer.
    expect(await verifySigV4(received(signed), { service: 'bedrock', region: 'us-east-1' })).toMatchObject({ ok: true, accessKeyId: 'ok' });
    expect(await verifySigV4(received(signed, Buffer.from('{"messages":[]}')), { service: 'bedrock' })).toMatchObject({ ok: false, error: 'signature_mismatch' });
    expect(await verifySigV4(received(signed), { service: 'bedrock', region: 'us-west-2' })).toMatchObject({ ok: false });
    const wrong = await awsCredentialSource.sign!(request, { ...credentials, secretAccessKey: 'not-it' });
    expect(await verifySigV4(received(wrong), { service: 'bedrock' })).toMatchObject({ ok: false, error: 'signature_mismatch' });
  });

  it('leaves a request that asks for no signing as it is', async () => {
    const request: UpstreamRequest = { url: 'https://example.com/x', method: 'POST', headers: {}, body: '{}' };
    expect(await awsCredentialSource.sign!(request, parseAwsKey(channel('a|b|us-east-1')))).toBe(request);
  });
});
