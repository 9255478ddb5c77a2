import { useMutation } from '@tanstack/react-query';
import { api } from '../../lib/api';

/**
 * GET /api/channel/test?scope=all|disabled: starts the background run. Answers whether this call started it
 * (false while one already runs: the screen then follows the running one).
 */
export async function testAllChannels(scope: 'all' | 'disabled'): Promise<{ started: boolean; message: string }> {
  const res = await api(`/api/channel/test?scope=${scope}`, { quiet: true });
  return { started: res.success, message: res.message };
}

export function useTestAllChannels() {
  return useMutation({ mutationFn: testAllChannels });
}
