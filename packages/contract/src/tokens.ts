import { z } from 'zod';
import { limitsInputShape, type Limits } from './limits.js';

/** Chinese messages of the token form and API (spec section 5). */
export const TokenMessages = {
  nameRequired: '请输入令牌名称',
  nameTooLong: '令牌名称过长',
  expiryInvalid: '过期时间格式错误！',
  expiryPast: '过期时间不能早于当前时间',
  quotaInvalid: '额度必须是非负整数',
  subnetInvalid: 'IP 限制格式错误：请填写以英文逗号分隔的 IP 或 CIDR，例如 192.168.1.0/24,10.0.0.1',
} as const;

export const TOKEN_NAME_MAX = 30;
/** Defaults of spec section 9: new token quota 500000, expiry -1 (never). */
export const DEFAULT_TOKEN_QUOTA = 500000;

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** 4 or 6 for a valid IPv4 / IPv6 address, else 0 (no node:net here: the console uses this too). */
export function ipFamily(address: string): 0 | 4 | 6 {
  if (IPV4.test(address)) return 4;
  if (!address.includes(':')) return 0;
  const halves = address.split('::');
  if (halves.length > 2) return 0;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const all = halves.flatMap(groups);
  let count = all.length;
  const last = all[all.length - 1];
  if (last && last.includes('.')) {
    if (!IPV4.test(last)) return 0;
    all.pop();
    count += 1;
  }
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return 0;
  if (halves.length === 2 ? count > 7 : count !== 8) return 0;
  return 6;
}

/** True when every comma-separated entry is an IP address or a CIDR with a valid prefix length. */
export function isValidSubnetList(text: string): boolean {
  const entries = text.split(',').map((s) => s.trim()).filter(Boolean);
  return entries.every((entry) => {
    const [address, prefix, extra] = entry.split('/');
    const family = ipFamily(address);
    if (!family || extra !== undefined) return false;
    if (prefix === undefined) return true;
    if (!/^\d+$/.test(prefix)) return false;
    return Number(prefix) <= (family === 4 ? 32 : 128);
  });
}

/** POST /api/token/ and PUT /api/token/ (full update) body. */
export const tokenInputSchema = z.object({
  name: z.string().trim().min(1, TokenMessages.nameRequired).max(TOKEN_NAME_MAX, TokenMessages.nameTooLong),
  expired_time: z.coerce.number().int(TokenMessages.expiryInvalid).default(-1),
  remain_quota: z.coerce.number().int(TokenMessages.quotaInvalid).min(0, TokenMessages.quotaInvalid).default(DEFAULT_TOKEN_QUOTA),
  unlimited_quota: z.coerce.boolean().default(false),
  models: z.string().trim().default(''),
  subnet: z
    .string()
    .trim()
    .default('')
    .refine((value) => value === '' || isValidSubnetList(value), TokenMessages.subnetInvalid),
  ...limitsInputShape,
});
export type TokenInput = z.infer<typeof tokenInputSchema>;

/**
 * A key as lists and reads show it: the first and last four characters around four asterisks
 * ("abcd****wxyz", shown as sk-abcd****wxyz). The whole key is sent only by POST /api/token/{id}/key.
 */
export function maskTokenKey(key: string): string {
  if (key.length <= 8) return '*'.repeat(key.length);
  return `${key.slice(0, 4)}****${key.slice(-4)}`;
}

/** The token as the API returns it; `key` is masked (maskTokenKey) except in the answer to its creation. */
export interface TokenDto extends Limits {
  id: number;
  user_id: number;
  name: string;
  key: string;
  status: number;
  created_time: number;
  accessed_time: number;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: boolean;
  used_quota: number;
  models: string;
  subnet: string;
}
