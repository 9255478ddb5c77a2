import { apiData } from '../../lib/api';

/**
 * POST /api/token/{id}/key: the whole key, for the copy and open-in-client actions only (lists show it masked).
 * Not cached: it is asked for at the moment of the action and kept nowhere.
 */
export const revealTokenKey = async (id: number): Promise<string> => (await apiData<{ key: string }>(`/api/token/${id}/key`, { method: 'POST' })).key;
