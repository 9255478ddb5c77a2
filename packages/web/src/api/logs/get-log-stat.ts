import { apiData } from '../../lib/api';

/** GET /api/log/stat (admin) or /api/log/self/stat: the quota consumed under the filter. Asked for on click. */
export const getLogStat = (admin: boolean, query: string) => apiData<{ quota: number }>(`${admin ? '/api/log/stat' : '/api/log/self/stat'}?${query}`);
