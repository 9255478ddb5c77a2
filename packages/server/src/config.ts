import { isIP } from 'node:net';
import { z } from 'zod';

/** An http(s) URL without a trailing slash (paths are appended to it). */
const httpUrl = z
  .string()
  .trim()
  .regex(/^https?:\/\/[^\s]+$/, 'must be an http(s) URL')
  .transform((url) => url.replace(/\/+$/, ''));

/** Process configuration, read and validated once at start (docs/architecture.md: main.ts reads it once; no module reads process.env itself). */
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
  /** Redemption attempts (POST /api/user/topup) per user per 60 s; an IP gets three times as many. 0 disables. */
  REDEEM_RATE_LIMIT: z.coerce.number().int().min(0).default(10),
  /** Upstream header and body timeout of the relay, in seconds. */
  RELAY_TIMEOUT_SECONDS: z.coerce.number().positive().default(300),
  /**
   * A stream whose client left before its end is read on (relayed to nobody) for the usage the upstream reports at
   * its end, for at most this many seconds; then it is cancelled and billed as read. 0 cancels it at once.
   */
  STREAM_DRAIN_SECONDS: z.coerce.number().min(0).default(60),
  /** How long the relay may use a cached key, user or channel list changed elsewhere (ms); 0 turns caching off. */
  RELAY_CACHE_MS: z.coerce.number().int().min(0).default(1000),
  /**
   * Proxies whose X-Forwarded-For / X-Forwarded-Proto are believed: comma-separated addresses or CIDRs (e.g. the
   * load balancer, "127.0.0.1,10.0.0.0/8"). Empty: none, and the client address is the connection's own, so
   * nobody can claim another address with a header (IP-restricted keys, per-IP limits).
   */
  TRUSTED_PROXIES: z.string().default(''),
  /** Test every channel every this many minutes (once per cluster); 0 turns it off. */
  CHANNEL_TEST_FREQUENCY_MINUTES: z.coerce.number().min(0).default(0),
  /** Delete usage logs older than this many days (hourly, once per cluster); 0 keeps them forever. */
  LOG_RETENTION_DAYS: z.coerce.number().int().min(0).default(0),
  /** On SIGTERM, how long in-flight requests (streams) may take to finish before the process exits. */
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(0).default(30),
  /**
   * Sign-in providers and the bot-check, each at its documented address; set them to reach a self-hosted or
   * regional deployment (Lark international: https://accounts.larksuite.com and https://open.larksuite.com)
   * or, in tests, local mock servers.
   */
  GITHUB_OAUTH_URL: httpUrl.default('https://github.com'),
  GITHUB_API_URL: httpUrl.default('https://api.github.com'),
  LARK_AUTH_URL: httpUrl.default('https://accounts.feishu.cn'),
  LARK_API_URL: httpUrl.default('https://open.feishu.cn'),
  TURNSTILE_VERIFY_URL: httpUrl.default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  TURNSTILE_SCRIPT_URL: httpUrl.default('https://challenges.cloudflare.com/turnstile/v0/api.js'),
  /** The "latest release" endpoint the console's update check reads; empty turns the check off. */
  RELEASES_URL: z.union([httpUrl, z.literal('')]).default('https://api.github.com/repos/model-relay/model-relay/releases/latest'),
  /** Bearer token a Prometheus scraper sends to GET /metrics; empty turns /metrics off. */
  METRICS_TOKEN: z.string().default(''),
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
  const proxies = config.TRUSTED_PROXIES.split(',').map((entry) => entry.trim()).filter(Boolean);
  const invalid = proxies.filter((entry) => !isAddressOrCidr(entry));
  if (invalid.length > 0) throw new Error(`Invalid configuration:\nTRUSTED_PROXIES: not an address or CIDR: ${invalid.join(', ')}`);
  config.TRUSTED_PROXIES = proxies.join(',');
  if (config.HTTP_HEADERS_TIMEOUT_SECONDS > config.HTTP_REQUEST_TIMEOUT_SECONDS) {
    throw new Error('Invalid configuration:\nHTTP_HEADERS_TIMEOUT_SECONDS must not exceed HTTP_REQUEST_TIMEOUT_SECONDS');
  }
  return config;
}

function isAddressOrCidr(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}
