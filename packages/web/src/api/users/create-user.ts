import type { CreateUserInput } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList } from '../list-cache';
import { usersKey } from './get-users';

/** POST /api/user/ (admin): username, display name, password. */
export const createUser = (input: CreateUserInput) =>
  apiData<unknown>('/api/user/', { method: 'POST', body: input });

export function useCreateUser() {
  const client = useQueryClient();
  return useMutation({ mutationFn: createUser, onSuccess: () => invalidateList(client, usersKey) });
}
