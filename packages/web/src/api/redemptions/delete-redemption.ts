import type { RedemptionDto } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList, updateCachedRows } from '../list-cache';
import { redemptionsKey } from './get-redemptions';

/** DELETE /api/redemption/{id}/. */
export const deleteRedemption = (id: number) => apiData<unknown>(`/api/redemption/${id}/`, { method: 'DELETE' });

export function useDeleteRedemption() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteRedemption,
    onSuccess: (_data, id) => {
      updateCachedRows<RedemptionDto>(client, redemptionsKey, (rows) => rows.filter((row) => row.id !== id));
      return invalidateList(client, redemptionsKey);
    },
  });
}
