import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test as base, expect, type APIRequestContext } from '@playwright/test';
import { recordToasts } from './toasts.js';

const serverMain = fileURLToPath(new URL('../../packages/server/dist/main.js', import.meta.url));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface GatewayServer {
  url: string;
  /** An API client with its own cookie jar, logged in as `username`. */
  apiAs(username: string, password: string): Promise<APIRequestContext>;
}

/**
 * Starts the real built server on a free port and a fresh SQLite file; stops it after the test.
 * `gatewayEnv` adds environment variables (e.g. local mock providers' addresses); a spec overrides it.
 */
/**
 * Playwright's API request contexts keep idle connections open and reuse them whenever they like; with the
 * server's default 5 s keep-alive a request sent just as the server closes its idle socket fails with
 * ECONNRESET (browsers retry such a request on a fresh connection; Playwright's API client does not).
 */
const TEST_SERVER_ENV = { HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: '600' };

/**
 * Starts the server on a free port and waits until it answers. The port is free when chosen but may be taken by
 * another process before the server binds it (seen on a busy machine: EADDRINUSE): a server that exits before
 * answering is started again on another port.
 */
async function startServer(dir: string, gatewayEnv: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child: ChildProcess = spawn(process.execPath, [serverMain], {
      env: { ...process.env, PORT: String(port), SQLITE_PATH: join(dir, 'gateway.db'), LOG_LEVEL: 'warn', SQL_DSN: '', REDIS_CONN_STRING: '', ...TEST_SERVER_ENV, ...gatewayEnv },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        const res = await fetch(`${url}/api/status`);
        if (res.ok) return { child, url };
      } catch {
        /* not up yet */
      }
      if (child.exitCode !== null || child.signalCode !== null) break;
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error('server did not start');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (attempt === 5) throw new Error(`server exited before answering (${child.exitCode ?? child.signalCode}), five times`);
  }
}

export const test = base.extend<{ gateway: GatewayServer; gatewayEnv: Record<string, string> }>({
  // eslint-disable-next-line no-empty-pattern
  gatewayEnv: async ({}, use) => use({}),
  // The page depends on the gateway so it closes first: the server never waits on a browser's open connections.
  page: async ({ page, gateway }, use) => {
    void gateway;
    await recordToasts(page);
    await use(page);
  },
  gateway: async ({ playwright, gatewayEnv }, use) => {
    const dir = mkdtempSync(join(tmpdir(), 'mr-e2e-'));
    const { child, url } = await startServer(dir, gatewayEnv);
    const contexts: APIRequestContext[] = [];
    await use({
      url,
      async apiAs(username, password) {
        const api = await playwright.request.newContext({ baseURL: url });
        contexts.push(api);
        const res = await api.post('/api/user/login', { data: { username, password } });
        expect((await res.json()).success).toBe(true);
        return api;
      },
    });
    for (const api of contexts) await api.dispose();
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  },
});

export { expect };
