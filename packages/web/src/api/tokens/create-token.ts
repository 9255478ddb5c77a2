import type { TokenDto, TokenInput } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList } from '../list-cache';
import { tokensKey } from './get-tokens';

/** POST /api/token/: a new key. */
export const createToken = (input: TokenInput) => apiData<TokenDto>('/api/token/', { method: 'POST', body: input });

export function useCreateToken() {
  const client = useQueryClient();
  return useMutation({ mutationFn: createToken, onSuccess: () => invalidateList(client, tokensKey) });
}
