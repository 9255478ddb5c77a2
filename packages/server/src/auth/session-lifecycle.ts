import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SharedStore } from '../cluster/shared-store.js';
import type { Config } from '../config.js';
import { randomAlphanumeric } from '../lib/random.js';
import type { UserRow } from '../storage/schema.js';
import { SESSION_COOKIE, SESSION_MAX_AGE_SECONDS, type SessionCodec, type SessionPayload } from './session.js';

/**
 * Where a session starts, is checked and ends (issue 10: sessions could not be revoked).
 *
 * - One session: logging out records its id in the shared store (Redis with several instances) until the
 *   cookie would have expired, so a copy of the cookie is refused on every instance.
 * - All of a user's sessions: users.session_version is incremented (password change, ban, role change); every
 *   cookie carries the version it was issued under and the user row is read on each request anyway.
 */
const REVOKED = 'session-revoked:';

/** What the session helpers use: the cookie setting, the cookie codec, and the store of revocations every instance reads. */
export interface SessionDeps {
  config: Pick<Config, 'SESSION_COOKIE_SECURE'>;
  sessions: SessionCodec;
  shared: SharedStore;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** HttpOnly, SameSite=Lax, and Secure behind HTTPS (or always / never, per SESSION_COOKIE_SECURE). */
export function sessionCookieOptions(ctx: Pick<SessionDeps, 'config'>, request: FastifyRequest): CookieSerializeOptions {
  const mode = ctx.config.SESSION_COOKIE_SECURE;
  const secure = mode === 'true' || (mode === 'auto' && request.protocol === 'https');
  return { path: '/', httpOnly: true, sameSite: 'lax', secure };
}

/** Logs `user` in on this client: a new session id, under the user's current session version. */
export function startSession(ctx: Pick<SessionDeps, 'config' | 'sessions'>, request: FastifyRequest, reply: FastifyReply, user: Pick<UserRow, 'id' | 'session_version'>): void {
  const payload: SessionPayload = { uid: user.id, iat: nowSeconds(), sid: randomAlphanumeric(24), sv: Number(user.session_version) };
  reply.setCookie(SESSION_COOKIE, ctx.sessions.encode(payload), { ...sessionCookieOptions(ctx, request), maxAge: SESSION_MAX_AGE_SECONDS });
}

export function clearSessionCookie(ctx: Pick<SessionDeps, 'config'>, request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, sessionCookieOptions(ctx, request));
}

/** The request's signed, unexpired session, or undefined. Says nothing yet about revocation. */
export function sessionOf(ctx: Pick<SessionDeps, 'sessions'>, request: FastifyRequest): SessionPayload | undefined {
  return ctx.sessions.decode(request.cookies[SESSION_COOKIE]);
}

/** True when `session` still stands for `user`: same session version and not logged out. */
export async function isSessionCurrent(ctx: Pick<SessionDeps, 'shared'>, session: SessionPayload, user: Pick<UserRow, 'session_version'>): Promise<boolean> {
  if (session.sv !== Number(user.session_version)) return false;
  return (await ctx.shared.get(REVOKED + session.sid)) === undefined;
}

/** Logs this client out: its session id is refused from now on, on every instance; the cookie is cleared. */
export async function endSession(ctx: SessionDeps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const session = sessionOf(ctx, request);
  if (session) {
    const remaining = session.iat + SESSION_MAX_AGE_SECONDS - nowSeconds();
    if (remaining > 0) await ctx.shared.set(REVOKED + session.sid, '1', remaining);
  }
  clearSessionCookie(ctx, request, reply);
}
