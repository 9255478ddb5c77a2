import { useQuery } from '@tanstack/react-query';
import { API_BASE } from '../../lib/api';

/**
 * GET /v1/models with one of the user's keys: the models that key may call (its model scope within the
 * group's). The relay answers in OpenAI's shape, {data: [{id}]}, or {error: {message}}.
 */
export async function getKeyModels(key: string): Promise<string[]> {
  const response = await fetch(`${API_BASE}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await response.json().catch(() => ({}))) as { data?: Array<{ id: string }>; error?: { message?: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  return (body.data ?? []).map((m) => m.id).sort();
}

/** The models of the key with this id (the key itself is not part of the cache key). */
export function useKeyModels(tokenId: number | undefined, key: string | undefined) {
  return useQuery({ queryKey: ['key-models', tokenId], queryFn: () => getKeyModels(key!), enabled: Boolean(key), staleTime: 60_000 });
}
