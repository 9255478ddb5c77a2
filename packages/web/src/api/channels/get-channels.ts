import type { ChannelDto } from '@model-relay/contract';
import { useListQuery } from '../../components/list-table/use-list-query';
import { apiData } from '../../lib/api';
import { searchChannels, searchChannelsKey } from './search-channels';

/** Every query of /api/channel sits under this key. */
export const channelsKey = ['channels'] as const;
export const channelListKey = [...channelsKey, 'list'] as const;

/** GET /api/channel/?p (admin; keys never included). */
export const getChannels = (page: number) => apiData<ChannelDto[]>(`/api/channel/?p=${page}`);

/** All channels as a paged list with search by id, name and key. */
export function useChannelList() {
  return useListQuery<ChannelDto>({ key: channelListKey, fetchPage: getChannels, search: { key: searchChannelsKey, fetch: searchChannels } });
}
