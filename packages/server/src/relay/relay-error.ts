/**
 * An error answered on /v1 in OpenAI's shape: {error: {message, type, param, code}} with a fitting status.
 * The one place relay failures become HTTP responses.
 */
export class RelayError extends Error {
  /**
   * An upstream's own error in the client's dialect (a pass-through): answered as the provider sent it, status and
   * body, with the channel's secrets and address taken out.
   */
  upstream?: { status: number; body: string; contentType: string };
  /** OpenAI's `param`, when the upstream named the field at fault. */
  param = '';

  constructor(
    readonly status: number,
    message: string,
    readonly type: string = 'invalid_request_error',
    readonly code: string | null = null,
    /** Headers the answer carries (Retry-After of a rate limit). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toBody(): { error: { message: string; type: string; param: string; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** OpenAI's error type for an HTTP status: the nearest kind when a provider's error is translated for an OpenAI client. */
export function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** OpenAI's `code` and `param` of an upstream error body, when it has them (OpenAI and the vendors that copy it). */
export function upstreamErrorDetail(body: string): { code: string | null; param: string } {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; param?: unknown } };
    const error = parsed && typeof parsed === 'object' ? parsed.error : undefined;
    if (!error || typeof error !== 'object') return { code: null, param: '' };
    return { code: typeof error.code === 'string' ? error.code : null, param: typeof error.param === 'string' ? error.param : '' };
  } catch {
    return { code: null, param: '' };
  }
}
