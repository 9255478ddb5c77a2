import type { DashboardReport } from '@model-relay/contract';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { dashboardKey } from './get-dashboard-summary';

/**
 * GET /api/dashboard/self/report (own) or /api/dashboard/report (admin, everyone) with the screen's query
 * (start, end, granularity, tz and filters): totals, the series, by model and the top-N tables.
 */
export const getDashboardReport = (all: boolean, query: string) => apiData<DashboardReport>(`/api/dashboard/${all ? '' : 'self/'}report?${query}`);

/** The report for a query; the previous one stays on screen while a new range loads. */
export function useDashboardReport(all: boolean, query: string) {
  return useQuery({ queryKey: [...dashboardKey, 'report', { all, query }], queryFn: () => getDashboardReport(all, query), placeholderData: keepPreviousData, staleTime: 30_000 });
}
