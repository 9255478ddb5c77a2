import { api } from '../../lib/api';

/** GET /api/oauth/state: a state for opening a provider's authorisation page; the envelope. */
export const getOAuthState = () => api<string>('/api/oauth/state');
