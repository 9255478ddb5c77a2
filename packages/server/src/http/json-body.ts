import secureJson from 'secure-json-parse';
import { UserFacingError } from '../lib/errors.js';
import { LARGE_JSON_BYTES, LargeJson } from '../relay/ingress/large-json.js';
import { MAX_JSON_DEPTH, jsonNestedDeeperThan } from './body-limits.js';

/** A body that is not acceptable JSON: 400 on /api (user-facing) and on /v1 (statusCode, read by its handler). */
export class BadJsonError extends UserFacingError {
  readonly statusCode = 400;
  readonly code = 'FST_ERR_CTP_INVALID_JSON_BODY';
  constructor(message: string) {
    super(message, 400);
  }
}

/** What fastify's default JSON parser would refuse (`__proto__` keys) and ignore (`constructor.prototype`). */
const POISON = { protoAction: 'error', constructorAction: 'ignore' } as const;

/**
 * A JSON body as every route gets it: an empty body means "no body" (browsers send a JSON content type with DELETE
 * and GET); malformed or absurdly nested JSON throws a 400 with a Chinese message (never the parser's English). A
 * large relay body is parsed on a body worker, never here (relay/ingress/large-json.ts).
 */
export function parseJsonBody(bytes: Buffer, relay: boolean): unknown {
  if (relay && bytes.length > LARGE_JSON_BYTES) return new LargeJson(bytes);
  const text = bytes.toString('utf8');
  if (text === '') return undefined;
  if (jsonNestedDeeperThan(text, MAX_JSON_DEPTH)) throw new BadJsonError(`请求体嵌套层级过深（最多 ${MAX_JSON_DEPTH} 层）`);
  try {
    return secureJson.parse(text, undefined, POISON);
  } catch {
    throw new BadJsonError('请求体不是合法的 JSON');
  }
}
