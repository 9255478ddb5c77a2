import type { OptionKey } from '@model-relay/contract';

/**
 * Model ratios seeded from public list prices (ratio 1 = US$0.002 per 1K prompt tokens = US$2 per 1M).
 * So ratio = input price per 1M tokens / 2; completion ratio = output price / input price.
 * Per-image / per-minute models use one-api's convention of pricing a unit as 1K "tokens".
 */
export const DEFAULT_MODEL_RATIO: Record<string, number> = {
  'gpt-3.5-turbo': 0.25,
  'gpt-3.5-turbo-0125': 0.25,
  'gpt-3.5-turbo-instruct': 0.75,
  'gpt-4': 15,
  'gpt-4-turbo': 5,
  'gpt-4o': 1.25,
  'gpt-4o-2024-08-06': 1.25,
  'gpt-4o-mini': 0.075,
  'gpt-4.1': 1,
  'gpt-4.1-mini': 0.2,
  'gpt-4.1-nano': 0.05,
  o1: 7.5,
  'o1-mini': 0.55,
  'o3-mini': 0.55,
  o3: 1,
  'o4-mini': 0.55,
  'gpt-5': 0.625,
  'gpt-5-mini': 0.125,
  'gpt-5-nano': 0.025,
  'text-embedding-ada-002': 0.05,
  'text-embedding-3-small': 0.01,
  'text-embedding-3-large': 0.065,
  'text-moderation-latest': 0.1,
  'omni-moderation-latest': 0.1,
  'dall-e-2': 8,
  'dall-e-3': 20,
  'whisper-1': 15,
  'tts-1': 7.5,
  'tts-1-hd': 15,
  'claude-3-haiku-20240307': 0.125,
  'claude-3-5-haiku-20241022': 0.4,
  'claude-3-5-sonnet-20241022': 1.5,
  'claude-3-7-sonnet-20250219': 1.5,
  'claude-3-opus-20240229': 7.5,
  'claude-sonnet-4-20250514': 1.5,
  'claude-sonnet-4-5-20250929': 1.5,
  'claude-opus-4-20250514': 7.5,
  'claude-opus-4-1-20250805': 7.5,
  'claude-haiku-4-5-20251001': 0.5,
  'gemini-1.5-flash': 0.0375,
  'gemini-1.5-pro': 0.625,
  'gemini-2.0-flash': 0.05,
  'gemini-2.5-pro': 0.625,
  'gemini-2.5-flash': 0.15,
  'gemini-2.5-flash-lite': 0.05,
  'amazon.nova-pro-v1:0': 0.4,
  'amazon.nova-lite-v1:0': 0.03,
  'meta.llama3-8b-instruct-v1:0': 0.15,
  'deepseek-chat': 0.135,
  'deepseek-reasoner': 0.275,
  'mistral-large-latest': 1,
  'mistral-small-latest': 0.1,
  'open-mistral-nemo': 0.075,
  'codestral-latest': 0.15,
  'mistral-embed': 0.05,
  'llama-3.1-8b-instant': 0.025,
  'llama-3.3-70b-versatile': 0.295,
  'gemma2-9b-it': 0.1,
  'mixtral-8x7b-32768': 0.12,
  'moonshot-v1-8k': 0.857,
  'moonshot-v1-32k': 1.714,
  'moonshot-v1-128k': 4.286,
  'glm-4': 3.572,
  // Alibaba Model Studio (CNY at 7 per US$; the mainland list as many public price tables copy it, read 2026-11-23, not
  // Alibaba's own page): qwen-turbo 0.0003 / 0.0006 CNY per 1K input / output, qwen-plus 0.0008 / 0.002, qwen-max
  // 0.0024 / 0.0096.
  'qwen-turbo': 0.0214,
  'qwen-plus': 0.0571,
  'qwen-max': 0.1714,
  // Zhipu (CNY at 7 per US$), docs.bigmodel.cn model pages read 2026-11-23: GLM-4-Plus 5 CNY / 1M tokens (one price
  // for input and output), Embedding-2 0.5 CNY / 1M; the GLM-4 page calls GLM-4-Flash a free model.
  'glm-4-plus': 0.3571,
  'glm-4-flash': 0,
  'embedding-2': 0.0357,
  // Alibaba Model Studio / DashScope (CNY), help.aliyun.com model list and text-embedding billing page, read
  // 2026-11-23: qwen-long 0.0005 CNY / 1K input, 0.002 CNY / 1K output; text-embedding-v1 0.0007 CNY / 1K.
  'qwen-long': 0.0357,
  'text-embedding-v1': 0.05,
  // Baidu Qianfan (CNY at 7 per US$, so ratio 1 = 0.014 CNY / 1K tokens), read 2026-11-27. Baidu's current price page
  // could not be read; these are the list prices in Baidu's own Qianfan SDK (github.com/baidubce/bce-qianfan-sdk,
  // python/qianfan/resources/llm/chat_completion.py and embedding.py at 6cacf600, 2025-12-12), which Baidu's price index
  // (cloud.baidu.com/doc/WENXINWORKSHOP/s/hlqnms5rn) also gives: ERNIE-4.0-8K 0.12 CNY / 1K input and output,
  // ERNIE-3.5-8K 0.012 / 0.012, Embedding-V1 0.002 / 1K. Baidu has cut ERNIE prices since, so these may overcharge;
  // an admin can lower them. ERNIE-Speed and ERNIE-Lite have been free since Baidu's announcement of 2024-05-21
  // ("千帆ModelBuilder 部分ERNIE系列模型免费开放公告").
  'ERNIE-4.0-8K': 8.5714,
  'ERNIE-3.5-8K': 0.8571,
  'ERNIE-Speed-128K': 0,
  'ERNIE-Lite-8K': 0,
  'Embedding-V1': 0.1429,
  // iFlytek Spark, xfyun.cn/doc/spark/HTTP调用文档.html read 2026-11-23: Lite "支持免费使用" (free to use).
  'Spark-Lite': 0,
  // OpenRouter's own model pages (openrouter.ai/<id>), read 2026-11-23, under OpenRouter's ids: Claude 3.5 Sonnet
  // US$3 / 15 per 1M, Gemini 2.0 Flash 001 US$0.10 / 0.40 per 1M.
  'anthropic/claude-3.5-sonnet': 1.5,
  'google/gemini-2.0-flash-001': 0.05,
  // Cloudflare Workers AI, developers.cloudflare.com/workers-ai/platform/pricing/ (billed in neurons, listed per
  // token), read 2026-11-23: llama-3.1-8b-instruct US$0.282 / 0.827 per 1M, mistral-7b-instruct-v0.1 US$0.110 / 0.190.
  '@cf/meta/llama-3.1-8b-instruct': 0.141,
  '@cf/mistral/mistral-7b-instruct-v0.1': 0.055,
  // Models added to the catalogue on 2026-11-27, at the list prices we know (the vendors' pages could not be re-read
  // from this machine; verify before relying on them). CNY at 7 per US$ (ratio = CNY per 1M tokens / 14):
  // Zhipu GLM-4-Air 0.5, GLM-4V-Plus 4, GLM-4.5 2 in / 8 out, Embedding-3 0.5; DashScope text-embedding-v3 0.5,
  // gte-rerank-v2 0.8; Moonshot kimi-k2-0905-preview 4 / 16; MiniMax-M2 2.1 / 8.4. Cloudflare (US$ per 1M, ratio = / 2):
  // llama-3.3-70b-instruct-fp8-fast 0.293 / 2.253, bge-m3 0.012.
  'glm-4-air': 0.0357,
  'glm-4v-plus': 0.2857,
  'glm-4.5': 0.1429,
  'embedding-3': 0.0357,
  'text-embedding-v3': 0.0357,
  'gte-rerank-v2': 0.0571,
  'kimi-k2-0905-preview': 0.2857,
  'MiniMax-M2': 0.15,
  '@cf/meta/llama-3.3-70b-instruct-fp8-fast': 0.1465,
  '@cf/baai/bge-m3': 0.006,
  // Cohere, US$. command-r-plus-08-2024 US$2.50 / 10.00 and command-r-08-2024 US$0.15 / 0.60 per 1M: Cohere's
  // changelog (docs.cohere.com/changelog/command-gets-refreshed). cohere.com/pricing could not be read here (2026-11-27);
  // as public price tables copy it: command-a-03-2025 US$2.50 / 10.00, command-r7b-12-2024 US$0.0375 / 0.15,
  // embed-v4.0 US$0.12 and embed-multilingual-v3.0 US$0.10 per 1M text tokens, rerank-v3.5 US$2.00 per 1K searches.
  // A search unit is billed as 100 prompt tokens (providers/cohere/codec.ts), so ratio 10 = US$0.002 a search.
  'command-a-03-2025': 1.25,
  'command-r-plus-08-2024': 1.25,
  'command-r-08-2024': 0.075,
  'command-r7b-12-2024': 0.01875,
  'embed-v4.0': 0.06,
  'embed-multilingual-v3.0': 0.05,
  'rerank-v3.5': 10,
  // Tencent Hunyuan (CNY at 7 per US$, sources read 2026-11-27). Tencent's price page (cloud.tencent.com/document/product/1729/97731)
  // could not be read from here: hunyuan-lite is free and hunyuan-pro 30 / 100, hunyuan-standard 4.5 / 5 CNY per 1M input /
  // output as a public table dated 2024-05-23 copies that page; hunyuan-turbo 15 / 50 as Tencent announced it (not seen
  // on the page); hunyuan-turbos-latest 0.8 / 2 as Tencent's own Hunyuan-TurboS announcement (github.com/Tencent/Hunyuan-TurboS) says.
  'hunyuan-lite': 0,
  'hunyuan-standard': 0.3214,
  'hunyuan-pro': 2.1429,
  'hunyuan-turbo': 1.0714,
  'hunyuan-turbos-latest': 0.0571,
  // DeepL API Pro, per source character (relay/providers/deepl/adapter.ts reports DeepL's billed_characters as
  // prompt_tokens): US$25 per 1M characters = 12.5 x US$0.002 per 1K; support.deepl.com article 360020685720
  // (read 2026-11-23) lists the EUR price, €0.00002 per character. The translation's characters cost nothing.
  ...Object.fromEntries(['zh', 'en', 'ja', 'ko', 'de', 'fr', 'es'].map((language) => [`deepl-${language}`, 12.5])),
};

export const DEFAULT_COMPLETION_RATIO: Record<string, number> = {
  'glm-4.5': 4,
  'kimi-k2-0905-preview': 4,
  'MiniMax-M2': 4,
  '@cf/meta/llama-3.3-70b-instruct-fp8-fast': 7.689,
  'gpt-3.5-turbo': 3,
  'gpt-3.5-turbo-0125': 3,
  'gpt-3.5-turbo-instruct': 1.333,
  'gpt-4': 2,
  'gpt-4-turbo': 3,
  'gpt-4o': 4,
  'gpt-4o-2024-08-06': 4,
  'gpt-4o-mini': 4,
  'gpt-4.1': 4,
  'gpt-4.1-mini': 4,
  'gpt-4.1-nano': 4,
  o1: 4,
  'o1-mini': 4,
  'o3-mini': 4,
  o3: 4,
  'o4-mini': 4,
  'gpt-5': 8,
  'gpt-5-mini': 8,
  'gpt-5-nano': 8,
  'claude-3-haiku-20240307': 5,
  'claude-3-5-haiku-20241022': 5,
  'claude-3-5-sonnet-20241022': 5,
  'claude-3-7-sonnet-20250219': 5,
  'claude-3-opus-20240229': 5,
  'claude-sonnet-4-20250514': 5,
  'claude-sonnet-4-5-20250929': 5,
  'claude-opus-4-20250514': 5,
  'claude-opus-4-1-20250805': 5,
  'claude-haiku-4-5-20251001': 5,
  'gemini-1.5-flash': 4,
  'gemini-1.5-pro': 4,
  'gemini-2.0-flash': 4,
  'gemini-2.5-pro': 8,
  'gemini-2.5-flash': 8.333,
  'gemini-2.5-flash-lite': 4,
  'amazon.nova-pro-v1:0': 4,
  'amazon.nova-lite-v1:0': 4,
  'meta.llama3-8b-instruct-v1:0': 2,
  'deepseek-chat': 4,
  'deepseek-reasoner': 4,
  'mistral-large-latest': 3,
  'mistral-small-latest': 3,
  'codestral-latest': 3,
  'llama-3.1-8b-instant': 1.6,
  'llama-3.3-70b-versatile': 1.339,
  'qwen-long': 4,
  'qwen-turbo': 2,
  'qwen-plus': 2.5,
  'qwen-max': 4,
  'anthropic/claude-3.5-sonnet': 5,
  'google/gemini-2.0-flash-001': 4,
  '@cf/meta/llama-3.1-8b-instruct': 2.933,
  '@cf/mistral/mistral-7b-instruct-v0.1': 1.727,
  'command-a-03-2025': 4,
  'command-r-plus-08-2024': 4,
  'command-r-08-2024': 4,
  'command-r7b-12-2024': 4,
  'hunyuan-standard': 1.111,
  'hunyuan-pro': 3.333,
  'hunyuan-turbo': 3.333,
  'hunyuan-turbos-latest': 2.5,
  ...Object.fromEntries(['zh', 'en', 'ja', 'ko', 'de', 'fr', 'es'].map((language) => [`deepl-${language}`, 0])),
};

/**
 * Prompt-cache and reasoning prices, each relative to the model's input price (cache) or output price
 * (reasoning), from the providers' price lists. Models missing here fall back to their family's rule in
 * billing/pricing.ts (e.g. every Claude model reads its cache at 0.1 and writes it at 1.25 / 2).
 */
export const DEFAULT_CACHE_READ_RATIO: Record<string, number> = {
  'gpt-4o': 0.5,
  'gpt-4o-2024-08-06': 0.5,
  'gpt-4o-mini': 0.5,
  'gpt-4.1': 0.25,
  'gpt-4.1-mini': 0.25,
  'gpt-4.1-nano': 0.25,
  o1: 0.5,
  'o1-mini': 0.5,
  'o3-mini': 0.5,
  'claude-3-haiku-20240307': 0.1,
  'claude-3-5-haiku-20241022': 0.1,
  'claude-3-5-sonnet-20241022': 0.1,
  'claude-3-7-sonnet-20250219': 0.1,
  'claude-3-opus-20240229': 0.1,
  'gemini-1.5-flash': 0.25,
  'gemini-1.5-pro': 0.25,
  'gemini-2.0-flash': 0.25,
  'deepseek-chat': 0.1,
  'deepseek-reasoner': 0.1,
};

export const DEFAULT_CACHE_WRITE_RATIO: Record<string, number> = {
  'claude-3-haiku-20240307': 1.25,
  'claude-3-5-haiku-20241022': 1.25,
  'claude-3-5-sonnet-20241022': 1.25,
  'claude-3-7-sonnet-20250219': 1.25,
  'claude-3-opus-20240229': 1.25,
};

export const DEFAULT_CACHE_WRITE_1H_RATIO: Record<string, number> = {
  'claude-3-5-haiku-20241022': 2,
  'claude-3-7-sonnet-20250219': 2,
};

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
  // Empty: reasoning tokens are billed at the model's completion ratio unless a model is listed here.
  ReasoningRatio: '{}',
};
