import {
  ALL_OPTION_KEYS,
  INTEGER_OPTION_KEYS,
  NUMBER_OPTION_KEYS,
  RATIO_OPTION_KEYS,
  RATIO_OPTION_LABELS,
  THEMES,
  isBooleanOptionKey,
  isSecretOptionKey,
  optionValueProblem,
  parseGroupLimits,
  parseGroupModelFallbacks,
  parseModelFallbacks,
  GROUP_MODEL_FALLBACKS_INVALID,
  MODEL_FALLBACKS_INVALID,
  type OptionKey,
  type RatioOptionKey,
} from '@model-relay/contract';
import type { EventBus } from '../cluster/event-bus.js';
import { fail } from '../lib/errors.js';
import type { OptionsRepository } from '../storage/repositories/options.js';
import { DEFAULT_OPTIONS } from './defaults.js';

const knownKeys = new Set<string>(ALL_OPTION_KEYS);
const integerKeys = new Set<string>(INTEGER_OPTION_KEYS);
const numberKeys = new Set<string>(NUMBER_OPTION_KEYS);
const ratioKeys = new Set<string>(RATIO_OPTION_KEYS);

/**
 * The options of docs/console.md §3: defaults overlaid with stored values, held in memory and written through
 * to the database. Reads are synchronous so hot paths (status, relay) never wait on SQL.
 */
export class OptionStore {
  private values = new Map<string, string>(Object.entries(DEFAULT_OPTIONS));
  private parsedRatios = new Map<string, Record<string, number>>();
  /** JSON options read through their parser (`parsed`), until the option changes. */
  private parsedJson = new Map<string, { parse: (text: string) => unknown; value: unknown }>();

  private bus?: EventBus;

  constructor(private readonly repository: OptionsRepository) {}

  /** Every change made here is announced to the cluster's other instances, which reload (see create-context). */
  announceChangesOn(bus: EventBus): void {
    this.bus = bus;
  }

  /** Loads stored values over the defaults. Call once at start (and again when another instance changed them). */
  async load(): Promise<void> {
    const stored = await this.repository.all();
    for (const [key, value] of stored) if (knownKeys.has(key)) this.values.set(key, value);
    this.parsedRatios.clear();
    this.parsedJson.clear();
  }

  get(key: OptionKey): string {
    return this.values.get(key) ?? '';
  }

  bool(key: OptionKey): boolean {
    return this.get(key) === 'true';
  }

  number(key: OptionKey): number {
    const value = Number(this.get(key));
    return Number.isFinite(value) ? value : Number(DEFAULT_OPTIONS[key]);
  }

  /** A ratio map (ModelRatio, CompletionRatio, GroupRatio), parsed once per change. */
  ratios(key: RatioOptionKey): Record<string, number> {
    let parsed = this.parsedRatios.get(key);
    if (!parsed) {
      parsed = parseRatioMap(this.get(key)) ?? parseRatioMap(DEFAULT_OPTIONS[key]) ?? {};
      this.parsedRatios.set(key, parsed);
    }
    return parsed;
  }

  /**
   * A JSON option (GroupLimits, ModelFallbacks, GroupModelFallbacks) read through `parse`, once per change: the
   * relay reads them on every request. The value is shared: callers must not change it.
   */
  parsed<T>(key: OptionKey, parse: (text: string) => T): T {
    const memo = this.parsedJson.get(key);
    if (memo && memo.parse === parse) return memo.value as T;
    const value = parse(this.get(key));
    this.parsedJson.set(key, { parse, value });
    return value;
  }

  /** Every option as {key, value}, secrets left out (docs/console.md §6: secrets are never returned). */
  publicList(): Array<{ key: string; value: string }> {
    return [...this.values.entries()]
      .filter(([key]) => !isSecretOptionKey(key))
      .map(([key, value]) => ({ key, value }))
      .sort((a, b) => a.key.localeCompare(b.key));
  }

  /** Validates then persists one option; throws a user-facing Chinese error when the value is unacceptable. */
  async set(key: string, rawValue: unknown): Promise<void> {
    if (!knownKeys.has(key)) fail(key.length <= 64 ? `未知的配置项：${key}` : '未知的配置项');
    if (typeof rawValue !== 'string' && typeof rawValue !== 'number' && typeof rawValue !== 'boolean') {
      fail('配置值必须是字符串');
    }
    let value = String(rawValue);
    const problem = optionValueProblem(key, value);
    if (problem) fail(problem);
    if (isBooleanOptionKey(key)) {
      if (value !== 'true' && value !== 'false') fail(`${key} 只能是 "true" 或 "false"`);
      this.checkSwitchPrerequisites(key, value);
    } else if (integerKeys.has(key)) {
      // Quotas are stored in 64-bit columns and computed with doubles: only exact (safe) integers are taken.
      if (!/^-?\d+$/.test(value.trim()) || Number(value) < 0 || !Number.isSafeInteger(Number(value))) fail(`${key} 必须是非负整数`);
      if (key === 'SMTPPort' && Number(value) > 65535) fail('SMTPPort 必须在 0 到 65535 之间');
      value = String(Number(value));
    } else if (numberKeys.has(key)) {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n) || n < 0) fail(`${key} 必须是非负数字`);
      // Amounts in dollars are quota / QuotaPerUnit.
      if (key === 'QuotaPerUnit' && n === 0) fail('QuotaPerUnit 必须大于 0');
      value = String(n);
    } else if (ratioKeys.has(key)) {
      const label = RATIO_OPTION_LABELS[key as keyof typeof RATIO_OPTION_LABELS];
      if (!parseRatioMap(value)) fail(isJsonObject(value) ? `${label}的每个值必须是非负数字` : `${label}不是合法的 JSON 字符串`);
    } else if (key === 'Theme' && !(THEMES as readonly string[]).includes(value)) {
      fail(`主题只能是 ${THEMES.join(' / ')}`);
    } else if (key === 'GroupLimits') {
      if (!parseGroupLimits(value)) fail('分组限额不是合法的 JSON：每个分组的 rpm、tpm、daily、monthly 必须是非负整数');
    } else if (key === 'ModelFallbacks') {
      if (!parseModelFallbacks(value)) fail(MODEL_FALLBACKS_INVALID);
    } else if (key === 'GroupModelFallbacks') {
      if (!parseGroupModelFallbacks(value)) fail(GROUP_MODEL_FALLBACKS_INVALID);
    } else if (key === 'SessionAffinityHeader') {
      value = value.trim().toLowerCase();
      if (value && !/^[a-z0-9!#$%&'*+.^_`|~-]{1,100}$/.test(value)) fail('会话请求头名称无效：只能包含字母、数字和 - _ 等字符');
    } else if (key === 'ServerAddress') {
      value = value.trim().replace(/\/$/, '');
    }
    await this.repository.set(key, value);
    this.values.set(key, value);
    this.parsedRatios.delete(key);
    this.parsedJson.delete(key);
    this.bus?.publish({ kind: 'options' });
  }

  private checkSwitchPrerequisites(key: string, value: string): void {
    if (value !== 'true') return;
    const needs: Record<string, [OptionKey, string]> = {
      GitHubOAuthEnabled: ['GitHubClientId', '无法启用 GitHub OAuth，请先填入 GitHub Client Id 以及 GitHub Client Secret！'],
      EmailDomainRestrictionEnabled: ['EmailDomainWhitelist', '无法启用邮箱域名限制，请先填入限制的邮箱域名！'],
      WeChatAuthEnabled: ['WeChatServerAddress', '无法启用微信登录，请先填入微信登录相关配置信息！'],
      TurnstileCheckEnabled: ['TurnstileSiteKey', '无法启用 Turnstile 校验，请先填入 Turnstile 校验相关配置信息！'],
    };
    const need = needs[key];
    if (need && this.get(need[0]).trim() === '') fail(need[1]);
  }
}

/** Parses a ratio option: a JSON object whose values are all finite non-negative numbers. */
/** Whether a text is a JSON object (whatever its values). */
function isJsonObject(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

export function parseRatioMap(text: string): Record<string, number> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  for (const value of Object.values(parsed)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined;
  }
  return parsed as Record<string, number>;
}
