import type { OptionKey } from '@model-relay/contract';
import { defaultRatios } from '../billing/model-catalogue.js';

/**
 * The default ratio options, from the model catalogue's default prices (billing/model-catalogue.ts has them, with the
 * price lists they come from). A model missing from a cache ratio falls back to its family's cache prices there (e.g.
 * every Claude model reads its cache at 0.1 and writes it at 1.25 / 2).
 */
export const DEFAULT_MODEL_RATIO = defaultRatios('ratio');
export const DEFAULT_COMPLETION_RATIO = defaultRatios('completion');
export const DEFAULT_CACHE_READ_RATIO = defaultRatios('cacheRead');
export const DEFAULT_CACHE_WRITE_RATIO = defaultRatios('cacheWrite');
export const DEFAULT_CACHE_WRITE_1H_RATIO = defaultRatios('cacheWrite1h');
export const DEFAULT_REASONING_RATIO = defaultRatios('reasoning');

export const DEFAULT_GROUP_RATIO: Record<string, number> = { default: 1, vip: 1, svip: 1 };

/** Default value of every option key of docs/console.md §3. */
export const DEFAULT_OPTIONS: Record<OptionKey, string> = {
  PasswordLoginEnabled: 'true',
  PasswordRegisterEnabled: 'true',
  RegisterEnabled: 'true',
  EmailVerificationEnabled: 'false',
  GitHubOAuthEnabled: 'false',
  WeChatAuthEnabled: 'false',
  TurnstileCheckEnabled: 'false',
  EmailDomainRestrictionEnabled: 'false',
  AutomaticDisableChannelEnabled: 'false',
  AutomaticEnableChannelEnabled: 'false',
  LogConsumeEnabled: 'true',
  DisplayInCurrencyEnabled: 'true',
  DisplayTokenStatEnabled: 'true',
  ApproximateTokenEnabled: 'false',
  // On by default, as in new-api: chat clients read GET /api/pricing without signing in. Off: signed-in users only.
  PricingPageEnabled: 'true',
  GitHubClientId: '',
  GitHubClientSecret: '',
  LarkClientId: '',
  LarkClientSecret: '',
  WeChatServerAddress: '',
  WeChatServerToken: '',
  WeChatAccountQRCodeImageURL: '',
  SMTPServer: '',
  SMTPPort: '587',
  SMTPAccount: '',
  SMTPFrom: '',
  SMTPToken: '',
  ServerAddress: '',
  Notice: '',
  Footer: '',
  About: '',
  SystemName: 'Model Relay',
  Logo: '',
  HomePageContent: '',
  Theme: 'default',
  MessagePusherAddress: '',
  MessagePusherToken: '',
  TurnstileSiteKey: '',
  TurnstileSecretKey: '',
  EmailDomainWhitelist: 'gmail.com,163.com,126.com,qq.com,outlook.com,hotmail.com,icloud.com,yahoo.com,foxmail.com',
  TopUpLink: '',
  ChatLink: '',
  // Per-group default limits for users whose own are 0, e.g. {"default": {"rpm": 60, "daily": 500000}}.
  GroupLimits: '{}',
  // Requests of one agent session (Claude Code, Codex, Gemini CLI, or the header named here) stay on one channel
  // for this many minutes after their last request, so the provider's prompt cache keeps hitting; 0 turns it off.
  SessionAffinityMinutes: '60',
  SessionAffinityHeader: '',
  // Models tried in order when no channel can serve the one asked for: {"gpt-4o": ["gpt-4o-mini"]}, and per group.
  ModelFallbacks: '{}',
  GroupModelFallbacks: '{}',
  QuotaPerUnit: '500000',
  ChannelDisableThreshold: '5',
  QuotaForNewUser: '0',
  QuotaForInviter: '0',
  QuotaForInvitee: '0',
  QuotaRemindThreshold: '1000',
  PreConsumedQuota: '500',
  RetryTimes: '0',
  ModelRatio: JSON.stringify(DEFAULT_MODEL_RATIO, null, 2),
  CompletionRatio: JSON.stringify(DEFAULT_COMPLETION_RATIO, null, 2),
  GroupRatio: JSON.stringify(DEFAULT_GROUP_RATIO, null, 2),
  CacheReadRatio: JSON.stringify(DEFAULT_CACHE_READ_RATIO, null, 2),
  CacheWriteRatio: JSON.stringify(DEFAULT_CACHE_WRITE_RATIO, null, 2),
  CacheWrite1hRatio: JSON.stringify(DEFAULT_CACHE_WRITE_1H_RATIO, null, 2),
  // Empty by default: reasoning tokens are billed at the model's completion ratio unless a model is listed here.
  ReasoningRatio: JSON.stringify(DEFAULT_REASONING_RATIO, null, 2),
  // Audio tokens, by model: input relative to the text input price, output relative to the audio input price (the
  // names and meaning new-api uses). Empty by default: a model not listed is priced as its family is in the catalogue
  // (OpenAI's audio models, Gemini's audio input), else its audio as its text.
  AudioRatio: '{}',
  AudioCompletionRatio: '{}',
  // Image output tokens (the images a model such as gemini-2.5-flash-image draws in its answer), by model, relative to
  // the input price like CompletionRatio. Empty by default: a model not listed is priced as the catalogue has it
  // (Gemini's image models), else its images as its text output.
  ImageCompletionRatio: '{}',
  // Image input tokens (GPT Image's), by model, relative to the text input price (new-api's ImageRatio). Empty by
  // default: the catalogue's (gpt-image-1 2, gpt-image-1-mini 1.25), else image tokens cost what text does.
  ImageRatio: '{}',
  // US$ per 1,000 web searches a provider runs, by model; empty by default: a model not listed is priced as its family
  // is in the catalogue (Claude US$10, OpenAI's web search tool US$10 or 25, Gemini's Google Search grounding US$35).
  WebSearchPrice: '{}',
  // US$ per 1,000 calls of the other tools a provider runs and bills per call (file_search, code_interpreter,
  // image_generation:<quality>:<size>), by price key; empty by default: OpenAI's prices (billing/tool-calls.ts).
  ToolCallPrice: '{}',
  // Every token price of a request the upstream ran in its fast mode (OpenAI's service_tier priority / fast, Anthropic's
  // speed fast), by model, relative to the standard price. Empty by default: the catalogue's (OpenAI 2, Claude 6).
  FastModeRatio: '{}',
};
