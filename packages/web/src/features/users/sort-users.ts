import type { UserDto } from '@model-relay/contract';
import { sortRows } from '../../components/use-header-sort';

export type UserSortKey = 'id' | 'username' | 'group' | 'quota' | 'role' | 'status';

/** Local header sort of the user list (spec section 2): a second click on the same header reverses. */
export const sortUsers = (rows: UserDto[], key: UserSortKey, descending: boolean): UserDto[] => sortRows(rows, key, descending);
