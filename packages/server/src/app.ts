import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import fastifyCookie from '@fastify/cookie';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import { channelRoutes } from './api/channel/routes.js';
import { dashboardRoutes } from './api/dashboard/routes.js';
import { groupRoutes } from './api/group/routes.js';
import { logRoutes } from './api/log/routes.js';
import { optionRoutes } from './api/option/routes.js';
import { redemptionRoutes } from './api/redemption/routes.js';
import { statusRoutes } from './api/status/routes.js';
import { tokenRoutes } from './api/token/routes.js';
import { userRoutes } from './api/user/routes.js';
import { oauthRoutes } from './api/oauth/routes.js';
import { passwordResetRoutes } from './api/password-reset/routes.js';
import { pricingRoutes } from './api/pricing/routes.js';
import { verificationRoutes } from './api/verification/routes.js';
import type { AppContext } from './context.js';
import { metricsRoutes } from './metrics/routes.js';
import { relayRoutes } from './relay/routes.js';
import { UserFacingError } from './lib/errors.js';
import { randomAlphanumeric } from './lib/random.js';
import { answerFrameworkError, toApiFailure } from './http/api-errors.js';
import { zodValidatorCompiler } from './http/typed-routes.js';
import { limitApiBodies } from './http/body-limits.js';
import { clientAddress } from './http/client-address.js';
import { parseJsonBody } from './http/json-body.js';
import type { Logger } from 'pino';
import { RequestLogger } from './http/request-logger.js';
import { ServerLog } from './http/access-log.js';
import { serveConsoleFiles } from './http/console-files.js';
import { compressApiAnswers } from './http/compress-api.js';
import { DirectRelay } from './relay/ingress/direct.js';
import { isCrossSiteRequest, isGuardedApiRequest } from './http/cross-site-guard.js';
import { applySecurityHeaders, HSTS, RELAY_HEADERS } from './http/security-headers.js';
import { serverTimeouts } from './http/server-timeouts.js';

/** The relay's paths (relay/routes.ts): keys, never the console's session cookie. */
const isRelayRequest = (url: string) => url.startsWith('/v1/') || url.startsWith('/v1beta/') || url.startsWith('/dashboard/');

/**
 * Request ids (the X-Request-Id, the reservation's and the log's request id): the time, this process's random part and
 * a counter, unique across instances and restarts without a random draw per request (Math.random's text in base 36
 * cost about 0.5 us each).
 */
function requestIds(): () => string {
  const own = randomAlphanumeric(4).toLowerCase();
  let counter = 0;
  return () => {
    counter = (counter + 1) % 1_679_616; // 36^4
    return `${Date.now().toString(36)}${own}${counter.toString(36).padStart(4, '0')}`;
  };
}

/** The largest body taken: the relay's (base64 images); every /api route has a small limit of its own. */
const RELAY_BODY_LIMIT = 32 * 1024 * 1024;

/** The request log when the server logs nothing (tests). */
const SILENT = { error: () => undefined, warn: () => undefined };

export interface BuildAppOptions {
  /** Folder with the built console (index.html + assets); omitted in API tests. */
  webDist?: string;
  /** Log level of the access and error log (stdout, written asynchronously); omitted: no log (tests). */
  logLevel?: string;
}


/** Builds the HTTP app: /api, the console and (later) /v1 on one port. */
export async function buildApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  // One access line per request, built directly and written in the background with the other lines (http/access-log.ts),
  // instead of Fastify's two synchronous lines: logging must not cost the relay its throughput.
  const log = options.logLevel ? new ServerLog(options.logLevel) : undefined;
  const timeouts = serverTimeouts(ctx.config);
  const trusted = ctx.config.TRUSTED_PROXIES ? ctx.config.TRUSTED_PROXIES.split(',') : false;
  const nextId = requestIds();
  // The relay's JSON posts are answered from the server's request event, without fastify's lifecycle
  // (relay/ingress/direct.ts); fastify answers everything else, and those too while the server closes.
  const direct = new DirectRelay({
    nextId,
    bodyLimit: RELAY_BODY_LIMIT,
    address: clientAddress(trusted),
    requestLog: log ? (id) => new RequestLogger(log.logger, id) : () => SILENT,
    accessLog: log?.logsRequests ? (...line) => log.request(...line) : undefined,
  });
  const app = Fastify({
    ...(log ? { loggerInstance: log.logger as FastifyBaseLogger, childLoggerFactory: (logger, bindings) => new RequestLogger(logger as unknown as Logger, String(bindings.reqId ?? '')) as unknown as FastifyBaseLogger } : { logger: false }),
    logController: new LogController({ disableRequestLogging: true }),
    // Forwarded headers are believed only from the configured proxies (none by default).
    trustProxy: trusted,
    // The relay's limit (base64 images); every /api route gets a small one of its own (http/body-limits.ts).
    bodyLimit: RELAY_BODY_LIMIT,
    ...timeouts,
    // fastify's own server, as it would make it (lib/server.js), with the relay's JSON posts taken first.
    serverFactory: (handler) => {
      const server = createServer(timeouts.http, (req, res) => direct.serve(req, res) || handler(req, res));
      server.keepAliveTimeout = timeouts.keepAliveTimeout;
      server.requestTimeout = timeouts.requestTimeout;
      server.setTimeout(timeouts.connectionTimeout);
      return server;
    },
    frameworkErrors: (error, request, reply) => answerFrameworkError(error, request, reply, () => applySecurityHeaders(request, reply, ctx.options, ctx.config.TURNSTILE_SCRIPT_URL)),
    genReqId: nextId,
  });
  app.decorateRequest('caller', null);
  // Routes declare params, query and body with the contract's zod schemas (http/typed-routes.ts).
  app.setValidatorCompiler(zodValidatorCompiler);
  limitApiBodies(app);
  // An empty body sent with a JSON content type (common for DELETE/GET from browsers) means "no body"; malformed or
  // absurdly nested JSON is a 400 with a Chinese message (http/json-body.ts).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer, /^\/v1(beta)?\//.test(request.url)));
    } catch (error) {
      done(error as Error);
    }
  });
  // Cookies are parsed below, where they can be read: the relay (/v1, /v1beta, /dashboard) never reads them.
  await app.register(fastifyCookie, { hook: false });

  // A callback hook, not an async one: the relay's requests pass it without a promise of their own. Their headers
  // are the same for every answer: added where the answer is written (relayReplyHeaders below, `writeHead`).
  app.addHook('onRequest', (request, reply, done) => {
    if (isRelayRequest(request.url)) return done();
    reply.header('X-Request-Id', request.id);
    applySecurityHeaders(request, reply, ctx.options, ctx.config.TURNSTILE_SCRIPT_URL);
    const cookieHeader = request.headers.cookie;
    request.cookies = cookieHeader ? app.parseCookie(cookieHeader) : {};
    if (isGuardedApiRequest(request) && isCrossSiteRequest(request, ctx.options)) {
      return done(new UserFacingError('已拒绝跨站请求：请在本站控制台中操作', 403));
    }
    if (!request.url.startsWith('/api/')) return done();
    ctx.rateLimiter.hit(`api:${request.ip}`, ctx.config.GLOBAL_API_RATE_LIMIT, 180).then(
      (allowed) => done(allowed ? undefined : new UserFacingError('请求次数过多，请稍后再试', 429)),
      (error: Error) => done(error),
    );
  });

  // Once the server begins to close, fastify answers the relay's posts too (its 503 with Connection: close).
  app.addHook('preClose', (done) => {
    direct.closing = true;
    done();
  });

  // fastify's own replies to relay requests (errors, model lists, preflights, not found): the relay's headers.
  app.addHook('onSend', function relayReplyHeaders(request, reply, payload, done) {
    if (isRelayRequest(request.url)) {
      if (!reply.hasHeader('x-request-id')) reply.header('x-request-id', request.id);
      for (const [name, value] of RELAY_HEADERS) if (!reply.hasHeader(name)) reply.header(name, value);
      if (request.protocol === 'https' && !reply.hasHeader(HSTS[0])) reply.header(HSTS[0], HSTS[1]);
    }
    done(null, payload);
  });
  compressApiAnswers(app);

  if (log?.logsRequests) {
    app.addHook('onResponse', (request, reply, done) => {
      const query = request.url.indexOf('?');
      log.request(request.id, request.method, query < 0 ? request.url : request.url.slice(0, query), reply.statusCode, Math.round(reply.elapsedTime * 100) / 100);
      done();
    });
  }

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = toApiFailure(error, request);
    if (failure.internal) request.log.error({ err: error }, 'unhandled error');
    return reply.status(failure.status).send({ success: false, message: failure.message });
  });

  statusRoutes(app, ctx);
  optionRoutes(app, ctx);
  userRoutes(app, ctx);
  verificationRoutes(app, ctx);
  passwordResetRoutes(app, ctx);
  oauthRoutes(app, ctx);
  groupRoutes(app, ctx);
  tokenRoutes(app, ctx);
  channelRoutes(app, ctx);
  logRoutes(app, ctx);
  dashboardRoutes(app, ctx);
  pricingRoutes(app, ctx);
  redemptionRoutes(app, ctx);
  metricsRoutes(app, ctx);
  await relayRoutes(app, { ...ctx.relay, options: ctx.options, notifier: ctx.notifier }, direct);

  const webDist = options.webDist;
  const hasConsole = webDist !== undefined && existsSync(join(webDist, 'index.html'));
  if (hasConsole) await serveConsoleFiles(app, webDist);

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0];
    if (path.startsWith('/api/')) {
      return reply.status(404).send({ success: false, message: `接口不存在：${request.method} ${path}` });
    }
    if (path.startsWith('/v1/')) {
      return reply.status(404).send({
        error: { message: `Invalid URL (${request.method} ${path})`, type: 'invalid_request_error', param: '', code: '' },
      });
    }
    if (hasConsole && (request.method === 'GET' || request.method === 'HEAD')) {
      // A missing hashed asset is not the shell; the shell is revalidated on every visit (console-files.ts), so a new
      // build shows at once.
      if (path.startsWith('/assets/')) return reply.status(404).send('Not Found');
      return reply.sendFile('index.html');
    }
    return reply.status(404).send({ success: false, message: '页面不存在' });
  });

  return app;
}
