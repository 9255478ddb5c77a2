import type { ServerOptions } from 'node:http';
import type { Config } from '../config.js';

/**
 * HTTP server timeouts from the configuration (issue 10: half-sent bodies stayed open for minutes because
 * fastify turns Node's request timeout off).
 *
 * - headersTimeout / requestTimeout: the headers, then the whole request (headers and body), must have
 *   arrived in time, or Node answers 408 and closes the connection. They cover receiving the request only,
 *   never the response: a long /v1 stream is not cut.
 * - connectionTimeout: a connection with no traffic in either direction for that long is closed (a client
 *   that stopped reading, a dead peer). Longer than the relay's own upstream timeout, so a slow but alive
 *   upstream never trips it.
 * - keepAliveTimeout: how long an idle kept-alive connection waits for its next request.
 * Node checks the first two on a timer; one second keeps the close prompt without measurable cost.
 */
export interface ServerTimeouts {
  requestTimeout: number;
  connectionTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
}

export function serverTimeouts(config: Config): ServerTimeouts {
  const requestTimeout = config.HTTP_REQUEST_TIMEOUT_SECONDS * 1000;
  const headersTimeout = config.HTTP_HEADERS_TIMEOUT_SECONDS * 1000;
  return {
    requestTimeout,
    connectionTimeout: (config.HTTP_IDLE_TIMEOUT_SECONDS ?? config.RELAY_TIMEOUT_SECONDS + 30) * 1000,
    keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    http: { requestTimeout, headersTimeout, connectionsCheckingInterval: Math.min(1000, headersTimeout) },
  };
}
