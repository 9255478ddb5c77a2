import type { PricingResponse } from '@model-relay/contract';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../lib/api';

export const pricingKey = ['pricing'] as const;

export type PriceList = Pick<PricingResponse, 'data' | 'group_ratio' | 'usable_group'>;

/**
 * GET /api/pricing: the models of the caller's group (the default group for visitors) with their ratios, in
 * new-api's shape: the list is `data`, the group ratios and usable groups sit beside it. A refusal (the page is
 * closed to visitors) is returned as its message, for the page to show in place of the list.
 */
export async function getPricing(): Promise<PriceList | { refused: string }> {
  const response = (await api('/api/pricing', { quiet: true })) as Partial<PricingResponse>;
  if (!response.success) return { refused: response.message || '无法获取定价' };
  return { data: response.data ?? [], group_ratio: response.group_ratio ?? {}, usable_group: response.usable_group ?? {} };
}

/** The price list; asked again when the visitor signs in or out (another group, or the page opening). */
export function usePricing(userId: number | undefined) {
  return useQuery({ queryKey: [...pricingKey, { userId }], queryFn: getPricing, staleTime: 60_000 });
}
