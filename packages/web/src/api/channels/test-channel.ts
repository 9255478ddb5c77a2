import type { ChannelDto } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../lib/api';
import { invalidateList, replaceCachedRow } from '../list-cache';
import { channelsKey } from './get-channels';

export interface ChannelTestOutcome {
  success: boolean;
  /** the upstream's reason when the test failed */
  message: string;
  /** seconds */
  time: number;
  model: string;
}

/**
 * GET /api/channel/test/{id}?model: one test against the upstream. A failed test is an answer, not an error:
 * the screen names the channel and the reason itself (quiet), and the row takes the channel as the test left it.
 */
export async function testChannel({ id, model }: { id: number; model: string }): Promise<ChannelTestOutcome & { channel?: ChannelDto }> {
  const res = await api<{ time: number; model: string; channel?: ChannelDto }>(`/api/channel/test/${id}?model=${encodeURIComponent(model)}`, { quiet: true });
  return { success: res.success, message: res.message, time: res.data?.time ?? 0, model: res.data?.model ?? model, channel: res.data?.channel };
}

export function useTestChannel() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: testChannel,
    onSuccess: (outcome, { id }) => {
      // A refusal before any request (not a chat model) changes nothing; a test that ran comes back with the channel.
      const tested = outcome.channel ?? (outcome.success ? { response_time: Math.round(outcome.time * 1000), test_time: Math.floor(Date.now() / 1000), test_error: '' } : undefined);
      if (!tested) return;
      replaceCachedRow<ChannelDto>(client, channelsKey, id, (row) => ({ ...row, ...tested }));
      return invalidateList(client, channelsKey);
    },
  });
}
