import type { DashboardSummary } from '@model-relay/contract';
import { useQuery } from '@tanstack/react-query';
import { apiData } from '../../lib/api';

export const dashboardKey = ['dashboard'] as const;

/** GET /api/dashboard/self/summary (own) or /api/dashboard/summary (admin, everyone): balance, today, this month. */
export const getDashboardSummary = (all: boolean, tz: number) => apiData<DashboardSummary>(`/api/dashboard/${all ? '' : 'self/'}summary?tz=${tz}`);

export function useDashboardSummary(all: boolean, tz: number) {
  return useQuery({ queryKey: [...dashboardKey, 'summary', { all, tz }], queryFn: () => getDashboardSummary(all, tz), staleTime: 30_000 });
}
