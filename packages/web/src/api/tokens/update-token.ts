import type { TokenDto, TokenUpdateInput } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList } from '../list-cache';
import { tokensKey } from './get-tokens';

/** PUT /api/token/: full update of a key (name, expiry, quota, models, IP list). */
export const updateToken = (input: TokenUpdateInput) => apiData<TokenDto>('/api/token/', { method: 'PUT', body: input });

export function useUpdateToken() {
  const client = useQueryClient();
  return useMutation({ mutationFn: updateToken, onSuccess: () => invalidateList(client, tokensKey) });
}
