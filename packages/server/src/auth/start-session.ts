import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { nowSeconds } from '../lib/validate.js';
import { SESSION_COOKIE, SESSION_MAX_AGE_SECONDS } from './session.js';

/** Logs the user in on this browser: the signed session cookie every way of signing in sets. */
export function startSession(ctx: AppContext, reply: FastifyReply, userId: number): void {
  reply.setCookie(SESSION_COOKIE, ctx.sessions.encode({ uid: userId, iat: nowSeconds() }), {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    maxAge: SESSION_MAX_AGE_SECONDS,
  });
}
