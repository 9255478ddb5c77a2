import type { ChannelDto } from '@model-relay/contract';
import { apiData } from '../../lib/api';

export const searchChannelsKey = (keyword: string) => ['channels', 'search', keyword] as const;

/** GET /api/channel/search?keyword (admin): id, name or key. */
export const searchChannels = (keyword: string) => apiData<ChannelDto[]>(`/api/channel/search?keyword=${encodeURIComponent(keyword)}`);
