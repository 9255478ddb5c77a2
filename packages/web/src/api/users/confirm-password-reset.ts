import type { ResetPasswordInput } from '@model-relay/contract';
import { api } from '../../lib/api';

/** POST /api/user/reset: the e-mail and token of a reset link; the envelope's data is the new password. */
export const confirmPasswordReset = (email: string, token: string) => api<string>('/api/user/reset', { method: 'POST', body: { email, token } satisfies ResetPasswordInput });
