import type { RedemptionStatusInput } from '@model-relay/contract';
import type { RedemptionDto } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList, replaceCachedRow } from '../list-cache';
import { redemptionsKey } from './get-redemptions';

/** PUT /api/redemption/?status_only=true: 1 (unused) <-> 2 (disabled). */
export const updateRedemptionStatus = ({ id, status }: RedemptionStatusInput) =>
  apiData<RedemptionDto>('/api/redemption/?status_only=true', { method: 'PUT', body: { id, status } });

export function useUpdateRedemptionStatus() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateRedemptionStatus,
    onSuccess: (code) => {
      replaceCachedRow<RedemptionDto>(client, redemptionsKey, code.id, () => code);
      return invalidateList(client, redemptionsKey);
    },
  });
}
