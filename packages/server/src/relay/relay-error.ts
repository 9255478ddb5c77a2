/**
 * An error answered on /v1 in OpenAI's shape: {error: {message, type, param, code}} with a fitting status.
 * The one place relay failures become HTTP responses.
 */
export class RelayError extends Error {
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
    return { error: { message: this.message, type: this.type, param: '', code: this.code } };
  }
}
