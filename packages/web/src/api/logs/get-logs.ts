import type { LogDto } from '@model-relay/contract';
import { useListQuery } from '../../components/list-table/use-list-query';
import { apiData } from '../../lib/api';

export const logsKey = ['logs'] as const;

/**
 * GET /api/log/ (admin, everyone's) or /api/log/self/ (one's own), with the filter query of the log screen
 * (page excluded: `query(page)` adds it).
 */
export const getLogs = (admin: boolean, query: string) => apiData<LogDto[]>(`${admin ? '/api/log/' : '/api/log/self/'}?${query}`);

/** The log rows under a filter, as a paged list (no search box: the filters are the search). */
export function useLogList(admin: boolean, filterQuery: (page?: number) => string) {
  const filters = filterQuery();
  return useListQuery<LogDto>({ key: [...logsKey, 'list', { admin, filters }], fetchPage: (page) => getLogs(admin, filterQuery(page)) });
}

/**
 * GET /api/log/self/?request_id: the caller's own log row of one relay request (by the X-Request-Id the relay
 * answered with), searched from `since` on; undefined until the ledger has written it.
 */
export async function findOwnLog(requestId: string, since: number): Promise<LogDto | undefined> {
  const rows = await apiData<LogDto[]>(`/api/log/self/?p=0&request_id=${encodeURIComponent(requestId)}&start_timestamp=${since}`, { quiet: true });
  return rows[0];
}
