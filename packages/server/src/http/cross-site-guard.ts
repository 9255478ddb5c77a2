import type { FastifyRequest } from 'fastify';
import type { OptionStore } from '../options/option-store.js';

/**
 * Refuses /api requests a browser made on behalf of another site (issue 10: a cross-site link could rotate a
 * user's access token, log them out, start channel tests or balance queries, all of which docs/console.md §7 puts on GET).
 *
 * The console calls /api from its own origin only and nothing else legitimately calls /api from a browser on
 * another site (there is no CORS on /api), so every /api route is guarded, GET included, except the public
 * reads the home page shows. Non-browser clients (scripts with an access token, curl) send none of the headers
 * below and pass. How a browser request is recognised, strongest evidence first:
 * 1. `Sec-Fetch-Site` (every current browser, on HTTPS and localhost): only `same-origin` and `none` (the user
 *    typed the address or used a bookmark) pass;
 * 2. otherwise `Origin`, then `Referer`: their host must be this server's (the Host header, X-Forwarded-Host or
 *    the configured ServerAddress: a page cannot make a victim's browser send forged ones);
 * 3. otherwise a request that is a browser navigation (`Upgrade-Insecure-Requests`, or HTML accepted) without
 *    any of the above came from a page that hid its referrer: refused.
 */
const PUBLIC_READS = new Set(['/api/status', '/api/notice', '/api/about', '/api/home_page_content']);

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

function ownHosts(request: FastifyRequest, options: OptionStore): Set<string> {
  const hosts = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string') for (const part of value.split(',')) if (part.trim()) hosts.add(part.trim().toLowerCase());
  };
  add(request.headers.host);
  add(request.headers['x-forwarded-host']);
  const configured = hostOf(options.get('ServerAddress'));
  if (configured) hosts.add(configured);
  return hosts;
}

/** True when a browser sent this request for a page of another site. */
export function isCrossSiteRequest(request: FastifyRequest, options: OptionStore): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const source = request.headers.origin ?? request.headers.referer;
  if (typeof source === 'string') {
    const host = hostOf(source);
    return host === undefined || !ownHosts(request, options).has(host);
  }
  const accept = String(request.headers.accept ?? '');
  return request.headers['upgrade-insecure-requests'] !== undefined || accept.includes('text/html');
}

/** True when the guard applies to this request: every /api route but the public reads. */
export function isGuardedApiRequest(request: FastifyRequest): boolean {
  const path = request.url.split('?')[0];
  if (!path.startsWith('/api/')) return false;
  return !((request.method === 'GET' || request.method === 'HEAD') && PUBLIC_READS.has(path));
}
