import type { UpdateUserInput } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList } from '../list-cache';
import { usersKey } from './get-users';

export type UserChanges = UpdateUserInput;

/** PUT /api/user/ (admin): id plus the fields to change; quota and limits as integers. */
export const updateUser = (changes: UserChanges) => apiData<unknown>('/api/user/', { method: 'PUT', body: changes });

export function useUpdateUser() {
  const client = useQueryClient();
  return useMutation({ mutationFn: updateUser, onSuccess: () => invalidateList(client, usersKey) });
}
