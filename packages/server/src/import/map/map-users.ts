import { Role, UserStatus } from '@model-relay/contract';
import type { UserRow } from '../../storage/schema.js';
import type { ImportReport } from '../report/import-report.js';
import type { Product } from '../source/detect-product.js';
import type { SourceRow } from '../source/open-source.js';
import { fit, int, isSet, rowName, str } from './values.js';

export type UserValues = Omit<UserRow, 'id' | 'username_key' | 'session_version' | 'rpm_limit' | 'tpm_limit' | 'daily_quota_limit' | 'monthly_quota_limit'>;

/** A source user in our columns; `inviter_id` is still the source's id (the plan maps it). */
export interface MappedUser {
  sourceId: number;
  label: string;
  values: UserValues;
}

/** Sign-in ids our accounts cannot hold (they are listed, never dropped silently). */
const UNMAPPED_USER_FIELDS = ['oidc_id', 'discord_id', 'telegram_id', 'linux_do_id', 'stripe_customer', 'remark', 'setting', 'aff_quota', 'aff_history'];
/** one-api marks a deleted user with status 3; new-api soft-deletes (deleted_at). */
const ONE_API_DELETED = 3;

function role(value: number): number {
  if (value >= Role.Root) return Role.Root;
  if (value >= Role.Admin) return Role.Admin;
  return Role.Common;
}

export function mapUser(product: Product, row: SourceRow, report: ImportReport): MappedUser {
  const label = rowName(row, row.username);
  const deleted = product === 'one-api' ? int(row.status) === ONE_API_DELETED : isSet(row.deleted_at);
  let status = int(row.status, UserStatus.Enabled) === UserStatus.Enabled ? UserStatus.Enabled : UserStatus.Disabled;
  if (deleted) {
    status = UserStatus.Disabled;
    report.disable('users', label, `源数据库中已删除：以封禁状态导入，余额 ${int(row.quota)} 保留`);
  }
  const text = (column: string, max: number) => {
    const [value, cut] = fit(str(row[column]).trim(), max);
    if (cut) report.change('users', label, `${column} 超过 ${max} 个字符，已截断`);
    return value;
  };
  for (const field of UNMAPPED_USER_FIELDS) {
    const value = row[field];
    if (isSet(value) && str(value) !== '0' && str(value) !== '{}') report.noEquivalent('users', field, label);
  }
  const accessToken = str(row.access_token).trim();
  return {
    sourceId: int(row.id),
    label,
    values: {
      username: text('username', 64),
      password: str(row.password),
      display_name: text('display_name', 64),
      role: role(int(row.role, Role.Common)),
      status,
      email: text('email', 128),
      github_id: text('github_id', 128),
      wechat_id: text('wechat_id', 128),
      lark_id: text('lark_id', 128),
      access_token: accessToken && accessToken.length <= 64 ? accessToken : null,
      quota: int(row.quota),
      used_quota: int(row.used_quota),
      request_count: int(row.request_count),
      group: text('group', 64) || 'default',
      aff_code: text('aff_code', 32),
      inviter_id: int(row.inviter_id),
      created_at: int(row.created_at),
    },
  };
}
