import { api } from '../../lib/api';

/** GET /api/models: the model names of each channel type, keyed by type, quietly; the envelope. */
export const getChannelTypeModels = () => api<Record<string, string[]>>('/api/models', { quiet: true });
