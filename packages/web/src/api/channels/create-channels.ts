import type { ChannelInput } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList } from '../list-cache';
import { channelsKey } from './get-channels';

/** POST /api/channel/: one channel per key line when batch-creating; answers how many. */
export const createChannels = (body: Partial<ChannelInput>) => apiData<number>('/api/channel/', { method: 'POST', body });

export function useCreateChannels() {
  const client = useQueryClient();
  return useMutation({ mutationFn: createChannels, onSuccess: () => invalidateList(client, channelsKey) });
}
