import { describe, expect, it } from 'vitest';
import type { ChannelTarget } from '../providers/types.js';
import { CredentialError, CredentialResolver } from './credential-resolver.js';

const channel = (key: string): ChannelTarget => ({ type: 42, baseUrl: '', key, other: '', config: {} });

describe('CredentialResolver', () => {
  it('reuses a credential until shortly before it expires, and shares one resolution among concurrent requests', async () => {
    let clock = 0;
    let exchanges = 0;
    const resolver = new CredentialResolver(
      {
        'google-service-account': {
          async resolve() {
            exchanges++;
            await new Promise((r) => setTimeout(r, 5));
            return { credentials: { kind: 'bearer', token: `t${exchanges}` }, expiresAt: clock + 3_600_000 };
          },
        },
      },
      () => clock,
    );
    const first = await Promise.all(Array.from({ length: 10 }, () => resolver.resolve('google-service-account', channel('a'))));
    expect(new Set(first.map((c) => (c as { token: string }).token))).toEqual(new Set(['t1']));
    clock = 3_600_000 - 120_000;
    expect(await resolver.resolve('google-service-account', channel('a'))).toEqual({ kind: 'bearer', token: 't1' });
    clock = 3_600_000 - 30_000;
    expect(await resolver.resolve('google-service-account', channel('a'))).toEqual({ kind: 'bearer', token: 't2' });
    // another secret is another credential
    expect(await resolver.resolve('google-service-account', channel('b'))).toEqual({ kind: 'bearer', token: 't3' });
  });

  it('a failure is a CredentialError and is not cached', async () => {
    let calls = 0;
    const resolver = new CredentialResolver({
      'google-service-account': {
        async resolve() {
          calls++;
          if (calls === 1) throw new Error('issuer unreachable');
          return { credentials: { kind: 'bearer', token: 'ok' }, expiresAt: Date.now() + 3_600_000 };
        },
      },
    });
    await expect(resolver.resolve('google-service-account', channel('a'))).rejects.toBeInstanceOf(CredentialError);
    expect(await resolver.resolve('google-service-account', channel('a'))).toEqual({ kind: 'bearer', token: 'ok' });
    await expect(resolver.resolve('aws', channel('a'))).rejects.toBeInstanceOf(CredentialError);
  });
});
