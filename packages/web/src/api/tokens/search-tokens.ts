import type { TokenDto } from '@model-relay/contract';
import { apiData } from '../../lib/api';

export const searchTokensKey = (keyword: string) => ['tokens', 'search', keyword] as const;

/** GET /api/token/search?keyword: the caller's keys whose name starts with the keyword. */
export const searchTokens = (keyword: string) => apiData<TokenDto[]>(`/api/token/search?keyword=${encodeURIComponent(keyword)}`);
