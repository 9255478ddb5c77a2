import type { UserDto } from '@model-relay/contract';
import { apiData } from '../../lib/api';

export const searchUsersKey = (keyword: string) => ['users', 'search', keyword] as const;

/** GET /api/user/search?keyword (admin): exact id, or prefix of username, display name or e-mail. */
export const searchUsers = (keyword: string) => apiData<UserDto[]>(`/api/user/search?keyword=${encodeURIComponent(keyword)}`);
