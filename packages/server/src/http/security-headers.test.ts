import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import type { AppContext } from '../context.js';
import { closeContext, createContext } from '../create-context.js';
import { startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken } from '../test-support/seed.js';
import { applySecurityHeaders, consolePolicy } from './security-headers.js';

let dir: string;
let ctx: AppContext;
let app: FastifyInstance;
let mock: MockUpstream;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mr-web-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="/assets/index.js"></script>');
  writeFileSync(join(dir, 'assets', 'index.js'), 'console.log(1)');
  ctx = await createContext(loadConfig({ SQLITE_PATH: ':memory:', GLOBAL_API_RATE_LIMIT: '0', CRITICAL_RATE_LIMIT: '0', RELAY_CACHE_MS: '0' }));
  app = await buildApp(ctx, { webDist: dir });
  mock = await startMockUpstream();
});
afterAll(async () => {
  await app.close();
  await closeContext(ctx);
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

const policyOf = (headers: Record<string, unknown>) =>
  Object.fromEntries(
    String(headers['content-security-policy'])
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values]),
  );

function expectCommonHeaders(headers: Record<string, unknown>) {
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['referrer-policy']).toBe('same-origin');
  expect(policyOf(headers)['frame-ancestors']).toEqual(["'none'"]);
}

// covers issue 10 defect 10: no CSP / X-Frame-Options / nosniff, the console could be framed
describe('security headers', () => {
  it('the console shell and its assets: a policy the console works with, and no framing', async () => {
    for (const url of ['/', '/token', '/chat', '/assets/index.js']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expectCommonHeaders(res.headers);
      const policy = policyOf(res.headers);
      expect(policy['script-src']).toEqual(["'self'", 'https://challenges.cloudflare.com']);
      expect(policy['style-src']).toEqual(["'self'", "'unsafe-inline'"]);
      expect(policy['connect-src']).toContain("'self'");
      expect(policy['object-src']).toEqual(["'none'"]);
      expect(policy['frame-src']).toEqual(['https://challenges.cloudflare.com']);
    }
  });

  it('frames the configured chat link, home page and about page (and nothing else)', async () => {
    await ctx.options.set('ChatLink', 'https://chat.example.com/#/?settings=1');
    await ctx.options.set('About', 'http://docs.example.org:8080/about');
    await ctx.options.set('HomePageContent', '# Welcome, not a link');
    const policy = policyOf((await app.inject({ method: 'GET', url: '/chat' })).headers);
    expect(policy['frame-src']).toEqual(['https://chat.example.com', 'http://docs.example.org:8080', 'https://challenges.cloudflare.com']);
    await ctx.options.set('ChatLink', '');
    await ctx.options.set('About', '');
  });

  it('a Turnstile served from elsewhere (TURNSTILE_SCRIPT_URL) is what the policy allows', () => {
    const policy = Object.fromEntries(consolePolicy(ctx.options, 'http://127.0.0.1:4567/turnstile/v0/api.js').split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(policy['script-src']).toEqual(["'self'", 'http://127.0.0.1:4567']);
    expect(policy['frame-src']).toEqual(['http://127.0.0.1:4567']);
  });

  it('JSON answers of /api and /v1 allow nothing, errors and 404s included', async () => {
    for (const url of ['/api/status', '/api/user/self', '/api/nope', '/v1/models', '/v1/nope']) {
      const res = await app.inject({ method: 'GET', url });
      expectCommonHeaders(res.headers);
      expect(res.headers['content-security-policy'], url).toBe("default-src 'none'; frame-ancestors 'none'");
    }
  });

  it('a relayed stream (written around fastify) carries them too', async () => {
    const root = (await ctx.repositories.users.findByUsername('root'))!;
    await seedChannel(ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(ctx.storage, root.id, { unlimited: true });
    const res = await app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer sk-${token.key}` },
      payload: { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/event-stream/);
    expectCommonHeaders(res.headers);
  });

  // Browser chat clients (NextChat, LobeHub) call /v1 from their own origin: a successful answer without the CORS
  // header is refused by the browser even though the request was served and billed.
  it('every relay answer carries CORS and the security headers: whole, streamed, refused, in each dialect', async () => {
    const root = (await ctx.repositories.users.findByUsername('root'))!;
    await seedChannel(ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(ctx.storage, root.id, { unlimited: true });
    const answers = [
      { stream: false, key: `sk-${token.key}`, status: 200 },
      { stream: true, key: `sk-${token.key}`, status: 200 },
      { stream: true, key: 'sk-wrong', status: 401 },
    ];
    for (const { stream, key, status } of answers) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}`, origin: 'https://chat.example.org' },
        payload: { model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(res.statusCode, `stream ${stream}`).toBe(status);
      expect(res.headers['access-control-allow-origin'], `stream ${stream}`).toBe('*');
      expect(res.headers['x-request-id']).toMatch(/\S/);
      expectCommonHeaders(res.headers);
    }
  });

  it('HSTS only over HTTPS', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/status' })).headers['strict-transport-security']).toBeUndefined();
    const headers = new Map<string, unknown>();
    const reply = { raw: { setHeader: (name: string, value: unknown) => headers.set(name, value) } } as unknown as FastifyReply;
    applySecurityHeaders({ protocol: 'https', url: '/' } as FastifyRequest, reply, ctx.options);
    expect(headers.get('Strict-Transport-Security')).toBe('max-age=15552000');
  });
});
