import type { ChannelDto } from '@model-relay/contract';
import { useQuery } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { channelsKey } from './get-channels';

export const channelKey = (id: number) => [...channelsKey, 'detail', id] as const;

/** GET /api/channel/{id} (admin; without its key). */
export const getChannel = (id: number) => apiData<ChannelDto>(`/api/channel/${id}`);

export function useChannel(id: number | undefined) {
  return useQuery({ queryKey: channelKey(id ?? 0), queryFn: () => getChannel(id!), enabled: id !== undefined });
}
