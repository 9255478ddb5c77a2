import type { RedemptionUpdateInput } from '@model-relay/contract';
import type { RedemptionDto } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList } from '../list-cache';
import { redemptionsKey } from './get-redemptions';

/** PUT /api/redemption/: name and quota of a code not used yet. */
export const updateRedemption = (input: RedemptionUpdateInput) => apiData<RedemptionDto>('/api/redemption/', { method: 'PUT', body: input });

export function useUpdateRedemption() {
  const client = useQueryClient();
  return useMutation({ mutationFn: updateRedemption, onSuccess: () => invalidateList(client, redemptionsKey) });
}
