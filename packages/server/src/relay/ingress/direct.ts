import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { MeterLog } from '../../billing/meter-types.js';
import type { ClientAddress } from '../../http/client-address.js';
import { parseJsonBody } from '../../http/json-body.js';
import { withRelayHeaders } from '../../http/security-headers.js';
import type { Dialect } from '../dialects/types.js';
import type { RelayReply, RelayRequest } from '../pipeline/types.js';
import { errorAnswer } from '../error-answer.js';

/**
 * A relay route's handler, as fastify calls it and as the direct relay does. What it returns without having written
 * an answer is sent as JSON (200), as fastify sends an async handler's value.
 */
export type RelayHandler<R extends RelayRequest = RelayRequest> = (request: R, reply: RelayReply) => Promise<unknown>;

/** The request of a prefix route: the rest of its path is `params['*']`, as fastify gives a wildcard's. */
export type PrefixRequest = RelayRequest & { readonly params: { '*': string } };

/** Body too large: the error fastify's parser gives (answered '请求体过大' in the client's dialect). */
class BodyTooLarge extends Error {
  readonly statusCode = 413;
  readonly code = 'FST_ERR_CTP_BODY_TOO_LARGE';
}

/** A body shorter or longer than its Content-Length (fastify: FST_ERR_CTP_INVALID_CONTENT_LENGTH). */
class BadContentLength extends Error {
  readonly statusCode = 400;
  readonly code = 'FST_ERR_CTP_INVALID_CONTENT_LENGTH';
}

export interface DirectRelayOptions {
  /** The request ids fastify gives its own requests (app.ts). */
  nextId: () => string;
  /** The largest body taken (fastify's bodyLimit). */
  bodyLimit: number;
  /** The client's address and protocol behind the trusted proxies, as fastify reads them. */
  address: ClientAddress;
  /** The log of a request (errors and warnings with its id), and the access log's line once it is answered. */
  requestLog: (requestId: string) => MeterLog;
  accessLog?: (requestId: string, method: string, path: string, status: number, ms: number) => void;
}

/**
 * The relay's JSON posts (chat, messages, responses, Gemini's generateContent, the token counts and OpenAI's other
 * endpoints) answered from node's `request` event, without fastify's lifecycle (routing, hooks, its request and reply
 * objects, its body parser): on a relay whose upstream answers in a millisecond that lifecycle cost about 5 % of the
 * gateway's CPU per request (bench/README.md). What fastify did for these requests is done here the same way: the
 * request id, the JSON body with its limits (http/json-body.ts), the client's address behind the trusted proxies,
 * errors in the client's dialect with the relay's headers (error-answer.ts), a handler's value sent as JSON, the
 * access log line. Anything else (another method or content type, an upload, a path with escapes, a server shutting
 * down) goes to fastify, which registers the same handlers and answers them identically.
 */
export class DirectRelay {
  private readonly routes = new Map<string, Route>();
  /** Routes by the start of their path (fastify's `prefix*`): the rest of the path is the `*` parameter. */
  private readonly prefixes: Array<Route & { prefix: string }> = [];
  /** Set when the server begins to close: fastify then answers new requests (503, Connection: close). */
  closing = false;

  constructor(private readonly options: DirectRelayOptions) {}

  /** Serves POST `path` with a JSON body through `handler`, answering its errors in `dialect`'s shape. */
  post(path: string, dialect: Dialect, handler: RelayHandler): void {
    this.routes.set(path, { dialect, handler });
  }

  /** Serves POST `prefix…` (fastify's `prefix*`), the rest of the path given as the `*` parameter. */
  postUnder(prefix: string, dialect: Dialect, handler: RelayHandler<PrefixRequest>): void {
    this.prefixes.push({ prefix, dialect, handler });
  }

  /** Serves the request when it is one of the routes' JSON posts; false leaves it to fastify. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST' || this.closing) return false;
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    // A path with escapes is fastify's, which decodes it by its own rules.
    let route = this.routes.get(path);
    let rest = '';
    if (!route && !path.includes('%')) {
      const under = this.prefixes.find((r) => path.startsWith(r.prefix));
      if (under) [route, rest] = [under, path.slice(under.prefix.length)];
    }
    if (!route || !isJson(req.headers['content-type'])) return false;
    const request = new DirectRequest(this.options.nextId(), req, this.options, rest);
    const reply = new DirectReply(res, request);
    if (this.options.accessLog) {
      (res as LoggedResponse)[LOGGED] = request;
      res.on('finish', logAnswered);
    }
    readBody(req, this.options.bodyLimit, (error, bytes) => {
      if (error) return fail(route.dialect, error, request, reply);
      try {
        request.body = parseJsonBody(bytes!, true);
      } catch (bad) {
        return fail(route.dialect, bad as Error, request, reply);
      }
      route.handler(request, reply).then(
        (value) => {
          if (reply.sent || res.headersSent) return;
          // A value is the answer (fastify sends an async handler's value as JSON); nothing would leave the client waiting.
          if (value === undefined) fail(route.dialect, new Error('the relay handler wrote no answer'), request, reply);
          else answer(reply, request, 200, {}, JSON.stringify(value));
        },
        (thrown: Error) => fail(route.dialect, thrown, request, reply),
      );
    });
    return true;
  }
}

/** The request whose access log line is written once its answer is (a stream's at its end). */
const LOGGED = Symbol('access-logged request');
type LoggedResponse = ServerResponse & { [LOGGED]?: DirectRequest };

/**
 * The access log's line, from a listener every request shares that finds its request on the response: a closure and
 * `once`'s wrapper per request lived as long as its stream.
 */
function logAnswered(this: LoggedResponse): void {
  const request = this[LOGGED];
  if (!request) return;
  this[LOGGED] = undefined;
  request.logAnswer(this.statusCode);
}

/** `application/json`, with or without parameters (charset), as fastify's JSON parser takes it. */
function isJson(type: string | undefined): boolean {
  if (!type) return false;
  const end = type.indexOf(';');
  return (end < 0 ? type : type.slice(0, end)).trim().toLowerCase() === 'application/json';
}

/** Reads the whole body, refusing one larger than `limit` or not as long as its Content-Length said. */
function readBody(req: IncomingMessage, limit: number, done: (error: Error | undefined, bytes?: Buffer) => void): void {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return done(new BodyTooLarge('request body too large'));
  const chunks: Buffer[] = [];
  let received = 0;
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) {
      stop();
      done(new BodyTooLarge('request body too large'));
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = (error?: Error) => {
    stop();
    if (error) return done(Object.assign(error, { statusCode: 400 }));
    if (!Number.isNaN(declared) && received !== declared) return done(new BadContentLength('body length differs from Content-Length'));
    done(undefined, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
  };
  const stop = () => {
    req.removeListener('data', onData);
    req.removeListener('end', onEnd);
    req.removeListener('error', onEnd);
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onEnd);
}

/** An error before any byte of the answer was sent, answered in the client's dialect with the relay's headers. */
function fail(dialect: Dialect, error: Error, request: DirectRequest, reply: DirectReply): void {
  const res = reply.raw;
  if (reply.sent || res.headersSent || res.destroyed) return;
  const refusal = errorAnswer(dialect, error, request.log);
  answer(reply, request, refusal.status, refusal.headers, refusal.contentType ? String(refusal.body) : JSON.stringify(refusal.body), refusal.contentType);
}

/** Writes a whole answer with the relay's headers (a JSON one unless `contentType` says otherwise). */
function answer(reply: DirectReply, request: DirectRequest, status: number, extra: Record<string, string>, body: string, contentType = 'application/json; charset=utf-8'): void {
  reply.hijack();
  const payload = Buffer.from(body);
  const headers: Record<string, string> = { ...extra, 'content-type': contentType, 'content-length': String(payload.length), 'x-request-id': request.id };
  reply.raw.writeHead(status, withRelayHeaders(headers, request.protocol === 'https'));
  reply.raw.end(payload);
}

interface Route {
  dialect: Dialect;
  handler: RelayHandler<DirectRequest>;
}

/**
 * The request as the pipeline reads it (pipeline/types.ts): node's request, the parsed body, the request's id; and as
 * a route reads it: `params['*']`, the path after a prefix route's prefix.
 */
export class DirectRequest implements RelayRequest {
  body: unknown = undefined;
  private logger?: MeterLog;
  /** When it arrived (performance.now()), for the access log. */
  private readonly started = performance.now();

  constructor(
    readonly id: string,
    private readonly raw: IncomingMessage,
    private readonly options: DirectRelayOptions,
    private readonly rest = '',
  ) {}

  /** The path's part after a prefix route's prefix, as fastify's `*` parameter (made when asked: rarely). */
  get params(): { '*': string } {
    return { '*': this.rest };
  }

  /** Writes the access log's line for the answer written with `status`. */
  logAnswer(status: number): void {
    const url = this.url;
    const query = url.indexOf('?');
    this.options.accessLog?.(this.id, 'POST', query < 0 ? url : url.slice(0, query), status, Math.round((performance.now() - this.started) * 100) / 100);
  }

  get headers() {
    return this.raw.headers;
  }
  get url() {
    return this.raw.url ?? '';
  }
  get method() {
    return this.raw.method ?? 'POST';
  }
  get ip() {
    return this.options.address.ip(this.raw);
  }
  get protocol() {
    return this.options.address.protocol(this.raw);
  }
  /** The query string's parameters (a repeated one as a list, as fastify reads it); read only for `?key=`. */
  get query(): Record<string, string | string[]> {
    const url = this.url;
    const start = url.indexOf('?');
    const query: Record<string, string | string[]> = {};
    if (start < 0) return query;
    for (const [name, value] of new URLSearchParams(url.slice(start + 1))) {
      const seen = query[name];
      query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    }
    return query;
  }
  get log(): MeterLog {
    return (this.logger ??= this.options.requestLog(this.id));
  }
}

/** The answer as the pipeline writes it: on node's response, once `hijack` has said so. */
class DirectReply implements RelayReply {
  sent = false;

  constructor(
    readonly raw: ServerResponse,
    readonly request: DirectRequest,
  ) {}

  hijack(): this {
    this.sent = true;
    return this;
  }
}
