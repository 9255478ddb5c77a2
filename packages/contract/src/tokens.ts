import { z } from 'zod';
import { booleanInput, idInput, integerInput, textInput } from './input.js';
import { limitsInputShape, type Limits } from './limits.js';

/** Chinese messages of the token form and API (docs/console.md §5). */
export const TokenMessages = {
  nameRequired: '请输入令牌名称',
  nameTooLong: '令牌名称过长',
  expiryInvalid: '过期时间格式错误！',
  expiryPast: '过期时间不能早于当前时间',
  quotaInvalid: '额度必须是非负整数',
  subnetInvalid: 'IP 限制格式错误：请填写以英文逗号分隔的 IP 或 CIDR，例如 192.168.1.0/24,10.0.0.1',
} as const;

export const TOKEN_NAME_MAX = 30;
/** Defaults of docs/console.md §9: new token quota 500000, expiry -1 (never). */
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

/** Size limits of a key's fields (subnet is a varchar(1024); models is free text, bounded so nobody stores megabytes). */
export const TOKEN_MODELS_MAX = 8192;
export const TOKEN_SUBNET_MAX = 1024;
/** Latest expiry the form can show: 9999-12-31 23:59:59 UTC. */
export const TOKEN_EXPIRY_MAX = 253402300799;

/** POST /api/token/ and PUT /api/token/ (full update) body. */
export const tokenInputSchema = z.object({
  name: textInput('name', { max: TOKEN_NAME_MAX, tooLong: TokenMessages.nameTooLong }).pipe(z.string().min(1, TokenMessages.nameRequired)),
  expired_time: integerInput('expired_time', { min: -1, max: TOKEN_EXPIRY_MAX, message: TokenMessages.expiryInvalid }).default(-1),
  remain_quota: integerInput('remain_quota', { min: 0, message: TokenMessages.quotaInvalid }).default(DEFAULT_TOKEN_QUOTA),
  unlimited_quota: booleanInput('unlimited_quota').default(false),
  models: textInput('models', { max: TOKEN_MODELS_MAX }).default(''),
  subnet: textInput('subnet', { max: TOKEN_SUBNET_MAX })
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

/** PUT /api/token/ needs the id; PUT /api/token/?status_only=true only id and status 1 or 2 (docs/console.md §4). */
export const tokenIdSchema = z.object({ id: idInput('令牌') });
export const tokenStatusSchema = z.object({
  id: idInput('令牌'),
  status: integerInput('status', { message: '令牌状态只能在启用与禁用之间切换' }).refine((status) => status === 1 || status === 2, '令牌状态只能在启用与禁用之间切换'),
});
export type TokenStatusInput = z.output<typeof tokenStatusSchema>;
/** PUT /api/token/: the id and the whole key form. */
export type TokenUpdateInput = TokenInput & z.output<typeof tokenIdSchema>;

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
