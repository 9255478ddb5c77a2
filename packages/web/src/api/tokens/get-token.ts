import type { TokenDto } from '@model-relay/contract';
import { useQuery } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { tokensKey } from './get-tokens';

export const tokenKey = (id: number) => [...tokensKey, 'detail', id] as const;

/** GET /api/token/{id}: one of the caller's keys (key masked). */
export const getToken = (id: number) => apiData<TokenDto>(`/api/token/${id}`);

export function useToken(id: number | undefined) {
  return useQuery({ queryKey: tokenKey(id ?? 0), queryFn: () => getToken(id!), enabled: id !== undefined });
}
