import type { RelayRequest } from './types.js';
import { BlockList, isIP } from 'node:net';
import { Role, TokenStatus, UserStatus } from '@model-relay/contract';
import type { RelayStore } from '../../storage/repositories/relay-store.js';
import type { TokenRow, UserRow } from '../../storage/schema.js';
import { RelayError } from '../relay-error.js';

export interface KeyAuth {
  token: TokenRow;
  user: UserRow;
  /** Channel pinned with sk-<key>-<channelId> (admins only). */
  pinnedChannelId?: number;
}

/**
 * Reads the API key: `Authorization: Bearer sk-...` (OpenAI), `x-api-key` (Anthropic SDKs send either),
 * `x-goog-api-key` or `?key=` (Gemini SDKs and CLI).
 */
export function readKey(request: RelayRequest): string | undefined {
  const header = request.headers.authorization;
  if (header) return header.replace(/^Bearer\s+/i, '').trim() || undefined;
  for (const name of ['x-api-key', 'x-goog-api-key'] as const) {
    const value = request.headers[name];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  const query = (request.query as { key?: unknown } | undefined)?.key;
  return typeof query === 'string' && query.trim() ? query.trim() : undefined;
}

/**
 * Authentication, the first step of handle-relay.ts: who is calling. Checks the key, its status, expiry, quota and
 * IP allow-list, and the owner's status.
 * An expired key is moved to status 3 here, so the console shows it.
 */
export async function authenticateKey(store: RelayStore, request: RelayRequest, options: { allowExhausted?: boolean } = {}): Promise<KeyAuth> {
  const raw = readKey(request);
  if (!raw) throw new RelayError(401, '未提供令牌 (Authorization: Bearer sk-...)', 'invalid_request_error', 'invalid_api_key');
  const { token, channelPart } = await findKey(store, raw.replace(/^sk-/, ''));
  if (!token) throw new RelayError(401, '无效的令牌', 'invalid_request_error', 'invalid_api_key');

  const now = Math.floor(Date.now() / 1000);
  if (token.status === TokenStatus.Expired || (Number(token.expired_time) !== -1 && Number(token.expired_time) < now)) {
    if (token.status !== TokenStatus.Expired) await store.setTokenStatus(token.id, TokenStatus.Expired);
    throw new RelayError(401, '该令牌已过期', 'invalid_request_error', 'token_expired');
  }
  // Only the stored status says a key is used up. A balance of zero can be temporary (the key's own requests in
  // flight hold it); the ledger refuses what the balance cannot cover and marks the key exhausted (status 4)
  // once nothing is left and nothing is in flight.
  const exhausted = token.status === TokenStatus.Exhausted;
  if (exhausted && !options.allowExhausted) throw new RelayError(429, '该令牌额度已用尽', 'insufficient_quota', 'insufficient_quota');
  if (token.status !== TokenStatus.Enabled && !exhausted) throw new RelayError(401, '该令牌状态不可用', 'invalid_request_error', 'token_disabled');
  if (token.subnet && !ipAllowed(request.ip, token.subnet)) {
    throw new RelayError(403, `该令牌只允许指定 IP 访问，当前 IP：${request.ip}`, 'invalid_request_error', 'ip_not_allowed');
  }

  const user = await store.findUser(token.user_id);
  if (!user || user.status !== UserStatus.Enabled) throw new RelayError(403, '用户已被封禁', 'invalid_request_error', 'user_disabled');

  let pinnedChannelId: number | undefined;
  if (channelPart !== undefined) {
    if (user.role < Role.Admin) throw new RelayError(403, '普通用户不支持指定渠道', 'invalid_request_error', 'channel_pin_forbidden');
    pinnedChannelId = Number(channelPart);
    if (!Number.isInteger(pinnedChannelId) || pinnedChannelId <= 0) throw new RelayError(400, '无效的渠道 ID', 'invalid_request_error');
  }
  return { token, user, pinnedChannelId };
}

/**
 * The key, and the channel an admin pins with `<key>-<channel id>`. The whole string is looked up first, so a key that
 * itself contains "-" (keys imported from new-api may) works as it is, and pinned as `<key>-<channel id>` too.
 */
async function findKey(store: RelayStore, text: string): Promise<{ token: TokenRow | undefined; channelPart?: string }> {
  const whole = await store.findTokenByKey(text);
  const dash = text.lastIndexOf('-');
  if (whole || dash <= 0) return { token: whole };
  return { token: await store.findTokenByKey(text.slice(0, dash)), channelPart: text.slice(dash + 1) };
}

/** True when `ip` is inside one of the comma-separated CIDRs (or equal to a plain address). */
export function ipAllowed(ip: string, subnets: string): boolean {
  const list = new BlockList();
  const address = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  for (const entry of subnets.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [net, prefix] = entry.split('/');
    const netFamily = isIP(net) === 6 ? 'ipv6' : isIP(net) === 4 ? 'ipv4' : undefined;
    if (!netFamily) continue;
    if (prefix === undefined) list.addAddress(net, netFamily);
    else list.addSubnet(net, Number(prefix), netFamily);
  }
  return list.check(address, family);
}
