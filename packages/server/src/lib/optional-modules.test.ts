import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const register = new URL('./strip-types/register.mjs', import.meta.url).href;
const testApp = new URL('../test-support/test-app.ts', import.meta.url).href;
const optionalModules = new URL('./optional-modules.ts', import.meta.url).href;

/** Where each optional library lives under node_modules, as the module cache names it. */
const LIBRARIES = ['/node_modules/pg/', '/node_modules/mysql2/', '/node_modules/ioredis/', '/node_modules/nodemailer/', '/node_modules/google-auth-library/', '/node_modules/@smithy/signature-v4/', '/node_modules/@smithy/core/', '/node_modules/ws/'];

/**
 * Runs `body` in a fresh node process (the sources' types stripped, as a module worker runs them) and answers what
 * it printed as JSON, with the CommonJS modules the process had loaded by then: a test file's own process has
 * loaded whatever other tests and the test support needed.
 */
async function inFreshProcess(body: string): Promise<{ result: any; loaded: string[] }> {
  const script = `
    import { createRequire } from 'node:module';
    const result = await (async () => { ${body} })();
    process.stdout.write(JSON.stringify({ result, loaded: Object.keys(createRequire(import.meta.url).cache) }));
  `;
  const { stdout } = await run(process.execPath, ['--import', register, '--input-type=module', '-e', script], { timeout: 60_000 });
  return JSON.parse(stdout);
}

const loadedLibraries = (loaded: string[]) => LIBRARIES.filter((library) => loaded.some((file) => file.includes(library)));

describe('the optional libraries', () => {
  it('a server on SQLite with no Redis, e-mail or cloud channel loads none of them, and serves', async () => {
    const { result, loaded } = await inFreshProcess(`
      const { createTestApp } = await import(${JSON.stringify(testApp)});
      const t = await createTestApp();
      const status = (await t.app.inject({ method: 'GET', url: '/api/status' })).statusCode;
      await t.close();
      return status;
    `);
    expect(result).toBe(200);
    // The process did load CommonJS libraries (better-sqlite3), so an empty list is not a cache that says nothing.
    expect(loaded.some((file) => file.includes('/node_modules/better-sqlite3/'))).toBe(true);
    expect(loadedLibraries(loaded)).toEqual([]);
  });

  it('each is loaded on its first use, once; pg reads BIGINT and NUMERIC as numbers', async () => {
    const { result, loaded } = await inFreshProcess(`
      const { optional, loadPg } = await import(${JSON.stringify(optionalModules)});
      const same = Object.values(optional).every((load) => load() === load());
      const pg = loadPg();
      return { same, bigint: pg.types.getTypeParser(20)('9007199254740991'), numeric: pg.types.getTypeParser(1700)('12.5'), pool: typeof pg.Pool, redis: typeof optional.ioredis().Redis, ws: typeof optional.ws() };
    `);
    expect(result).toEqual({ same: true, bigint: 9007199254740991, numeric: 12.5, pool: 'function', redis: 'function', ws: 'function' });
    expect(loadedLibraries(loaded)).toEqual(LIBRARIES);
  });
});
