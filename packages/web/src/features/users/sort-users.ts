import type { UserDto } from '@model-relay/contract';

export type UserSortKey = 'id' | 'username' | 'group' | 'quota' | 'role' | 'status';

/** Local header sort of the user list (spec section 2): a second click on the same header reverses. */
export function sortUsers(rows: UserDto[], key: UserSortKey, descending: boolean): UserDto[] {
  const sorted = [...rows].sort((a, b) => {
    const x = a[key];
    const y = b[key];
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x ?? '').localeCompare(String(y ?? ''));
  });
  return descending ? sorted.reverse() : sorted;
}
