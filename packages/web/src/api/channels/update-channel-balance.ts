import type { ChannelDto } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList, replaceCachedRow } from '../list-cache';
import { channelsKey } from './get-channels';

/** GET /api/channel/update_balance/{id}/: asks the upstream for the balance and stores it. */
export const updateChannelBalance = (id: number) => apiData<{ balance: number }>(`/api/channel/update_balance/${id}/`);

export function useUpdateChannelBalance() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateChannelBalance,
    onSuccess: ({ balance }, id) => {
      replaceCachedRow<ChannelDto>(client, channelsKey, id, (row) => ({ ...row, balance, balance_updated_time: Math.floor(Date.now() / 1000) }));
      return invalidateList(client, channelsKey);
    },
  });
}
