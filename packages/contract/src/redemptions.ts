import { z } from 'zod';

/** Chinese messages of the redemption form, the top-up screen and their APIs (spec sections 5 and 8). */
export const RedemptionMessages = {
  nameRequired: '请输入兑换码名称',
  nameTooLong: '兑换码名称不得超过 20 个字符',
  quotaInvalid: '额度必须是正整数',
  countInvalid: '生成数量必须是 1 到 100 之间的整数',
  statusInvalid: '兑换码状态只能在未使用与已禁用之间切换',
  keyRequired: '请输入兑换码！',
  keyInvalid: '无效的兑换码',
  keyUsed: '该兑换码已被使用',
  keyDisabled: '该兑换码已被禁用',
  notFound: '兑换码不存在',
  usedLocked: '兑换码已被使用，不能再修改',
  topUpLinkMissing: '超级管理员未设置充值链接！',
} as const;

export const REDEMPTION_NAME_MAX = 20;
export const REDEMPTION_COUNT_MAX = 100;
/** Defaults of spec sections 5 and 9: quota 100000, count 1. */
export const DEFAULT_REDEMPTION_QUOTA = 100000;
export const DEFAULT_REDEMPTION_COUNT = 1;

const name = z.string().trim().min(1, RedemptionMessages.nameRequired).max(REDEMPTION_NAME_MAX, RedemptionMessages.nameTooLong);
const quota = z.coerce
  .number(RedemptionMessages.quotaInvalid)
  .int(RedemptionMessages.quotaInvalid)
  .min(1, RedemptionMessages.quotaInvalid)
  .max(Number.MAX_SAFE_INTEGER, RedemptionMessages.quotaInvalid);

/** POST /api/redemption/: `count` codes of `quota` each, all named `name`. */
export const redemptionCreateSchema = z.object({
  name,
  quota: quota.default(DEFAULT_REDEMPTION_QUOTA),
  count: z.coerce
    .number(RedemptionMessages.countInvalid)
    .int(RedemptionMessages.countInvalid)
    .min(1, RedemptionMessages.countInvalid)
    .max(REDEMPTION_COUNT_MAX, RedemptionMessages.countInvalid)
    .default(DEFAULT_REDEMPTION_COUNT),
});
export type RedemptionCreateInput = z.infer<typeof redemptionCreateSchema>;

const id = z.coerce.number('无效的兑换码 ID').int('无效的兑换码 ID').positive('无效的兑换码 ID');

/** PUT /api/redemption/: name and quota of one code. */
export const redemptionUpdateSchema = z.object({ id, name, quota });

/** PUT /api/redemption/?status_only=true: the toggle between 1 (unused) and 2 (disabled), spec section 4. */
export const redemptionStatusSchema = z.object({
  id,
  status: z.coerce.number().refine((s) => s === 1 || s === 2, RedemptionMessages.statusInvalid),
});

/** POST /api/user/topup: redeem one code. */
export const redeemSchema = z.object({ key: z.string(RedemptionMessages.keyRequired).trim().min(1, RedemptionMessages.keyRequired).max(64, RedemptionMessages.keyInvalid) });

/** A redemption code as the admin API returns it (spec section 3, "Redemption"). */
export interface RedemptionDto {
  id: number;
  /** the admin who created it */
  user_id: number;
  name: string;
  key: string;
  status: number;
  quota: number;
  created_time: number;
  /** 0 while unused */
  redeemed_time: number;
  /** the user who redeemed it; 0 while unused */
  used_user_id: number;
}
