import { API_BASE } from '../../lib/api';

/**
 * GET /api/notice: the Notice option. Read with a plain fetch, not the request client: a missing notice is no error
 * and shows no toast (the caller ignores any failure).
 */
export const getNotice = () =>
  fetch(`${API_BASE}/api/notice`, { credentials: 'same-origin' }).then((response) => response.json() as Promise<{ success?: boolean; data?: unknown }>);
