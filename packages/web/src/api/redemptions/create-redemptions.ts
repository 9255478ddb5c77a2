import type { RedemptionCreateInput } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList } from '../list-cache';
import { redemptionsKey } from './get-redemptions';

/** POST /api/redemption/: `count` codes; answers the codes themselves. */
export const createRedemptions = (input: RedemptionCreateInput) => apiData<string[]>('/api/redemption/', { method: 'POST', body: input });

export function useCreateRedemptions() {
  const client = useQueryClient();
  return useMutation({ mutationFn: createRedemptions, onSuccess: () => invalidateList(client, redemptionsKey) });
}
