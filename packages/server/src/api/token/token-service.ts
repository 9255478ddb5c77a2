import { TokenMessages, TokenStatus, maskTokenKey, tokenIdSchema, tokenInputSchema, tokenStatusSchema, type TokenDto } from '@model-relay/contract';
import { fail } from '../../lib/errors.js';
import { randomAlphanumeric } from '../../lib/random.js';
import { nowSeconds, parseInput } from '../../lib/validate.js';
import type { TokenOrder, TokensRepository } from '../../storage/repositories/tokens.js';
import type { TokenRow } from '../../storage/schema.js';
import type { Caller } from '../../auth/caller.js';

/** Keys are 48 random alphanumerics stored without the "sk-" prefix (docs/console.md §3). */
export const KEY_LENGTH = 48;

/** The key as the API shows it: masked, except right after its creation (`revealKey`). */
export function toTokenDto(row: TokenRow, revealKey = false): TokenDto {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    key: revealKey ? row.key : maskTokenKey(row.key),
    status: row.status,
    created_time: Number(row.created_time),
    accessed_time: Number(row.accessed_time),
    expired_time: Number(row.expired_time),
    remain_quota: Number(row.remain_quota),
    unlimited_quota: Boolean(row.unlimited_quota),
    used_quota: Number(row.used_quota),
    models: row.models ?? '',
    subnet: row.subnet ?? '',
    rpm_limit: Number(row.rpm_limit ?? 0),
    tpm_limit: Number(row.tpm_limit ?? 0),
    daily_quota_limit: Number(row.daily_quota_limit ?? 0),
    monthly_quota_limit: Number(row.monthly_quota_limit ?? 0),
  };
}

/** The caller's own API keys (docs/console.md §7, "Tokens"). */
export class TokenService {
  constructor(private readonly tokens: TokensRepository) {}

  async list(caller: Caller, page: number, order: string): Promise<TokenDto[]> {
    await this.tokens.expireOverdue(caller.id, nowSeconds());
    const safe: TokenOrder = order === 'remain_quota' || order === 'used_quota' ? order : '';
    return (await this.tokens.list(caller.id, page, safe)).map((row) => toTokenDto(row));
  }

  async search(caller: Caller, keyword: string): Promise<TokenDto[]> {
    const trimmed = keyword.trim();
    if (!trimmed) return this.list(caller, 0, '');
    return (await this.tokens.search(caller.id, trimmed)).map((row) => toTokenDto(row));
  }

  async get(caller: Caller, id: number): Promise<TokenDto> {
    return toTokenDto(await this.mustFind(caller, id));
  }

  async create(caller: Caller, body: unknown): Promise<TokenDto> {
    const input = parseInput(tokenInputSchema, body);
    const now = nowSeconds();
    if (input.expired_time !== -1 && input.expired_time <= now) fail(TokenMessages.expiryPast);
    const row = await this.tokens.insert({
      user_id: caller.id,
      key: randomAlphanumeric(KEY_LENGTH),
      status: TokenStatus.Enabled,
      name: input.name,
      created_time: now,
      rpm_limit: input.rpm_limit,
      tpm_limit: input.tpm_limit,
      daily_quota_limit: input.daily_quota_limit,
      monthly_quota_limit: input.monthly_quota_limit,
      accessed_time: now,
      expired_time: input.expired_time,
      remain_quota: input.remain_quota,
      unlimited_quota: input.unlimited_quota ? 1 : 0,
      used_quota: 0,
      request_count: 0,
      models: input.models,
      subnet: input.subnet,
    });
    return toTokenDto(row, true);
  }

  /** The whole key, for the console's explicit copy and open-in-client actions: only the owner's own. */
  async revealKey(caller: Caller, id: number): Promise<{ key: string }> {
    return { key: (await this.mustFind(caller, id)).key };
  }

  /** Full update of name, expiry, quota, models, IP list and limits. */
  async update(caller: Caller, body: unknown): Promise<TokenDto> {
    const { id } = parseInput(tokenIdSchema, body);
    const input = parseInput(tokenInputSchema, body);
    const token = await this.mustFind(caller, id);
    const now = nowSeconds();
    const changes: Partial<TokenRow> = {
      name: input.name,
      expired_time: input.expired_time,
      remain_quota: input.remain_quota,
      unlimited_quota: input.unlimited_quota ? 1 : 0,
      models: input.models,
      subnet: input.subnet,
      rpm_limit: input.rpm_limit,
      tpm_limit: input.tpm_limit,
      daily_quota_limit: input.daily_quota_limit,
      monthly_quota_limit: input.monthly_quota_limit,
    };
    // Extending an expired key or refilling an exhausted one makes it usable again.
    if (token.status === TokenStatus.Expired && (input.expired_time === -1 || input.expired_time > now)) changes.status = TokenStatus.Enabled;
    if (token.status === TokenStatus.Exhausted && (input.unlimited_quota || input.remain_quota > 0)) changes.status = TokenStatus.Enabled;
    await this.tokens.update(caller.id, id, changes);
    return this.get(caller, id);
  }

  /** Status-only update: the toggle moves between 1 (enabled) and 2 (disabled) only (docs/console.md §4). */
  async setStatus(caller: Caller, body: unknown): Promise<TokenDto> {
    const { id, status } = parseInput(tokenStatusSchema, body);
    const token = await this.mustFind(caller, id);
    if (status === TokenStatus.Enabled) {
      const now = nowSeconds();
      if (Number(token.expired_time) !== -1 && Number(token.expired_time) <= now) fail('令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期');
      if (!token.unlimited_quota && Number(token.remain_quota) <= 0) fail('令牌可用额度已用尽，无法启用，请先修改令牌剩余额度，或者设置为无限额度');
    }
    await this.tokens.update(caller.id, id, { status });
    return this.get(caller, id);
  }

  async delete(caller: Caller, id: number): Promise<void> {
    if (!(await this.tokens.delete(caller.id, id))) fail('令牌不存在');
  }

  private async mustFind(caller: Caller, id: number): Promise<TokenRow> {
    const token = await this.tokens.find(caller.id, id);
    if (!token) return fail('令牌不存在');
    return token;
  }
}
