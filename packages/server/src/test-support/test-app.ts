import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import type { AppContext } from '../context.js';
import { closeContext, createContext } from '../create-context.js';

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  /** Logs in and returns the session cookie header value. */
  login(username: string, password: string): Promise<string>;
  /** inject() returning the parsed JSON body and the status. */
  call(options: InjectOptions & { cookie?: string }): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** An app on a fresh in-memory SQLite database (or the given DSN), exercised with app.inject(). */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  // Relay tests seed rows straight into the database, around the repositories: no cache unless a test asks.
  const config = loadConfig({ SQLITE_PATH: ':memory:', GLOBAL_API_RATE_LIMIT: '0', CRITICAL_RATE_LIMIT: '0', RELAY_CACHE_MS: '0', ...env });
  const ctx = await createContext(config);
  const app = await buildApp(ctx);
  const call: TestApp['call'] = async ({ cookie, headers, ...rest }) => {
    const response = await app.inject({ ...rest, headers: { ...(headers ?? {}), ...(cookie ? { cookie } : {}) } });
    let body: unknown = response.body;
    try {
      body = response.json();
    } catch {
      /* not JSON */
    }
    return { status: response.statusCode, body };
  };
  return {
    app,
    ctx,
    call,
    async login(username, password) {
      const response = await app.inject({ method: 'POST', url: '/api/user/login', payload: { username, password } });
      const setCookie = response.headers['set-cookie'];
      const first = Array.isArray(setCookie) ? setCookie[0] : setCookie;
      if (!first) throw new Error(`login failed: ${response.body}`);
      return first.split(';')[0];
    },
    async close() {
      await app.close();
      await closeContext(ctx);
    },
  };
}
