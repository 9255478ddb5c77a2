import type { FastifyError } from 'fastify';
import { UserFacingError } from '../lib/errors.js';
import type { Dialect } from './dialects/types.js';
import type { RelayRequest } from './pipeline/types.js';
import { RelayError } from './relay-error.js';

/** An error answered before any byte of the answer was sent: its status, headers and body (an object is sent as JSON). */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  /** Set for the upstream's own body, passed on as it came. */
  contentType?: string;
  body: unknown;
}

/** The answer to an error before any byte of an answer was sent, in the client's own dialect; never a stack trace. */
export function errorAnswer(dialect: Dialect, error: FastifyError | Error, log: RelayRequest['log']): ErrorAnswer {
  if (error instanceof RelayError) {
    // The provider's own error, to a client of its own dialect: as it was sent.
    if (error.upstream) return { status: error.upstream.status, headers: error.headers, contentType: error.upstream.contentType, body: error.upstream.body };
    return { status: error.status, headers: error.headers, body: dialect.errorBody(error.status, error.message, error.code, error.type, error.param) };
  }
  const status = (error as FastifyError).statusCode;
  if (status && status < 500) {
    // The app's own refusals (malformed or too deeply nested JSON) already say what is wrong, in Chinese.
    const code = (error as FastifyError).code;
    const message = error instanceof UserFacingError ? error.message : code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? '请求体过大' : code?.startsWith('FST_ERR_CTP') || error instanceof SyntaxError ? '请求体不是合法的 JSON' : '请求无效';
    return { status, headers: {}, body: dialect.errorBody(status, message) };
  }
  log.error({ err: error }, 'relay error');
  return { status: 500, headers: {}, body: dialect.errorBody(500, '网关内部错误', 'internal_error') };
}
