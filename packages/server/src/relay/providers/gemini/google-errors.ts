import { asArray, asString, isRecord } from '../../dialects/shared.js';
import { errorMessageOf } from '../openai-compatible/adapter.js';
import { flatMap } from '../../../lib/arrays.js';

/** What a Google API error body says (https://cloud.google.com/apis/design/errors): `{error: {code, message, status, details}}`. */
export interface GoogleError {
  /** The google.rpc status name (INVALID_ARGUMENT, RESOURCE_EXHAUSTED...), when the body had one. */
  status?: string;
  message: string;
  /** `reason`s of the ErrorInfo details (API_KEY_INVALID, SERVICE_DISABLED...). */
  reasons: string[];
}

export function readGoogleError(httpStatus: number, body: string): GoogleError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  // Streams answer errors as a one-element JSON array.
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  const error = isRecord(first) && isRecord(first.error) ? first.error : undefined;
  const reasons = flatMap(asArray(error?.details), (detail) => (isRecord(detail) && typeof detail.reason === 'string' ? [detail.reason] : []));
  return { status: asString(error?.status), message: asString(error?.message) ?? errorMessageOf(body) ?? `upstream returned HTTP ${httpStatus}`, reasons };
}

/** Reasons that say the key or the project behind a channel cannot work at all, whatever is asked. */
export const DEAD_CHANNEL_REASONS = ['API_KEY_INVALID', 'API_KEY_EXPIRED', 'API_KEY_SERVICE_BLOCKED', 'SERVICE_DISABLED', 'BILLING_DISABLED', 'CONSUMER_SUSPENDED', 'CONSUMER_INVALID'];

/** Failures of this channel that another channel may not have: rate limits, overload, server errors, timeouts. */
export const isPassingFault = (status: number): boolean => status === 429 || status === 408 || status >= 500;
