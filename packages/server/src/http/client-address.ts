import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import proxyAddr from '@fastify/proxy-addr';

/** How a request's client address and protocol are read: as fastify reads them with the same trusted proxies. */
export interface ClientAddress {
  ip(request: IncomingMessage): string;
  protocol(request: IncomingMessage): 'http' | 'https';
}

/**
 * The client's address and protocol behind the trusted proxies (TRUSTED_PROXIES, none by default): X-Forwarded-For
 * and X-Forwarded-Proto are believed only from them, with fastify's own rules (`trustProxy` given the same list), so
 * a request answered without fastify (relay/ingress/direct.ts) sees the same address it would have seen with it.
 */
export function clientAddress(trusted: string[] | false): ClientAddress {
  const encrypted = (request: IncomingMessage) => ((request.socket as TLSSocket | null)?.encrypted ? 'https' : 'http');
  if (!trusted) return { ip: (request) => request.socket?.remoteAddress ?? '', protocol: encrypted };
  const trust = proxyAddr.compile(trusted);
  return {
    ip(request) {
      const all = proxyAddr.all(request, trust);
      return all[all.length - 1];
    },
    protocol(request) {
      const forwarded = request.headers['x-forwarded-proto'];
      const socket = request.socket;
      if (forwarded && socket != null && trust(socket.remoteAddress ?? '', 0)) {
        // As fastify reads it: the last of a list, whatever it says (only "https" counts as such).
        const last = String(forwarded).split(',').pop()!.trim();
        return last === 'https' ? 'https' : 'http';
      }
      return encrypted(request);
    },
  };
}
