import type { UpdateSelfInput } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { selfKey } from './get-self';

export type SelfChanges = UpdateSelfInput;

/** PUT /api/user/self: only non-empty fields change. */
export const updateSelf = (changes: SelfChanges) => apiData<unknown>('/api/user/self', { method: 'PUT', body: changes });

export function useUpdateSelf() {
  const client = useQueryClient();
  return useMutation({ mutationFn: updateSelf, onSuccess: () => client.invalidateQueries({ queryKey: selfKey }) });
}
