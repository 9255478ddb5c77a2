import { createHmac, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'session';
/** Sessions last 30 days (one-api's cookie store default). */
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;

export interface SessionPayload {
  /** user id */
  uid: number;
  /** issued at, unix seconds */
  iat: number;
  /** session id: logging out revokes this one session on every instance (session-lifecycle.ts) */
  sid: string;
  /** the user's session_version at login: a password change, ban or role change increments it */
  sv: number;
}

const SESSION_ID = /^[A-Za-z0-9]{16,64}$/;

/**
 * Signed session cookie: base64url(JSON) + "." + HMAC-SHA256. The signature proves who issued it; whether it
 * is still valid is decided per request against the user row (session_version, status) and the shared
 * revocation list (session-lifecycle.ts), so it can be ended before it expires.
 */
export class SessionCodec {
  constructor(private readonly secret: string) {}

  encode(payload: SessionPayload): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  decode(cookie: string | undefined, now = Math.floor(Date.now() / 1000)): SessionPayload | undefined {
    if (!cookie) return undefined;
    const dot = cookie.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const body = cookie.slice(0, dot);
    const given = Buffer.from(cookie.slice(dot + 1));
    const expected = Buffer.from(this.sign(body));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SessionPayload;
      if (!Number.isSafeInteger(payload.uid) || !Number.isSafeInteger(payload.iat) || !Number.isSafeInteger(payload.sv)) return undefined;
      // Cookies from before sessions could be revoked have no id: they are not honoured (log in again once).
      if (typeof payload.sid !== 'string' || !SESSION_ID.test(payload.sid)) return undefined;
      if (payload.iat + SESSION_MAX_AGE_SECONDS < now) return undefined;
      return payload;
    } catch {
      return undefined;
    }
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url');
  }
}
