import { Role, UserStatus } from '@model-relay/contract';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { Caller } from './caller.js';
import type { Config } from '../config.js';
import { UserFacingError } from '../lib/errors.js';
import type { UsersRepository } from '../storage/repositories/users.js';
import type { RateLimiter } from './rate-limiter.js';
import { clearSessionCookie, isSessionCurrent, sessionOf, type SessionDeps } from './session-lifecycle.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

/** What resolving a caller uses: the session helpers' needs and the user lookups (AppContext has them all). */
export interface AuthDeps extends SessionDeps {
  repositories: { users: Pick<UsersRepository, 'findById' | 'findByAccessToken'> };
}

/** What the critical routes' rate limit uses. */
export interface CriticalLimitDeps {
  config: Pick<Config, 'CRITICAL_RATE_LIMIT'>;
  rateLimiter: RateLimiter;
}

/**
 * Resolves the caller from the session cookie, or else from the system access token in `Authorization`
 * (raw or "Bearer ..."). The user row is read each time so bans and role changes apply at once, and a session
 * that was logged out or outlived a password change, ban or role change is refused (session-lifecycle.ts).
 */
export async function resolveCaller(ctx: AuthDeps, request: FastifyRequest, reply: FastifyReply): Promise<Caller | null> {
  const session = sessionOf(ctx, request);
  let user;
  if (session) {
    user = await ctx.repositories.users.findById(session.uid);
    // A banned user is told so (below) even though the ban also ended their sessions.
    if (user && user.status === UserStatus.Enabled && !(await isSessionCurrent(ctx, session, user))) user = undefined;
    if (!user) clearSessionCookie(ctx, request, reply);
  }
  if (!user) {
    const header = request.headers.authorization?.trim();
    if (header) {
      const token = header.replace(/^Bearer\s+/i, '');
      user = token.length <= 128 ? await ctx.repositories.users.findByAccessToken(token) : undefined;
      if (!user) throw new UserFacingError('无权进行此操作，access token 无效');
    }
  }
  if (!user) return null;
  if (user.status !== UserStatus.Enabled) {
    clearSessionCookie(ctx, request, reply);
    throw new UserFacingError('用户已被封禁');
  }
  return { id: user.id, role: user.role, username: user.username };
}

/**
 * Guard requiring a logged-in caller of at least `minRole` (1 user, 10 admin, 100 super admin). Routes run it as
 * `preValidation`, so who is calling is checked before the route's schemas look at what they sent.
 */
export function requireRole(ctx: AuthDeps, minRole: number): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    const caller = await resolveCaller(ctx, request, reply);
    if (!caller) throw new UserFacingError('无权进行此操作，未登录且未提供 access token', 401);
    if (caller.role < minRole) throw new UserFacingError('无权进行此操作，权限不足');
    request.caller = caller;
  };
}

export const requireUser = (ctx: AuthDeps) => requireRole(ctx, Role.Common);
export const requireAdmin = (ctx: AuthDeps) => requireRole(ctx, Role.Admin);

/** The caller set by requireRole; routes behind it may rely on it. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new UserFacingError('无权进行此操作，未登录且未提供 access token', 401);
  return request.caller;
}

/** Guard (`preValidation`) of the critical routes (login, register, ...): a tighter per-IP limit. */
export function criticalRateLimit(ctx: CriticalLimitDeps): preHandlerAsyncHookHandler {
  return async (request) => {
    if (!(await ctx.rateLimiter.hit(`critical:${request.ip}`, ctx.config.CRITICAL_RATE_LIMIT, 1200))) {
      throw new UserFacingError('请求次数过多，请稍后再试', 429);
    }
  };
}
