import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockVertex, type MockVertex } from '../../test-support/upstreams/vertex.js';
import type { ChannelTarget } from '../providers/types.js';
import { CredentialError, CredentialResolver } from './credential-resolver.js';
import { googleServiceAccountSource } from './google-service-account.js';

let mock: MockVertex;
beforeAll(async () => {
  mock = await startMockVertex();
});
afterAll(() => mock.close());

const channel = (credentials: unknown): ChannelTarget => ({
  type: 42,
  baseUrl: mock.url,
  key: '',
  other: '',
  config: { region: 'us-central1', vertex_ai_project_id: 'relay-test-project', vertex_ai_adc: typeof credentials === 'string' ? credentials : JSON.stringify(credentials) },
});

describe('google-service-account credentials', () => {
  it('exchanges the signed JWT at the key file’s token_uri for a bearer token good until it expires', async () => {
    const before = mock.tokenExchanges.length;
    const started = Date.now();
    const { credentials, expiresAt } = await googleServiceAccountSource.resolve(channel(mock.serviceAccount()));
    expect(credentials).toMatchObject({ kind: 'bearer', token: expect.stringMatching(/^ya29\.c\./) });
    expect(expiresAt).toBeGreaterThanOrEqual(started + 3_599_000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3_599_000 + 1000);
    expect(mock.tokenExchanges.slice(before)).toEqual([expect.objectContaining({ email: 'ok@relay-test-project.iam.gserviceaccount.com', scope: 'https://www.googleapis.com/auth/cloud-platform' })]);
  });

  it('through the resolver, many concurrent and later requests share one exchange', async () => {
    const resolver = new CredentialResolver({ 'google-service-account': googleServiceAccountSource });
    const target = channel(mock.serviceAccount());
    const before = mock.tokenExchanges.length;
    const tokens = await Promise.all(Array.from({ length: 25 }, () => resolver.resolve('google-service-account', target)));
    tokens.push(await resolver.resolve('google-service-account', target));
    expect(new Set(tokens.map((t) => (t as { token: string }).token)).size).toBe(1);
    expect(mock.tokenExchanges.length - before).toBe(1);
  });

  it('refuses what cannot log in, with the reason', async () => {
    const refused = googleServiceAccountSource.resolve(channel(mock.serviceAccount({ revoked: true })));
    await expect(refused).rejects.toBeInstanceOf(CredentialError);
    await expect(refused).rejects.toThrow(/invalid_grant/);
    await expect(googleServiceAccountSource.resolve(channel({ type: 'authorized_user', refresh_token: 'x' }))).rejects.toThrow('仅支持服务账号');
    await expect(googleServiceAccountSource.resolve(channel('{"type": "service_account"'))).rejects.toThrow('凭证');
    await expect(googleServiceAccountSource.resolve(channel({ type: 'service_account', client_email: 'a@b' }))).rejects.toThrow('private_key');
  });
});
