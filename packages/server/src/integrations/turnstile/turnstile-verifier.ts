import { requestJson } from '../http-json.js';

/**
 * Cloudflare Turnstile's server-side validation (https://developers.cloudflare.com/turnstile/get-started/server-side-validation/):
 * POST secret, response (the widget's token) and remoteip to siteverify; the answer says success and, when
 * refused, error-codes such as invalid-input-response or timeout-or-duplicate (a token is valid once, for 300 s).
 */
export class TurnstileVerifier {
  constructor(private readonly verifyUrl: string) {}

  /** Whether Cloudflare accepts the token; a transport failure counts as "no" (the check fails closed). */
  async verify(secret: string, token: string, remoteIp: string): Promise<{ success: boolean; errorCodes: string[] }> {
    try {
      const answer = await requestJson(this.verifyUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret, response: token, remoteip: remoteIp }).toString(),
      });
      const body = answer.body as { success?: unknown; 'error-codes'?: unknown } | undefined;
      const errorCodes = Array.isArray(body?.['error-codes']) ? body['error-codes'].map(String) : [];
      return { success: answer.status === 200 && body?.success === true, errorCodes };
    } catch (error) {
      return { success: false, errorCodes: [`transport: ${(error as Error).message}`] };
    }
  }
}
