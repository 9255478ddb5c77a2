import { api } from '../../lib/api';

/** GET /api/about: the configured About content, quietly; the envelope. */
export const getAbout = () => api<string>('/api/about', { quiet: true });
