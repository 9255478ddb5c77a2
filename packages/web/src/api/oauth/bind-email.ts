import { api } from '../../lib/api';

/** GET /api/oauth/email/bind?email&code: links an e-mail address to the caller with the code mailed to it; the envelope. */
export const bindEmail = (email: string, code: string) => api(`/api/oauth/email/bind?email=${encodeURIComponent(email)}&code=${encodeURIComponent(code)}`);
