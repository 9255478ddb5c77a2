import { integerInput } from './input.js';

/**
 * Per-key and per-user limits (issue 11): requests per minute, tokens per minute, quota per calendar day and per
 * calendar month. 0 means no limit of its own (a user's 0 falls back to the GroupLimits default of the group).
 */
export const LIMIT_FIELDS = ['rpm_limit', 'tpm_limit', 'daily_quota_limit', 'monthly_quota_limit'] as const;
export type LimitField = (typeof LIMIT_FIELDS)[number];

/** Chinese names of the limit fields, for forms and messages. */
export const LIMIT_LABELS: Record<LimitField, string> = {
  rpm_limit: '每分钟请求数',
  tpm_limit: '每分钟 tokens 数',
  daily_quota_limit: '每日额度',
  monthly_quota_limit: '每月额度',
};

/** rpm_limit is a 32-bit column; the others are 64-bit but computed with doubles, so only safe integers pass. */
const LIMIT_MAX: Record<LimitField, number> = {
  rpm_limit: 2_147_483_647,
  tpm_limit: Number.MAX_SAFE_INTEGER,
  daily_quota_limit: Number.MAX_SAFE_INTEGER,
  monthly_quota_limit: Number.MAX_SAFE_INTEGER,
};

const limit = (field: LimitField) => {
  const message = `${LIMIT_LABELS[field]}限制必须是非负整数（0 表示不限制）`;
  return integerInput(field, { min: 0, message }).refine((value) => value <= LIMIT_MAX[field], `${LIMIT_LABELS[field]}限制过大`);
};

/** The four limits, each defaulting to 0 (no limit): part of the token input and of the admin's user update. */
export const limitsInputShape = {
  rpm_limit: limit('rpm_limit').default(0),
  tpm_limit: limit('tpm_limit').default(0),
  daily_quota_limit: limit('daily_quota_limit').default(0),
  monthly_quota_limit: limit('monthly_quota_limit').default(0),
};

/** The same fields, each optional (a partial update leaves an absent one as it is). */
export const optionalLimitsShape = {
  rpm_limit: limit('rpm_limit').optional(),
  tpm_limit: limit('tpm_limit').optional(),
  daily_quota_limit: limit('daily_quota_limit').optional(),
  monthly_quota_limit: limit('monthly_quota_limit').optional(),
};

/** The limits as the token and user APIs return them. */
export interface Limits {
  rpm_limit: number;
  tpm_limit: number;
  daily_quota_limit: number;
  monthly_quota_limit: number;
}
