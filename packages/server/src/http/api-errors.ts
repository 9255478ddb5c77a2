import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { UserFacingError } from '../lib/errors.js';
import { isUniqueViolation } from '../storage/unique-violation.js';

/**
 * The one place an error becomes an /api answer: a Chinese message and a fitting status, never fastify's or
 * a database's English internals, a stack trace or a 500 for something the client sent (issue 10).
 */
export interface ApiFailure {
  status: number;
  message: string;
  /** Unexpected: log it with its detail. */
  internal?: boolean;
}

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KB`;

/** Fastify's client-error codes, in the user's words. */
function clientErrorMessage(error: FastifyError, request: FastifyRequest): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return `请求体过大：此接口最多接受 ${kib(request.routeOptions.bodyLimit ?? 0)}`;
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return '不支持的请求体类型，请使用 application/json';
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return '请求体长度与 Content-Length 不符';
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_BAD_URL_ENCODING':
      return '请求地址不合法';
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return '请求地址中的参数过长';
    case 'FST_ERR_CTP_INVALID_TYPE':
    case 'FST_ERR_CTP_EMPTY_TYPE':
      return '请求头 Content-Type 不合法';
    default:
      return '请求无效';
  }
}

export function toApiFailure(error: FastifyError, request: FastifyRequest): ApiFailure {
  if (error instanceof UserFacingError) return { status: error.httpStatus, message: error.message };
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || error instanceof SyntaxError) {
    return { status: 400, message: '请求体不是合法的 JSON' };
  }
  // Two requests raced past a "does it exist yet?" check: the database's unique constraint decided.
  if (isUniqueViolation(error)) return { status: 200, message: '数据已存在，请勿重复提交' };
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, message: clientErrorMessage(error, request) };
  }
  return { status: 500, message: '服务器内部错误，请联系管理员', internal: true };
}

/**
 * Errors fastify raises before any route or hook runs (a URL that does not decode, a path parameter past
 * maxParamLength): answered like every other refusal, in the shape of the path's API, with the security headers.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, headers: () => void): void {
  headers();
  const message = clientErrorMessage(error, request);
  const status = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
  if (request.url.startsWith('/v1/')) {
    void reply.status(status).send({ error: { message, type: 'invalid_request_error', param: '', code: '' } });
    return;
  }
  void reply.status(status).send({ success: false, message });
}
