import { api } from '../../lib/api';

/** DELETE /api/user/self: deletes the caller's own account; the envelope. */
export const deleteSelf = () => api('/api/user/self', { method: 'DELETE' });
