import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { callerOf, criticalRateLimit, requireUser, resolveCaller } from '../../auth/authenticate.js';
import type { Caller } from '../../auth/caller.js';
import { startSession } from '../../auth/session-lifecycle.js';
import type { AppContext } from '../../context.js';
import { toUserDto } from '../user/user-dto.js';
import { OAUTH_STATE_TTL_SECONDS, type SignInResult } from './oauth-service.js';

/** The cookie that ties an OAuth `state` to the browser that asked for it. */
const STATE_COOKIE = 'oauth_state';

const query = (request: FastifyRequest, name: string): string => {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.trim() : '';
};

/** /api/oauth: GitHub, Lark and WeChat sign-in and binding, e-mail binding (docs/console.md §7). */
export function oauthRoutes(app: FastifyInstance, ctx: AppContext): void {
  const oauth = ctx.services.oauth;
  const critical = criticalRateLimit(ctx);

  app.get('/api/oauth/state', { preHandler: critical }, async (_request, reply) => {
    const state = await oauth.newState();
    reply.setCookie(STATE_COOKIE, state, { path: '/api/oauth', httpOnly: true, sameSite: 'lax', maxAge: OAUTH_STATE_TTL_SECONDS });
    return { success: true, message: '', data: state };
  });

  /** Checks the state, then signs in (setting the session) or binds; "bind" tells the console which. */
  const callback = (handle: (request: FastifyRequest, code: string, caller: Caller | null) => Promise<SignInResult>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const fromCookie = request.cookies[STATE_COOKIE];
      reply.clearCookie(STATE_COOKIE, { path: '/api/oauth' });
      await oauth.consumeState(query(request, 'state'), fromCookie);
      const caller = await resolveCaller(ctx, request, reply);
      const result = await handle(request, query(request, 'code'), caller);
      if (result.kind === 'bind') return { success: true, message: 'bind', data: toUserDto(result.user) };
      startSession(ctx, request, reply, result.user);
      return { success: true, message: '', data: toUserDto(result.user) };
    };

  app.get('/api/oauth/github', { preHandler: critical }, callback((_request, code, caller) => oauth.github(code, caller)));
  app.get('/api/oauth/lark', { preHandler: critical }, callback((request, code, caller) => oauth.lark(code, larkRedirectUri(ctx, request), caller)));

  app.get('/api/oauth/wechat', { preHandler: critical }, async (request, reply) => {
    const user = await oauth.wechat(query(request, 'code'));
    startSession(ctx, request, reply, user);
    return { success: true, message: '', data: toUserDto(user) };
  });
  app.get('/api/oauth/wechat/bind', { preHandler: [critical, requireUser(ctx)] }, async (request) => {
    await oauth.bindWechat(query(request, 'code'), callerOf(request));
    return { success: true, message: '' };
  });
  app.get('/api/oauth/email/bind', { preHandler: [critical, requireUser(ctx)] }, async (request) => {
    const q = request.query as { email?: unknown; code?: unknown };
    await oauth.bindEmail(q.email, q.code, callerOf(request));
    return { success: true, message: '' };
  });
}

/**
 * The redirect_uri Lark sends the code to, which the token request must repeat: the console builds it the
 * same way, from ServerAddress when set, else from the address the console was opened at.
 */
function larkRedirectUri(ctx: AppContext, request: FastifyRequest): string {
  const base = ctx.options.get('ServerAddress') || `${request.protocol}://${request.host}`;
  return `${base}/oauth/lark`;
}
