import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OptionStore } from '../options/option-store.js';

/**
 * Security headers on every response (issue 10: the console could be framed, no CSP, no nosniff).
 *
 * The console's policy allows exactly what the built console uses: its own scripts and the Turnstile script
 * (challenges.cloudflare.com, which also renders an iframe); inline styles (antd injects its CSS-in-JS as
 * <style> elements and style attributes); images from anywhere (the configured logo, QR code and pictures
 * in notices); the update check against api.github.com; and as frames the configured chat link (/chat),
 * and the home page and about page when they are set to a URL. Nothing may frame the console.
 * JSON answers (/api, /v1) get a policy that allows nothing at all.
 */
/** Where Turnstile's widget comes from unless TURNSTILE_SCRIPT_URL says otherwise. */
const TURNSTILE = 'https://challenges.cloudflare.com';
const RELEASES = 'https://api.github.com';
const API_POLICY = "default-src 'none'; frame-ancestors 'none'";
const API_PREFIXES = ['/api/', '/v1/', '/v1beta/', '/dashboard/'];

/** Origins the console shows in an iframe, from the options that hold a URL. */
function frameOrigins(options: OptionStore): string[] {
  const origins = new Set<string>();
  for (const key of ['ChatLink', 'HomePageContent', 'About'] as const) {
    const value = options.get(key).trim();
    if (!/^https?:\/\//i.test(value)) continue;
    try {
      origins.add(new URL(value).origin);
    } catch {
      /* not a URL: rendered as text, not framed */
    }
  }
  return [...origins];
}

/** The policy of the console's pages; `turnstileScript` is TURNSTILE_SCRIPT_URL (its origin serves the widget). */
export function consolePolicy(options: OptionStore, turnstileScript?: string): string {
  const turnstile = originOf(turnstileScript) ?? TURNSTILE;
  return [
    "default-src 'self'",
    `script-src 'self' ${turnstile}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https: http:",
    "font-src 'self' data:",
    `connect-src 'self' ${RELEASES} ${turnstile}`,
    `frame-src ${[...new Set([...frameOrigins(options), turnstile])].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

/**
 * Sets the security headers of the console's and /api's answers, on the raw response, so they also reach files sent
 * by the static plugin. (The relay's are RELAY_HEADERS, below.)
 */
export function applySecurityHeaders(request: FastifyRequest, reply: FastifyReply, options: OptionStore, turnstileScript?: string): void {
  const raw = reply.raw;
  const set = (name: string, value: string) => void raw.setHeader(name, value);
  const path = request.url.split('?')[0];
  set('X-Content-Type-Options', 'nosniff');
  set('X-Frame-Options', 'DENY');
  set('Referrer-Policy', 'same-origin');
  set('Content-Security-Policy', API_PREFIXES.some((prefix) => path.startsWith(prefix)) ? API_POLICY : consolePolicy(options, turnstileScript));
  if (request.protocol === 'https') set('Strict-Transport-Security', HSTS[1]);
}

/**
 * The headers every relay answer (/v1, /v1beta, /dashboard) carries: the security headers of a JSON answer and CORS
 * (browser-based chat clients call the relay from other origins), the same for all, so made once. Answers written
 * around fastify add them to their head (relay/pipeline/delivery-headers.ts `writeHead`), fastify's own replies in an
 * onSend hook (app.ts `relayReplyHeaders`); HSTS comes with them on HTTPS.
 */
export const RELAY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
  ['referrer-policy', 'same-origin'],
  ['content-security-policy', API_POLICY],
  ['access-control-allow-origin', '*'],
];
export const HSTS: readonly [string, string] = ['strict-transport-security', 'max-age=15552000'];

/** Adds the relay's headers (RELAY_HEADERS, and HSTS on HTTPS) that `headers` does not set itself. */
export function withRelayHeaders(headers: Record<string, string | string[]>, https: boolean): Record<string, string | string[]> {
  for (const [name, value] of RELAY_HEADERS) if (headers[name] === undefined) headers[name] = value;
  if (https && headers[HSTS[0]] === undefined) headers[HSTS[0]] = HSTS[1];
  return headers;
}

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
