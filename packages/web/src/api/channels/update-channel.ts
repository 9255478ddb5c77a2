import type { ChannelDto, ChannelUpdate } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList, replaceCachedRow } from '../list-cache';
import { channelsKey } from './get-channels';

/** PUT /api/channel/: id plus the changed fields (status, priority, weight) or the whole channel. */
export const updateChannel = (body: ChannelUpdate) => apiData<ChannelDto>('/api/channel/', { method: 'PUT', body });

export function useUpdateChannel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateChannel,
    onSuccess: (channel) => {
      replaceCachedRow<ChannelDto>(client, channelsKey, channel.id, (row) => ({ ...row, ...channel }));
      return invalidateList(client, channelsKey);
    },
  });
}
