import type { UserDto } from '@model-relay/contract';
import { api } from '../../lib/api';

/**
 * GET /api/oauth/github|lark?code&state: the provider's callback passed on. The envelope's message is "bind" when
 * the account was linked to the signed-in user; otherwise its data is the user now signed in.
 */
export const signInWithOAuth = (provider: 'github' | 'lark', code: string, state: string) =>
  api<UserDto>(`/api/oauth/${provider}?${new URLSearchParams({ code, state })}`);
