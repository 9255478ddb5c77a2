import type { RedeemInput } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { logsKey } from '../logs/get-logs';
import { selfKey } from '../users/get-self';

/** POST /api/user/topup: redeems a code for the caller; answers the quota added. */
export const redeemCode = (key: string) => apiData<number>('/api/user/topup', { method: 'POST', body: { key } satisfies RedeemInput });

export function useRedeemCode() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: redeemCode,
    // The balance shown everywhere changes at once; the new top-up log row shows on the next visit to the logs.
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: logsKey, refetchType: 'none' });
      await client.invalidateQueries({ queryKey: selfKey });
    },
  });
}
