import type { UserDto } from '@model-relay/contract';
import { useQuery } from '@tanstack/react-query';
import { api, apiData } from '../../lib/api';

/** The signed-in user's own account: balance, usage, profile. Top-ups and profile edits invalidate it. */
export const selfKey = ['self'] as const;

/** GET /api/user/self. */
export const getSelf = () => apiData<UserDto>('/api/user/self', { quiet: true });

/** GET /api/user/self as the envelope, for a screen that reads it outside react-query (quiet). */
export const readSelf = () => api<UserDto>('/api/user/self', { quiet: true });

/**
 * The caller's account, for the balance shown in the top bar, on the top-up screen and next to the keys.
 * Fresh for 10 s: moving between screens does not ask again at every step.
 */
export function useSelf(enabled = true) {
  return useQuery({ queryKey: selfKey, queryFn: getSelf, enabled, staleTime: 10_000 });
}
