import { api } from '../../lib/api';

/** GET /api/option/: every option as { key, value }, secrets left out (admin); the envelope. */
export const getOptions = () => api<Array<{ key: string; value: string }>>('/api/option/');
