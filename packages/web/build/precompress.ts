import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Text the browser downloads; images and fonts are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt)$/;
/** Below this a compressed copy saves less than its headers cost. */
const MIN_BYTES = 1024;

/**
 * Writes a Brotli (`.br`) and a gzip (`.gz`) copy beside every built file worth compressing, at the strongest
 * settings, once at build time: the server hands the copy a browser accepts (packages/server/src/http/console-files.ts)
 * and compresses nothing per request. A copy that would not be smaller is not written.
 */
export async function precompressFiles(dir: string, files: string[]): Promise<Array<{ file: string; bytes: number; br?: number; gz?: number }>> {
  return Promise.all(
    files
      .filter((file) => COMPRESSIBLE.test(file))
      .map(async (file) => {
        const path = join(dir, file);
        const bytes = await readFile(path);
        const result: { file: string; bytes: number; br?: number; gz?: number } = { file, bytes: bytes.length };
        if (bytes.length < MIN_BYTES) return result;
        const [br, gz] = await Promise.all([
          brotli(bytes, {
            params: {
              [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
              [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
              [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
            },
          }),
          gzipped(bytes, { level: constants.Z_BEST_COMPRESSION }),
        ]);
        if (br.length < bytes.length) {
          await writeFile(`${path}.br`, br);
          result.br = br.length;
        }
        if (gz.length < bytes.length) {
          await writeFile(`${path}.gz`, gz);
          result.gz = gz.length;
        }
        return result;
      }),
  );
}

/** The Vite plugin: precompresses what the build wrote (scripts, styles, the shell). */
export function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'model-relay:precompress',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    async writeBundle(options, bundle) {
      const written = await precompressFiles(options.dir ?? outDir, Object.keys(bundle));
      const total = written.reduce((sum, f) => sum + f.bytes, 0);
      const br = written.reduce((sum, f) => sum + (f.br ?? f.bytes), 0);
      this.info(`precompressed ${written.filter((f) => f.br !== undefined).length} files: ${(total / 1024).toFixed(0)} KB, ${(br / 1024).toFixed(0)} KB as Brotli`);
    },
  };
}
