import {
  RedemptionMessages,
  RedemptionStatus,
  formatQuota,
  redeemSchema,
  redemptionCreateSchema,
  redemptionStatusSchema,
  redemptionUpdateSchema,
  type RedemptionDto,
} from '@model-relay/contract';
import { fail } from '../../lib/errors.js';
import { randomHex } from '../../lib/random.js';
import { nowSeconds, parseInput } from '../../lib/validate.js';
import type { OptionStore } from '../../options/option-store.js';
import { RedeemerGoneError, type RedemptionsRepository } from '../../storage/repositories/redemptions.js';
import type { RedemptionRow } from '../../storage/schema.js';
import type { Caller } from '../../auth/caller.js';

export function toRedemptionDto(row: RedemptionRow): RedemptionDto {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    key: row.key,
    status: row.status,
    quota: Number(row.quota),
    created_time: Number(row.created_time),
    redeemed_time: Number(row.redeemed_time),
    used_user_id: Number(row.used_user_id),
  };
}

/** A new code: 32 hex digits (128 random bits, one-api's format), far beyond guessing. */
export const newRedemptionKey = (): string => randomHex(16);

/** Redemption codes: the admin API of docs/console.md §7 and redeeming a code for quota (POST /api/user/topup). */
export class RedemptionService {
  constructor(
    private readonly redemptions: RedemptionsRepository,
    private readonly options: OptionStore,
  ) {}

  async list(page: number): Promise<RedemptionDto[]> {
    return (await this.redemptions.list(page)).map(toRedemptionDto);
  }

  async search(keyword: string): Promise<RedemptionDto[]> {
    const trimmed = keyword.trim();
    if (!trimmed) return this.list(0);
    return (await this.redemptions.search(trimmed)).map(toRedemptionDto);
  }

  async get(id: number): Promise<RedemptionDto> {
    return toRedemptionDto(await this.mustFind(id));
  }

  /** Creates `count` codes and returns them (the console downloads them as a text file). */
  async create(caller: Caller, body: unknown): Promise<string[]> {
    const input = parseInput(redemptionCreateSchema, body);
    const now = nowSeconds();
    const keys = Array.from({ length: input.count }, newRedemptionKey);
    await this.redemptions.insertMany(
      keys.map((key) => ({ user_id: caller.id, key, status: RedemptionStatus.Unused, name: input.name, quota: input.quota, created_time: now, redeemed_time: 0, used_user_id: 0 })),
    );
    return keys;
  }

  /** Name and quota; a used code is history and stays as it was. */
  async update(body: unknown): Promise<RedemptionDto> {
    const input = parseInput(redemptionUpdateSchema, body);
    await this.mustFind(input.id);
    if (!(await this.redemptions.updateUnused(input.id, { name: input.name, quota: input.quota }))) await this.refuseUnlessUnused(input.id);
    return this.get(input.id);
  }

  /** The toggle between 1 (unused) and 2 (disabled); never for a used code (docs/console.md §4). */
  async setStatus(body: unknown): Promise<RedemptionDto> {
    const input = parseInput(redemptionStatusSchema, body);
    await this.mustFind(input.id);
    if (!(await this.redemptions.setStatusUnused(input.id, input.status))) await this.refuseUnlessUnused(input.id);
    return this.get(input.id);
  }

  async delete(id: number): Promise<void> {
    if (!(await this.redemptions.delete(id))) fail(RedemptionMessages.notFound);
  }

  /** Redeems a code for the caller; returns the quota added. */
  async redeem(caller: Caller, body: unknown): Promise<number> {
    const { key } = parseInput(redeemSchema, body);
    let outcome;
    try {
      outcome = await this.redemptions.redeem(key, caller, nowSeconds(), (code) => `通过兑换码充值 ${this.amount(Number(code.quota))}，兑换码 ID ${code.id}`);
    } catch (error) {
      if (error instanceof RedeemerGoneError) return fail('用户不存在');
      throw error;
    }
    if (!outcome.ok) {
      return fail(outcome.reason === 'disabled' ? RedemptionMessages.keyDisabled : outcome.reason === 'used' ? RedemptionMessages.keyUsed : RedemptionMessages.keyInvalid);
    }
    return Number(outcome.code.quota);
  }

  private amount(quota: number): string {
    return formatQuota(quota, { quotaPerUnit: this.options.number('QuotaPerUnit'), displayInCurrency: this.options.bool('DisplayInCurrencyEnabled') });
  }

  /** A conditional write changed nothing: the code is gone or used (else it already had those values). */
  private async refuseUnlessUnused(id: number): Promise<void> {
    const row = await this.mustFind(id);
    if (row.status === RedemptionStatus.Used) fail(RedemptionMessages.usedLocked);
  }

  private async mustFind(id: number): Promise<RedemptionRow> {
    const row = await this.redemptions.find(id);
    if (!row) return fail(RedemptionMessages.notFound);
    return row;
  }
}
