import type { TokenStatusInput } from '@model-relay/contract';
import type { TokenDto } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList, replaceCachedRow } from '../list-cache';
import { tokensKey } from './get-tokens';

/** PUT /api/token/?status_only=true: enable (1) or disable (2) a key. */
export const updateTokenStatus = ({ id, status }: TokenStatusInput) =>
  apiData<TokenDto>('/api/token/?status_only=true', { method: 'PUT', body: { id, status } });

export function useUpdateTokenStatus() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateTokenStatus,
    onSuccess: (token) => {
      replaceCachedRow<TokenDto>(client, tokensKey, token.id, () => token);
      return invalidateList(client, tokensKey);
    },
  });
}
