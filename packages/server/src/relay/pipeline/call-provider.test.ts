import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialError, CredentialResolver } from '../credentials/credential-resolver.js';
import type { ChannelTarget, ProviderAdapter, UpstreamRequest } from '../providers/types.js';
import { UpstreamPools } from '../transport/upstream-pools.js';
import { callProvider, UpstreamUnreachable } from './call-provider.js';

/** One call to a provider, as the relay and the channel test both make it: resolve -> build -> sign -> send. */
describe('callProvider', () => {
  let server: Server;
  let url: string;
  const received: IncomingHttpHeaders[] = [];
  const pools = new UpstreamPools(5_000);
  let exchanges = 0;
  const credentials = new CredentialResolver({
    aws: {
      async resolve(channel) {
        exchanges++;
        if (channel.key === 'broken') throw new Error('issuer refused');
        return { credentials: { kind: 'bearer', token: `token-for-${channel.key}` }, expiresAt: Date.now() + 3_600_000 };
      },
      async sign(request, resolved) {
        return { ...request, headers: { ...request.headers, 'x-signed': resolved.kind === 'bearer' ? resolved.token : '' } };
      },
    },
  });
  const signed = { credentials: 'aws' } as ProviderAdapter;
  const plain = {} as ProviderAdapter;
  const target = (key: string): ChannelTarget => ({ type: 33, baseUrl: url, key, other: '', config: {} });
  const request = (target: ChannelTarget, sign = true): UpstreamRequest => ({
    url: `${url}/v1/chat/completions`,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${target.credentials?.kind === 'bearer' ? target.credentials.token : target.key}` },
    body: '{}',
    ...(sign ? { sign: { scheme: 'aws-sigv4' as const, service: 'bedrock' } } : {}),
  });

  beforeAll(async () => {
    server = createServer((req, res) => {
      received.push(req.headers);
      req.resume();
      req.on('end', () => {
        res.writeHead(req.headers['x-signed'] ? 200 : 500, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await pools.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('resolves the credentials before building, signs the built request and sends it; any status is an answer', async () => {
    received.length = 0;
    const channel = target('good');
    const response = await callProvider({ pools, credentials }, signed, channel, () => request(channel), AbortSignal.timeout(5_000));
    expect(response.status).toBe(200);
    expect(await response.body.text()).toBe('{"ok":true}');
    expect(channel.credentials).toEqual({ kind: 'bearer', token: 'token-for-good' });
    expect(received.map((h) => [h.authorization, h['x-signed']])).toEqual([['Bearer token-for-good', 'token-for-good']]);

    // A request its scheme does not sign goes as built; the upstream's error status is still an answer.
    const unsigned = await callProvider({ pools, credentials }, signed, channel, () => Promise.resolve(request(channel, false)), AbortSignal.timeout(5_000));
    expect(unsigned.status).toBe(500);
    await unsigned.body.text();
  });

  it('credentials that cannot be had are a CredentialError: nothing is built or sent', async () => {
    received.length = 0;
    let built = 0;
    const channel = target('broken');
    const failing = callProvider({ pools, credentials }, signed, channel, () => (built++, request(channel)), AbortSignal.timeout(5_000));
    await expect(failing).rejects.toBeInstanceOf(CredentialError);
    await expect(failing).rejects.toThrow('issuer refused');
    expect([built, received.length]).toEqual([0, 0]);
  });

  it('a provider without a credential scheme resolves nothing; an upstream that cannot be reached is UpstreamUnreachable', async () => {
    const before = exchanges;
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((resolve) => dead.close(resolve));
    const channel = { ...target('plain'), baseUrl: `http://127.0.0.1:${port}` };
    const failing = callProvider({ pools, credentials }, plain, channel, () => ({ ...request(channel, false), url: `http://127.0.0.1:${port}/v1/chat/completions` }), AbortSignal.timeout(5_000));
    const error = await failing.catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(UpstreamUnreachable);
    expect((error as UpstreamUnreachable).cause).toMatchObject({ code: 'ECONNREFUSED' });
    expect(exchanges).toBe(before);
    expect(channel.credentials).toBeUndefined();
  });
});
