import type { StatusObject } from '@model-relay/contract';
import { api } from '../../lib/api';

/** GET /api/status: the public status object (docs/console.md §3), quietly; the envelope. */
export const getStatus = () => api<StatusObject>('/api/status', { quiet: true });
