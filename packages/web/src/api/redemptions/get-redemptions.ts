import type { RedemptionDto } from '@model-relay/contract';
import { useListQuery } from '../../components/list-table/use-list-query';
import { apiData } from '../../lib/api';
import { searchRedemptions, searchRedemptionsKey } from './search-redemptions';

/** Every query of /api/redemption sits under this key. */
export const redemptionsKey = ['redemptions'] as const;
export const redemptionListKey = [...redemptionsKey, 'list'] as const;

/** GET /api/redemption/?p (admin). */
export const getRedemptions = (page: number) => apiData<RedemptionDto[]>(`/api/redemption/?p=${page}`);

/** All redemption codes as a paged list with search by id and name. */
export function useRedemptionList() {
  return useListQuery<RedemptionDto>({ key: redemptionListKey, fetchPage: getRedemptions, search: { key: searchRedemptionsKey, fetch: searchRedemptions } });
}
