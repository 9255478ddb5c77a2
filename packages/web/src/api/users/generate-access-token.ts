import { api } from '../../lib/api';

/** GET /api/user/token: a new system access token for the caller (the old one stops working); the envelope. */
export const generateAccessToken = () => api<string>('/api/user/token');
