import { PAGE_SIZE, type TokenDto } from '@model-relay/contract';
import { useQuery } from '@tanstack/react-query';
import { useListQuery } from '../../components/list-table/use-list-query';
import { apiData } from '../../lib/api';
import { searchTokens, searchTokensKey } from './search-tokens';

/** Every query of /api/token sits under this key, so a mutation invalidates all of them at once. */
export const tokensKey = ['tokens'] as const;
export const tokenListKey = (order: string) => [...tokensKey, 'list', { order }] as const;

/** GET /api/token/?p&order: one page of the caller's keys (keys masked). */
export const getTokens = (page: number, order: string) => apiData<TokenDto[]>(`/api/token/?p=${page}&order=${order}`);

/** The caller's keys as a paged list with search by name. */
export function useTokenList(order: string) {
  return useListQuery<TokenDto>({
    key: tokenListKey(order),
    fetchPage: (page) => getTokens(page, order),
    search: { key: searchTokensKey, fetch: searchTokens },
  });
}

/** Every key of the caller (server pages until a short one; at most 50 pages), for the pickers of other screens. */
export async function getAllTokens(): Promise<TokenDto[]> {
  const all: TokenDto[] = [];
  for (let page = 0; page < 50; page++) {
    const rows = await getTokens(page, '');
    all.push(...rows);
    if (rows.length < PAGE_SIZE) break;
  }
  return all;
}

/** The caller's keys for a picker (the dashboard's key filter, the playground's key). */
export function useAllTokens(enabled = true) {
  return useQuery({ queryKey: [...tokensKey, 'all'], queryFn: getAllTokens, enabled, staleTime: 30_000 });
}
