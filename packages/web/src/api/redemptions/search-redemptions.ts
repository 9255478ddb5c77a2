import type { RedemptionDto } from '@model-relay/contract';
import { apiData } from '../../lib/api';

export const searchRedemptionsKey = (keyword: string) => ['redemptions', 'search', keyword] as const;

/** GET /api/redemption/search?keyword (admin): exact id or name prefix. */
export const searchRedemptions = (keyword: string) => apiData<RedemptionDto[]>(`/api/redemption/search?keyword=${encodeURIComponent(keyword)}`);
