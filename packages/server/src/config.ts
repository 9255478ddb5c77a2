import { z } from 'zod';

/** Process configuration, read and validated once at start (STYLE.md: no module reads process.env itself). */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  SQLITE_PATH: z.string().default('./data/gateway.db'),
  SQL_DSN: z.string().optional(),
  REDIS_CONN_STRING: z.string().optional(),
  SESSION_SECRET: z.string().optional(),
  /** Folder of the built console; defaults to packages/web/dist next to this package. */
  WEB_DIST: z.string().optional(),
  /** Per-IP limits: whole /api (per 180 s) and the critical routes login/register/... (per 1200 s). 0 disables. */
  GLOBAL_API_RATE_LIMIT: z.coerce.number().int().min(0).default(480),
  CRITICAL_RATE_LIMIT: z.coerce.number().int().min(0).default(20),
  /** Upstream header and body timeout of the relay, in seconds. */
  RELAY_TIMEOUT_SECONDS: z.coerce.number().positive().default(300),
  /** How long the relay may use a cached key, user or channel list changed elsewhere (ms); 0 turns caching off. */
  RELAY_CACHE_MS: z.coerce.number().int().min(0).default(1000),
  /**
   * HTTP server timeouts, in seconds (issue 10: slow bodies never timed out). Headers must arrive within
   * HTTP_HEADERS_TIMEOUT and the whole request (headers and body) within HTTP_REQUEST_TIMEOUT; neither covers
   * the response, so long streams are not cut. A connection with no traffic either way for HTTP_IDLE_TIMEOUT is
   * closed (default: the relay timeout plus 30 s, so a silent but alive upstream never trips it); an idle
   * kept-alive connection waits HTTP_KEEP_ALIVE_TIMEOUT for its next request (raise it above the load
   * balancer's idle timeout when one is in front).
   */
  HTTP_HEADERS_TIMEOUT_SECONDS: z.coerce.number().positive().default(20),
  HTTP_REQUEST_TIMEOUT_SECONDS: z.coerce.number().positive().default(60),
  HTTP_IDLE_TIMEOUT_SECONDS: z.coerce.number().positive().optional(),
  HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: z.coerce.number().positive().default(5),
  /** Secure flag of the session cookie: auto = when the request came over HTTPS (through a trusted proxy too). */
  SESSION_COOKIE_SECURE: z.enum(['auto', 'true', 'false']).default('auto'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type Config = z.infer<typeof envSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const config = parsed.data;
  if (config.SQL_DSN === '') config.SQL_DSN = undefined;
  if (config.REDIS_CONN_STRING === '') config.REDIS_CONN_STRING = undefined;
  if (config.HTTP_HEADERS_TIMEOUT_SECONDS > config.HTTP_REQUEST_TIMEOUT_SECONDS) {
    throw new Error('Invalid configuration:\nHTTP_HEADERS_TIMEOUT_SECONDS must not exceed HTTP_REQUEST_TIMEOUT_SECONDS');
  }
  return config;
}
