/** Roles of docs/console.md §1/§6: ordinary user 1, admin 10, super admin 100. */
export const Role = { Guest: 0, Common: 1, Admin: 10, Root: 100 } as const;

/** User status (docs/console.md §4): 1 activated, 2 banned. */
export const UserStatus = { Enabled: 1, Disabled: 2 } as const;

/** Token status (docs/console.md §4). Only 1 <-> 2 is toggled by users; 3 and 4 are reached by the relay. */
export const TokenStatus = { Enabled: 1, Disabled: 2, Expired: 3, Exhausted: 4 } as const;

/** Channel status (docs/console.md §4): 1 enabled, 2 manually disabled, 3 automatically disabled. */
export const ChannelStatus = { Enabled: 1, ManuallyDisabled: 2, AutoDisabled: 3 } as const;

/** Redemption status (docs/console.md §4): 1 unused, 2 disabled, 3 used. */
export const RedemptionStatus = { Unused: 1, Disabled: 2, Used: 3 } as const;

/** Log types (docs/console.md §4). 0 means "all" in filters. */
export const LogType = { All: 0, TopUp: 1, Consume: 2, Manage: 3, System: 4, Error: 5 } as const;

export const isAdminRole = (role: number | undefined | null): boolean => (role ?? 0) >= Role.Admin;
export const isRootRole = (role: number | undefined | null): boolean => (role ?? 0) >= Role.Root;

/** Chinese label of a role; anything unknown is "未知身份" (docs/console.md §3). */
export function roleLabel(role: number): string {
  switch (role) {
    case Role.Common:
      return '普通用户';
    case Role.Admin:
      return '管理员';
    case Role.Root:
      return '超级管理员';
    default:
      return '未知身份';
  }
}

/** Items per page of every paged list (one-api's ItemsPerPage). */
export const PAGE_SIZE = 10;
