import { api } from '../../lib/api';

/** GET /api/user/aff: the caller's invite code; the envelope. */
export const getInviteCode = () => api<string>('/api/user/aff');
