import type { ChannelDto } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList, updateCachedRows } from '../list-cache';
import { channelsKey } from './get-channels';

/** DELETE /api/channel/{id}/. */
export const deleteChannel = (id: number) => apiData<unknown>(`/api/channel/${id}/`, { method: 'DELETE' });

export function useDeleteChannel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteChannel,
    onSuccess: (_data, id) => {
      updateCachedRows<ChannelDto>(client, channelsKey, (rows) => rows.filter((row) => row.id !== id));
      return invalidateList(client, channelsKey);
    },
  });
}
