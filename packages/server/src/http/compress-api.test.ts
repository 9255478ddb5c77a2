import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken } from '../test-support/seed.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { acceptedEncoding, MIN_COMPRESSED_BYTES } from './compress-api.js';

let t: TestApp;
let root: string;
let mock: MockUpstream;
beforeAll(async () => {
  t = await createTestApp();
  root = await t.login('root', '123456');
  mock = await startMockUpstream();
});
afterAll(async () => {
  await t.close();
  await mock.close();
});

const get = (url: string, acceptEncoding?: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { cookie: root, ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}), ...headers } });

describe('the console answers (/api) compressed', () => {
  it('the options (over 1 KB of JSON): Brotli to a browser that accepts it, gzip to one that accepts only that, the same JSON either way', async () => {
    const plain = await get('/api/option/');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(MIN_COMPRESSED_BYTES);
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    const json = plain.json();
    expect(json.success).toBe(true);

    const br = await get('/api/option/', 'gzip, deflate, br, zstd');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^application\/json/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['content-length']).toBe(String(br.rawPayload.length));
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(json);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);

    const gz = await get('/api/option/', 'gzip, deflate');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString())).toEqual(json);

    // refused with q=0: the next one it accepts
    const noBrotli = await get('/api/option/', 'br;q=0, gzip;q=0.8');
    expect(noBrotli.headers['content-encoding']).toBe('gzip');
    const identity = await get('/api/option/', 'identity');
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.json()).toEqual(json);
  });

  it('a small answer, and an error, are sent as they are', async () => {
    const status = await get('/api/status', 'br, gzip');
    expect(status.rawPayload.length).toBeLessThan(MIN_COMPRESSED_BYTES);
    expect(status.headers['content-encoding']).toBeUndefined();
    expect(status.json().success).toBe(true);
    const refused = await t.app.inject({ method: 'GET', url: '/api/option/', headers: { 'accept-encoding': 'br' } });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.json().success).toBe(false);
  });

  it('the relay (/v1) is left alone, a model list or an answer, whatever the client accepts', async () => {
    const rootUser = (await t.ctx.repositories.users.findByUsername('root'))!;
    const models = Array.from({ length: 80 }, (_, i) => `model-with-a-long-name-${i}`).join(',');
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: `gpt-4o-mini,${models}` });
    const token = await seedToken(t.ctx.storage, rootUser.id, { unlimited: true });
    const list = await t.app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer sk-${token.key}`, 'accept-encoding': 'gzip, br' } });
    expect(list.statusCode).toBe(200);
    expect(list.rawPayload.length).toBeGreaterThan(MIN_COMPRESSED_BYTES);
    expect(list.headers['content-encoding']).toBeUndefined();
    expect(list.json().data.length).toBeGreaterThan(80);
    const answer = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer sk-${token.key}`, 'accept-encoding': 'gzip, br' },
      payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.json().choices[0].message.content).toBeTruthy();
  });
});

describe('acceptedEncoding', () => {
  it('prefers Brotli, then gzip; q=0 refuses; * means gzip; nothing means none', () => {
    expect(acceptedEncoding('gzip, deflate, br')).toBe('br');
    expect(acceptedEncoding('gzip, deflate')).toBe('gzip');
    expect(acceptedEncoding('br;q=0, gzip')).toBe('gzip');
    expect(acceptedEncoding('BR; Q=0.5')).toBe('br');
    expect(acceptedEncoding('*')).toBe('gzip');
    expect(acceptedEncoding('identity')).toBeUndefined();
    expect(acceptedEncoding('gzip;q=0')).toBeUndefined();
    expect(acceptedEncoding(undefined)).toBeUndefined();
    expect(acceptedEncoding('')).toBeUndefined();
  });
});
