import type { ManageUserInput } from '@model-relay/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiData } from '../../lib/api';
import { invalidateList, updateCachedRows } from '../list-cache';
import { usersKey, type UserRow } from './get-users';

/** POST /api/user/manage: promote, demote, delete, disable, enable. Answers the row's new role and status. */
export const manageUser = ({ username, action }: ManageUserInput) =>
  apiData<{ role: number; status: number }>('/api/user/manage', { method: 'POST', body: { username, action } });

export function useManageUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: manageUser,
    onSuccess: (result, { username, action }) => {
      // The row takes the returned role and status; a deleted row is marked, not dropped (docs/console.md §4).
      updateCachedRows<UserRow>(client, usersKey, (rows) =>
        rows.map((row) => (row.username !== username ? row : action === 'delete' ? { ...row, deleted: true } : { ...row, role: result.role, status: result.status })),
      );
      return invalidateList(client, usersKey);
    },
  });
}
