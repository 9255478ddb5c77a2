import type { UserDto } from '@model-relay/contract';
import { useListQuery } from '../../components/list-table/use-list-query';
import { apiData } from '../../lib/api';
import { searchUsers, searchUsersKey } from './search-users';

/** A user row; `deleted` marks a row removed locally (docs/console.md §3: "deleted: a local flag only"). */
export type UserRow = UserDto & { deleted?: boolean };

/** Every admin query of /api/user sits under this key. */
export const usersKey = ['users'] as const;
export const userListKey = (order: string) => [...usersKey, 'list', { order }] as const;

/** GET /api/user/?p&order (admin). */
export const getUsers = (page: number, order: string) => apiData<UserRow[]>(`/api/user/?p=${page}&order=${order}`);

/** All users as a paged list with search by id, username, display name or e-mail. */
export function useUserList(order: string) {
  return useListQuery<UserRow>({
    key: userListKey(order),
    fetchPage: (page) => getUsers(page, order),
    search: { key: searchUsersKey, fetch: searchUsers },
  });
}
