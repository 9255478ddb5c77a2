import type { RedemptionDto } from '@model-relay/contract';
import { useQuery } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { redemptionsKey } from './get-redemptions';

export const redemptionKey = (id: number) => [...redemptionsKey, 'detail', id] as const;

/** GET /api/redemption/{id} (admin). */
export const getRedemption = (id: number) => apiData<RedemptionDto>(`/api/redemption/${id}`);

export function useRedemption(id: number | undefined) {
  return useQuery({ queryKey: redemptionKey(id ?? 0), queryFn: () => getRedemption(id!), enabled: id !== undefined });
}
