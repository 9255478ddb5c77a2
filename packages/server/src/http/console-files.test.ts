import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import type { AppContext } from '../context.js';
import { closeContext, createContext } from '../create-context.js';

let dir: string;
let ctx: AppContext;
let app: FastifyInstance;
const shell = `<!doctype html><html><head><title>Model Relay</title>${'<link rel="modulepreload" href="/assets/chunk.js">'.repeat(30)}</head><body><div id="root"></div></body></html>`;
const script = `export const models = [${Array.from({ length: 500 }, (_, i) => `'model-${i}'`).join(', ')}];`;

// As the console's build leaves them (packages/web/build/precompress.ts): each file with its Brotli and gzip copies.
function writeWithCopies(path: string, text: string) {
  writeFileSync(path, text);
  writeFileSync(`${path}.br`, brotliCompressSync(text));
  writeFileSync(`${path}.gz`, gzipSync(text));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mr-console-files-'));
  mkdirSync(join(dir, 'assets'));
  writeWithCopies(join(dir, 'index.html'), shell);
  writeWithCopies(join(dir, 'assets', 'app-3f9a1c.js'), script);
  writeFileSync(join(dir, 'logo.png'), Buffer.alloc(2048, 1));
  ctx = await createContext(loadConfig({ SQLITE_PATH: ':memory:', GLOBAL_API_RATE_LIMIT: '0', CRITICAL_RATE_LIMIT: '0' }));
  app = await buildApp(ctx, { webDist: dir });
});
afterAll(async () => {
  await app.close();
  await closeContext(ctx);
  rmSync(dir, { recursive: true, force: true });
});

const get = (url: string, encodings?: string, extra: Record<string, string> = {}) =>
  app.inject({ method: 'GET', url, headers: { ...(encodings === undefined ? {} : { 'accept-encoding': encodings }), ...extra } });

describe('the console files', () => {
  it('a hashed script: the Brotli copy to a browser that accepts it, gzip to one that accepts only that, the file itself otherwise; kept a year', async () => {
    const br = await get('/assets/app-3f9a1c.js', 'gzip, deflate, br, zstd');
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['content-type']).toMatch(/^(application|text)\/javascript/);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(script);
    expect(br.rawPayload.length).toBeLessThan(script.length / 3);

    const gz = await get('/assets/app-3f9a1c.js', 'gzip, deflate');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(script);

    const plain = await get('/assets/app-3f9a1c.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(script);

    for (const res of [br, gz, plain]) {
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      // a shared cache keeps one answer per encoding
      expect(res.headers.vary).toMatch(/accept-encoding/i);
    }
  });

  it('the shell, at / and at every console route, compressed too but revalidated on every visit (a new build shows at once)', async () => {
    for (const url of ['/', '/token', '/log?p=2']) {
      const res = await get(url, 'gzip, deflate, br');
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.headers['content-encoding'], url).toBe('br');
      expect(brotliDecompressSync(res.rawPayload).toString(), url).toBe(shell);
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(res.headers.vary, url).toMatch(/accept-encoding/i);
    }
    // revalidated: unchanged since the browser's copy
    const first = await get('/token', 'gzip');
    const again = await get('/token', 'gzip', { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
  });

  it('what has no copy is sent as it is; a missing asset is 404, not the shell', async () => {
    const logo = await get('/logo.png', 'br, gzip');
    expect(logo.statusCode).toBe(200);
    expect(logo.headers['content-encoding']).toBeUndefined();
    expect(logo.rawPayload.length).toBe(2048);
    expect(logo.headers['cache-control']).toBe('no-cache');

    const missing = await get('/assets/gone-123.js', 'br');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).not.toMatch(/html/);
  });
});
