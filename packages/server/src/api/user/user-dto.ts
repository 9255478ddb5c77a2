import type { UserDto } from '@model-relay/contract';
import type { UserRow } from '../../storage/schema.js';

/** The user as the API shows it: never the password hash nor the access token. */
export function toUserDto(row: UserRow): UserDto {
  return {
    id: row.id,
    username: row.username,
    display_name: row.display_name,
    role: row.role,
    status: row.status,
    email: row.email,
    github_id: row.github_id,
    wechat_id: row.wechat_id,
    lark_id: row.lark_id,
    quota: Number(row.quota),
    used_quota: Number(row.used_quota),
    request_count: Number(row.request_count),
    group: row.group,
    aff_code: row.aff_code,
    inviter_id: row.inviter_id,
    rpm_limit: Number(row.rpm_limit ?? 0),
    tpm_limit: Number(row.tpm_limit ?? 0),
    daily_quota_limit: Number(row.daily_quota_limit ?? 0),
    monthly_quota_limit: Number(row.monthly_quota_limit ?? 0),
  };
}
