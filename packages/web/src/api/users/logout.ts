import { api } from '../../lib/api';

/** GET /api/user/logout: ends the session. */
export const logout = () => api('/api/user/logout');
