import { z } from 'zod';
import { TEXT_COLUMN_MAX_BYTES, textProblem } from './input.js';

/**
 * Every option key of docs/console.md §3, with how the console edits it.
 * Values travel as strings (`{key, value}`); boolean options are the strings "true" / "false".
 */
export const BOOLEAN_OPTION_KEYS = [
  'PasswordLoginEnabled',
  'PasswordRegisterEnabled',
  'RegisterEnabled',
  'EmailVerificationEnabled',
  'GitHubOAuthEnabled',
  'WeChatAuthEnabled',
  'TurnstileCheckEnabled',
  'EmailDomainRestrictionEnabled',
  'AutomaticDisableChannelEnabled',
  'AutomaticEnableChannelEnabled',
  'LogConsumeEnabled',
  'DisplayInCurrencyEnabled',
  'DisplayTokenStatEnabled',
  'ApproximateTokenEnabled',
  'PricingPageEnabled',
] as const;

export const TEXT_OPTION_KEYS = [
  'GitHubClientId',
  'LarkClientId',
  'WeChatServerAddress',
  'WeChatAccountQRCodeImageURL',
  'SMTPServer',
  'SMTPAccount',
  'SMTPFrom',
  'ServerAddress',
  'Notice',
  'Footer',
  'About',
  'SystemName',
  'Logo',
  'HomePageContent',
  'Theme',
  'MessagePusherAddress',
  'TurnstileSiteKey',
  'EmailDomainWhitelist',
  'TopUpLink',
  'ChatLink',
  'GroupLimits',
  'SessionAffinityHeader',
  'ModelFallbacks',
  'GroupModelFallbacks',
] as const;

/** Options holding secrets: never returned by GET /api/option/, saved only when non-empty. */
export const SECRET_OPTION_KEYS = [
  'GitHubClientSecret',
  'LarkClientSecret',
  'WeChatServerToken',
  'SMTPToken',
  'MessagePusherToken',
  'TurnstileSecretKey',
] as const;

export const INTEGER_OPTION_KEYS = [
  'SMTPPort',
  'QuotaForNewUser',
  'QuotaForInviter',
  'QuotaForInvitee',
  'QuotaRemindThreshold',
  'PreConsumedQuota',
  'RetryTimes',
  'SessionAffinityMinutes',
] as const;

export const NUMBER_OPTION_KEYS = ['QuotaPerUnit', 'ChannelDisableThreshold'] as const;

/** JSON maps of name -> ratio; rejected unless valid JSON objects of numbers (docs/console.md §5). */
export const RATIO_OPTION_KEYS = ['ModelRatio', 'CompletionRatio', 'GroupRatio', 'CacheReadRatio', 'CacheWriteRatio', 'CacheWrite1hRatio', 'ReasoningRatio', 'AudioRatio', 'AudioCompletionRatio', 'ImageRatio', 'ImageCompletionRatio', 'WebSearchPrice', 'ToolCallPrice', 'FastModeRatio'] as const;
export type RatioOptionKey = (typeof RATIO_OPTION_KEYS)[number];

export type BooleanOptionKey = (typeof BOOLEAN_OPTION_KEYS)[number];
export type OptionKey =
  | BooleanOptionKey
  | (typeof TEXT_OPTION_KEYS)[number]
  | (typeof SECRET_OPTION_KEYS)[number]
  | (typeof INTEGER_OPTION_KEYS)[number]
  | (typeof NUMBER_OPTION_KEYS)[number]
  | (typeof RATIO_OPTION_KEYS)[number];

export const ALL_OPTION_KEYS: readonly OptionKey[] = [
  ...BOOLEAN_OPTION_KEYS,
  ...TEXT_OPTION_KEYS,
  ...SECRET_OPTION_KEYS,
  ...INTEGER_OPTION_KEYS,
  ...NUMBER_OPTION_KEYS,
  ...RATIO_OPTION_KEYS,
];

const secretSet = new Set<string>(SECRET_OPTION_KEYS);
export const isSecretOptionKey = (key: string): boolean => secretSet.has(key);
const booleanSet = new Set<string>(BOOLEAN_OPTION_KEYS);
export const isBooleanOptionKey = (key: string): key is BooleanOptionKey => booleanSet.has(key);

/** Chinese names of the ratio options, used in the invalid-JSON message of docs/console.md §5. */
export const RATIO_OPTION_LABELS: Record<(typeof RATIO_OPTION_KEYS)[number], string> = {
  ModelRatio: '模型倍率',
  GroupRatio: '分组倍率',
  CompletionRatio: '补全倍率',
  CacheReadRatio: '缓存读取倍率',
  CacheWriteRatio: '缓存写入倍率',
  CacheWrite1hRatio: '1 小时缓存写入倍率',
  ReasoningRatio: '推理倍率',
  AudioRatio: '音频输入倍率',
  AudioCompletionRatio: '音频输出倍率',
  ImageRatio: '图片输入倍率',
  ImageCompletionRatio: '图片输出倍率',
  WebSearchPrice: '联网搜索价格',
  ToolCallPrice: '托管工具价格',
  FastModeRatio: '快速模式倍率',
};

/**
 * Values of the Theme option. default / berry / air are one-api's theme names (kept so imported settings stay
 * valid); dark is the dark variant of the console.
 */
export const THEMES = ['default', 'dark', 'berry', 'air'] as const;
export type ThemeName = (typeof THEMES)[number];
export const THEME_LABELS: Record<ThemeName, string> = {
  default: '默认（浅色）',
  dark: '深色',
  berry: 'berry（紫色）',
  air: 'air（紧凑）',
};

/** The public status object of GET /api/status (docs/console.md §3, plus version and start_time). */
export interface StatusObject {
  version: string;
  start_time: number;
  system_name: string;
  logo: string;
  footer_html: string;
  quota_per_unit: number;
  display_in_currency: boolean;
  chat_link: string;
  server_address: string;
  top_up_link: string;
  turnstile_check: boolean;
  turnstile_site_key: string;
  email_verification: boolean;
  github_oauth: boolean;
  github_client_id: string;
  wechat_login: boolean;
  wechat_qrcode: string;
  lark_client_id: string;
  /** The Theme option: how the console looks for everyone. */
  theme: string;
  /** Where the console sends the visitor to authorise with GitHub / Lark (configurable for self-hosted or test providers). */
  github_authorize_url: string;
  lark_authorize_url: string;
  /** The Turnstile widget script the console loads when the bot-check is on. */
  turnstile_script_url: string;
  /** The code host's "latest release" endpoint read by the update check; empty when the check is off. */
  releases_url: string;
  /** PricingPageEnabled: the pricing page and GET /api/pricing are open to visitors who are not signed in. */
  pricing_page: boolean;
}

/** The limits a user of a group gets when their own are 0 (GroupLimits option: {"<group>": GroupLimit}). */
export interface GroupLimit {
  /** requests per minute */
  rpm?: number;
  /** tokens per minute */
  tpm?: number;
  /** quota per calendar day */
  daily?: number;
  /** quota per calendar month */
  monthly?: number;
}

/** The GroupLimits option's value, or undefined when it is not a JSON object of non-negative integer limits. */
export function parseGroupLimits(text: string): Record<string, GroupLimit> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text || '{}');
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  for (const limit of Object.values(parsed)) {
    if (!limit || typeof limit !== 'object' || Array.isArray(limit)) return undefined;
    for (const [key, value] of Object.entries(limit)) {
      if (!['rpm', 'tpm', 'daily', 'monthly'].includes(key) || !Number.isSafeInteger(value) || (value as number) < 0) return undefined;
    }
  }
  return parsed as Record<string, GroupLimit>;
}

/**
 * Model fallbacks (ModelFallbacks option): a model to the models tried in order when no channel can serve it,
 * {"gpt-4o": ["gpt-4o-mini", "claude-sonnet-4-5"]}; undefined when the text is not such a map of non-empty names.
 */
export function parseModelFallbacks(text: string): Record<string, string[]> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text || '{}');
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  for (const [model, chain] of Object.entries(parsed)) {
    if (!model.trim() || !Array.isArray(chain) || chain.some((name) => typeof name !== 'string' || !name.trim() || name.length > 200)) return undefined;
  }
  return parsed as Record<string, string[]>;
}

/** Fallbacks per group (GroupModelFallbacks option): {"vip": {"gpt-4o": ["claude-opus-4-1"]}}, a group's own entry winning. */
export function parseGroupModelFallbacks(text: string): Record<string, Record<string, string[]>> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text || '{}');
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  for (const map of Object.values(parsed)) if (!parseModelFallbacks(JSON.stringify(map ?? null))) return undefined;
  return parsed as Record<string, Record<string, string[]>>;
}

export const MODEL_FALLBACKS_INVALID = '模型回退不是合法的 JSON：应为 {"模型": ["回退模型1", "回退模型2"]}';
export const GROUP_MODEL_FALLBACKS_INVALID = '分组模型回退不是合法的 JSON：应为 {"分组": {"模型": ["回退模型1"]}}';

/** Options that hold long texts, pictures as data URLs or JSON maps: up to what a TEXT column holds on MySQL. */
const LONG_OPTION_KEYS = new Set<string>(['Notice', 'Footer', 'About', 'HomePageContent', 'Logo', 'WeChatAccountQRCodeImageURL', 'EmailDomainWhitelist', 'ModelFallbacks', 'GroupModelFallbacks', ...RATIO_OPTION_KEYS]);
/** Every other option (addresses, ids, secrets, numbers) is one short line. */
export const OPTION_VALUE_MAX = 2048;

/** Why `value` cannot be stored under `key` (size, control characters), in Chinese; undefined when it can. */
export function optionValueProblem(key: string, value: string): string | undefined {
  if (LONG_OPTION_KEYS.has(key)) return textProblem(value, key, { max: TEXT_COLUMN_MAX_BYTES, maxBytes: TEXT_COLUMN_MAX_BYTES, multiline: true });
  return textProblem(value, key, { max: OPTION_VALUE_MAX });
}

/** Body of PUT /api/option/: one key and its value; the value's check depends on the key (the server's option store). */
export const optionUpdateBody = z.object({ key: z.string({ error: '无效的参数' }), value: z.unknown() }, { error: '无效的参数' });
export type OptionUpdate = z.input<typeof optionUpdateBody>;
