import type { UserDto } from '@model-relay/contract';
import { useQuery } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { usersKey } from './get-users';

export const userKey = (id: number) => [...usersKey, 'detail', id] as const;

/** GET /api/user/{id} (admin; refused for a user of the same or a higher role). */
export const getUser = (id: number) => apiData<UserDto>(`/api/user/${id}`);

export function useUserDetail(id: number | undefined) {
  return useQuery({ queryKey: userKey(id ?? 0), queryFn: () => getUser(id!), enabled: id !== undefined });
}
