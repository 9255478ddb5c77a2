import type { UserDto } from '@model-relay/contract';
import { describe, expect, it } from 'vitest';
import { sortUsers } from './sort-users';

const user = (id: number, username: string, quota: number, role = 1): UserDto =>
  ({ id, username, quota, role, status: 1, group: 'default', display_name: '', email: '', used_quota: 0, request_count: 0 }) as UserDto;

describe('user list header sort', () => {
  // covers S2-USERS-11, S2-USERS-12
  it('sorts locally by the clicked column; a second click reverses', () => {
    const rows = [user(2, 'bob', 50), user(1, 'amy', 300), user(3, 'cat', 10)];
    expect(sortUsers(rows, 'quota', false).map((u) => u.id)).toEqual([3, 2, 1]);
    expect(sortUsers(rows, 'quota', true).map((u) => u.id)).toEqual([1, 2, 3]);
    expect(sortUsers(rows, 'username', false).map((u) => u.username)).toEqual(['amy', 'bob', 'cat']);
    expect(rows.map((u) => u.id)).toEqual([2, 1, 3]);
  });
});
