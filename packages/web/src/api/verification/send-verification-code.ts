import { api } from '../../lib/api';

/** GET /api/verification?email&turnstile: mails a verification code (registration, e-mail binding); the envelope. */
export const sendVerificationCode = (email: string, turnstileToken: string) =>
  api(`/api/verification?email=${encodeURIComponent(email)}&turnstile=${encodeURIComponent(turnstileToken)}`);
