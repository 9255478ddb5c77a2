import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { invalidateList } from '../list-cache';
import { logsKey } from './get-logs';

/** DELETE /api/log/?target_timestamp: clears every log row older than the time; answers the count (quiet: the screen words failures). */
export const deleteLogs = (before: number) => api<number>(`/api/log/?target_timestamp=${before}`, { method: 'DELETE', quiet: true });

export function useDeleteLogs() {
  const client = useQueryClient();
  return useMutation({ mutationFn: deleteLogs, onSuccess: () => invalidateList(client, logsKey) });
}
