import type { TokenDto } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList, updateCachedRows } from '../list-cache';
import { tokensKey } from './get-tokens';

/** DELETE /api/token/{id}/. */
export const deleteToken = (id: number) => apiData<unknown>(`/api/token/${id}/`, { method: 'DELETE' });

export function useDeleteToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteToken,
    onSuccess: (_data, id) => {
      updateCachedRows<TokenDto>(client, tokensKey, (rows) => rows.filter((row) => row.id !== id));
      return invalidateList(client, tokensKey);
    },
  });
}
