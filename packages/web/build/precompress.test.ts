import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { precompressFiles } from './precompress';

let dir: string | undefined;
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

describe('the console build precompresses its files', () => {
  it('writes a Brotli and a gzip copy of every script, style and shell worth it, each the same bytes once decompressed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'mr-precompress-'));
    mkdirSync(join(dir, 'assets'));
    const script = `export const rows = [${Array.from({ length: 400 }, (_, i) => `{ id: ${i}, name: '模型 ${i}' }`).join(', ')}];\n`;
    writeFileSync(join(dir, 'assets', 'app-abc123.js'), script);
    writeFileSync(join(dir, 'assets', 'app-abc123.css'), '.ant-btn { color: red; }\n'.repeat(100));
    writeFileSync(join(dir, 'index.html'), `<!doctype html><html><head>${'<meta name="x" content="y">'.repeat(60)}</head></html>`);
    writeFileSync(join(dir, 'assets', 'tiny.js'), 'console.log(1)');
    writeFileSync(join(dir, 'logo.png'), Buffer.alloc(4096, 7));

    const written = await precompressFiles(dir, ['assets/app-abc123.js', 'assets/app-abc123.css', 'index.html', 'assets/tiny.js', 'logo.png']);

    for (const file of ['assets/app-abc123.js', 'assets/app-abc123.css', 'index.html']) {
      const original = readFileSync(join(dir, file));
      const br = readFileSync(join(dir, `${file}.br`));
      const gz = readFileSync(join(dir, `${file}.gz`));
      expect(brotliDecompressSync(br).equals(original), file).toBe(true);
      expect(gunzipSync(gz).equals(original), file).toBe(true);
      expect(br.length, file).toBeLessThan(original.length / 3);
      expect(written.find((w) => w.file === file)).toEqual({ file, bytes: original.length, br: br.length, gz: gz.length });
    }
    // too small to gain, and an image (compressed already): no copies
    for (const file of ['assets/tiny.js', 'logo.png']) {
      expect(existsSync(join(dir, `${file}.br`)), file).toBe(false);
      expect(existsSync(join(dir, `${file}.gz`)), file).toBe(false);
    }
  });
});
