import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { selfKey } from './get-self';

export interface SelfChanges {
  username: string;
  display_name: string;
  password: string;
}

/** PUT /api/user/self: only non-empty fields change. */
export const updateSelf = (changes: SelfChanges) => apiData<unknown>('/api/user/self', { method: 'PUT', body: changes });

export function useUpdateSelf() {
  const client = useQueryClient();
  return useMutation({ mutationFn: updateSelf, onSuccess: () => client.invalidateQueries({ queryKey: selfKey }) });
}
