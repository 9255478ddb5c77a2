import { z } from 'zod';
import { idInput, integerInput, textInput } from './input.js';

/** Chinese messages of the redemption form, the top-up screen and their APIs (docs/console.md §5 and §8). */
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
/** Defaults of docs/console.md §5 and §9: quota 100000, count 1. */
export const DEFAULT_REDEMPTION_QUOTA = 100000;
export const DEFAULT_REDEMPTION_COUNT = 1;

/** A missing field reads as empty, so it gets the "please fill in" message rather than a type error. */
const orEmpty = (value: unknown) => value ?? '';
const name = z.preprocess(orEmpty, textInput('name', { max: REDEMPTION_NAME_MAX, tooLong: RedemptionMessages.nameTooLong }).refine((value) => value.length > 0, RedemptionMessages.nameRequired));
const quota = integerInput('quota', { min: 1, message: RedemptionMessages.quotaInvalid });

/** POST /api/redemption/: `count` codes of `quota` each, all named `name`. */
export const redemptionCreateSchema = z.object({
  name,
  quota: quota.default(DEFAULT_REDEMPTION_QUOTA),
  count: integerInput('count', { min: 1, max: REDEMPTION_COUNT_MAX, message: RedemptionMessages.countInvalid }).default(DEFAULT_REDEMPTION_COUNT),
});
export type RedemptionCreateInput = z.infer<typeof redemptionCreateSchema>;

const id = idInput('兑换码');

/** PUT /api/redemption/: name and quota of one code. */
export const redemptionUpdateSchema = z.object({ id, name, quota });
export type RedemptionUpdateInput = z.output<typeof redemptionUpdateSchema>;

/** PUT /api/redemption/?status_only=true: the toggle between 1 (unused) and 2 (disabled), docs/console.md §4. */
export const redemptionStatusSchema = z.object({
  id,
  status: integerInput('status', { message: RedemptionMessages.statusInvalid }).refine((s) => s === 1 || s === 2, RedemptionMessages.statusInvalid),
});
export type RedemptionStatusInput = z.output<typeof redemptionStatusSchema>;

/** POST /api/user/topup: redeem one code. */
export const redeemSchema = z.object({
  key: z.preprocess(orEmpty, textInput('key', { max: 64, tooLong: RedemptionMessages.keyInvalid }).refine((value) => value.length > 0, RedemptionMessages.keyRequired)),
});
export type RedeemInput = z.output<typeof redeemSchema>;

/** A redemption code as the admin API returns it (docs/console.md §3, "Redemption"). */
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
