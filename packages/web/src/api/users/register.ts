import type { RegisterInput } from '@model-relay/contract';
import { api } from '../../lib/api';

/** POST /api/user/register?turnstile: the registration payload (docs/console.md §3); the envelope. */
export const register = (payload: RegisterInput, turnstileToken: string) =>
  api(`/api/user/register?turnstile=${encodeURIComponent(turnstileToken)}`, { method: 'POST', body: payload });
