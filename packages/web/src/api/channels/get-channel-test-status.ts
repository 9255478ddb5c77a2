import type { ChannelTestProgress } from '@model-relay/contract';
import { useQuery } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { channelsKey } from './get-channels';

export const channelTestStatusKey = [...channelsKey, 'test-status'] as const;

/** GET /api/channel/test/status: progress of the background "test all" run. */
export const getChannelTestStatus = () => apiData<ChannelTestProgress>('/api/channel/test/status', { quiet: true });

/** Polls the progress every second while `watching`. */
export function useChannelTestStatus(watching: boolean) {
  return useQuery({ queryKey: channelTestStatusKey, queryFn: getChannelTestStatus, enabled: watching, refetchInterval: watching ? 1000 : false, gcTime: 0 });
}
