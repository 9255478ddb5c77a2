import { api } from '../../lib/api';

/** GET /api/reset_password?email&turnstile: mails a password-reset link; the envelope. */
export const requestPasswordReset = (email: string, turnstileToken: string) =>
  api(`/api/reset_password?email=${encodeURIComponent(email)}&turnstile=${encodeURIComponent(turnstileToken)}`);
