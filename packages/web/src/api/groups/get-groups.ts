import { useQuery } from '@tanstack/react-query';
import { apiData } from '../../lib/api';

export const groupsKey = ['groups'] as const;

/** GET /api/group/: the group names (admin). */
export const getGroups = () => apiData<string[]>('/api/group/', { quiet: true });

export function useGroups(enabled = true) {
  return useQuery({ queryKey: groupsKey, queryFn: getGroups, enabled, staleTime: 60_000 });
}
