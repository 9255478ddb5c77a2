import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList } from '../list-cache';
import { channelsKey } from './get-channels';

/** DELETE /api/channel/disabled: answers how many were deleted. The screen reloads its list afterwards. */
export const deleteDisabledChannels = () => apiData<number>('/api/channel/disabled', { method: 'DELETE' });

export function useDeleteDisabledChannels() {
  const client = useQueryClient();
  return useMutation({ mutationFn: deleteDisabledChannels, onSuccess: () => invalidateList(client, channelsKey) });
}
