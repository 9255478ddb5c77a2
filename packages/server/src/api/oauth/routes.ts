import { emailBindQuery, oauthCallbackQuery, oauthCodeQuery } from '@model-relay/contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerOf, criticalRateLimit, requireUser, resolveCaller } from '../../auth/authenticate.js';
import type { Caller } from '../../auth/caller.js';
import { startSession } from '../../auth/session-lifecycle.js';
import type { AppContext } from '../../context.js';
import { ok, type ZodTypeProvider } from '../../http/typed-routes.js';
import { toUserDto } from '../user/user-dto.js';
import { OAUTH_STATE_TTL_SECONDS, type SignInResult } from './oauth-service.js';

/** The cookie that ties an OAuth `state` to the browser that asked for it. */
const STATE_COOKIE = 'oauth_state';

/** /api/oauth: GitHub, Lark and WeChat sign-in and binding, e-mail binding (docs/console.md §7). */
export function oauthRoutes(server: FastifyInstance, ctx: AppContext): void {
  const app = server.withTypeProvider<ZodTypeProvider>();
  const oauth = ctx.services.oauth;
  const critical = criticalRateLimit(ctx);

  app.get('/api/oauth/state', { preValidation: critical }, async (_request, reply) => {
    const state = await oauth.newState();
    reply.setCookie(STATE_COOKIE, state, { path: '/api/oauth', httpOnly: true, sameSite: 'lax', maxAge: OAUTH_STATE_TTL_SECONDS });
    return ok(state);
  });

  /** Checks the state, then signs in (setting the session) or binds; "bind" tells the console which. */
  const callback = (url: string, handle: (request: FastifyRequest, code: string, caller: Caller | null) => Promise<SignInResult>) =>
    app.get(url, { preValidation: critical, schema: { querystring: oauthCallbackQuery } }, async (request, reply) => {
      const fromCookie = request.cookies[STATE_COOKIE];
      reply.clearCookie(STATE_COOKIE, { path: '/api/oauth' });
      await oauth.consumeState(request.query.state, fromCookie);
      const caller = await resolveCaller(ctx, request, reply);
      const result = await handle(request, request.query.code, caller);
      if (result.kind === 'bind') return ok(toUserDto(result.user), 'bind');
      startSession(ctx, request, reply, result.user);
      return ok(toUserDto(result.user));
    });

  callback('/api/oauth/github', (_request, code, caller) => oauth.github(code, caller));
  callback('/api/oauth/lark', (request, code, caller) => oauth.lark(code, larkRedirectUri(ctx, request), caller));

  app.get('/api/oauth/wechat', { preValidation: critical, schema: { querystring: oauthCodeQuery } }, async (request, reply) => {
    const user = await oauth.wechat(request.query.code);
    startSession(ctx, request, reply, user);
    return ok(toUserDto(user));
  });
  app.get('/api/oauth/wechat/bind', { preValidation: [critical, requireUser(ctx)], schema: { querystring: oauthCodeQuery } }, async (request) => {
    await oauth.bindWechat(request.query.code, callerOf(request));
    return ok();
  });
  app.get('/api/oauth/email/bind', { preValidation: [critical, requireUser(ctx)], schema: { querystring: emailBindQuery } }, async (request) => {
    await oauth.bindEmail(request.query.email, request.query.code, callerOf(request));
    return ok();
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
