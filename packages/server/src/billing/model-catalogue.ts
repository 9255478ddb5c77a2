/**
 * The model catalogue: every fact Model Relay knows about a model, one entry per model family (or, for vendors whose
 * models share no fact but a price list, per vendor price list).
 *
 * - Default prices (`models`): the options ModelRatio, CompletionRatio, CacheReadRatio, CacheWriteRatio,
 *   CacheWrite1hRatio and ReasoningRatio are seeded from them (options/defaults.ts), so an admin can change any of them.
 *   Ratio 1 = US$0.002 per 1K prompt tokens = US$2 per 1M; so ratio = input price per 1M tokens / 2, completion
 *   ratio = output price / input price. Cache ratios are relative to the input price, reasoning ratios like the
 *   completion ratio. Per-image / per-minute models use one-api's convention of pricing a unit as 1K "tokens". CNY
 *   prices are converted at 7 CNY per US$ (so ratio = CNY per 1M tokens / 14).
 * - Family facts, for every model whose canonical name (`canonicalModelName`) the family's `match` claims: the cache
 *   prices of a model missing from the cache ratio options (billing/pricing.ts), the published output limit
 *   (billing/model-limits.ts) and the parameters of the provider's media token formulas (billing/media-bounds.ts).
 *   A `variant` overrides a fact for the names it matches; the first variant that sets a fact wins.
 * - Names: `canonicalModelName()` is the one normalisation of a model's name, `priceNames()` the names its price is
 *   looked up under, `datedVersionOf()` the dated model an undated alias stands for.
 */

/** A model's default prices, as the ratio options hold them. */
export interface ModelPrices {
  /** ModelRatio: the input price (ratio 1 = US$2 per 1M tokens). */
  ratio: number;
  /** CompletionRatio: the output price relative to the input price (absent: not in the option, so 1). */
  completion?: number;
  /** CacheReadRatio / CacheWriteRatio / CacheWrite1hRatio (absent: the family's cache prices apply). */
  cacheRead?: number;
  cacheWrite?: number;
  cacheWrite1h?: number;
  /** ReasoningRatio (absent: reasoning is billed at the completion ratio). */
  reasoning?: number;
  /** Other names of the same model (a dated snapshot) that carry the same default prices, each its own option key. */
  aliases?: string[];
}

/** Cache prices relative to the input price: reads, 5-minute (or unstated TTL) writes and Anthropic's 1-hour writes. */
export interface CacheRatios {
  read: number;
  write: number;
  write1h: number;
}

/**
 * How a provider counts an image's tokens (billing/media-bounds.ts has the formulas): OpenAI's 512-pixel tiles
 * (`base + tile x` tiles), OpenAI's 32-pixel patches (times a multiplier), Claude's, Gemini's, or the generic bound.
 */
export type ImageFormula = { tiles: [base: number, tile: number] } | { patches: number } | 'claude' | 'gemini' | 'generic';

/** What a family's media can cost (billing/media-bounds.ts). */
export interface MediaFacts {
  image: ImageFormula;
  /** The image size assumed when it is not known: the size for which the formula is largest. */
  largest: [width: number, height: number];
  /** Tokens per PDF page (its text and its picture) and the most pages read. */
  page: number;
  pages: number;
  /** The largest context window of the family: nothing of unknown length can cost more. */
  context: number;
}

/** What is known of a model beyond its prices. */
export interface ModelFacts {
  /** The cache prices of a model missing from the cache ratio options. */
  cache?: CacheRatios;
  /** The published output limit. */
  outputLimit?: number;
  media?: MediaFacts;
}

export interface ModelFamily extends ModelFacts {
  family: string;
  /** The canonical names of the family's models; absent: the family has no facts but its listed prices. */
  match?: RegExp;
  /** Facts that differ for some of the family's models, most specific first. */
  variants?: Array<ModelFacts & { match: RegExp }>;
  /** Default prices, under the names a channel serves the model by. */
  models: Record<string, ModelPrices>;
}

/** Providers without paid cache writes bill written tokens as ordinary input (ratio 1). */
const cacheReads = (read: number): CacheRatios => ({ read, write: 1, write1h: 1 });

/** The size OpenAI's tile formulas are largest for (fit into 2048 x 2048, shortest side scaled to 768). */
const OPENAI_LARGEST: [number, number] = [2048, 768];
const OPENAI_GPT4_TILES: MediaFacts = { image: { tiles: [85, 170] }, largest: OPENAI_LARGEST, page: 6_000, pages: 100, context: 1_047_576 };
const OPENAI_4O_MINI_TILES: MediaFacts = { image: { tiles: [2833, 5667] }, largest: OPENAI_LARGEST, page: 52_000, pages: 100, context: 128_000 };
const OPENAI_MINI_PATCHES: MediaFacts = { image: { patches: 1.62 }, largest: [2048, 2048], page: 6_000, pages: 100, context: 1_047_576 };
const OPENAI_NANO_PATCHES: MediaFacts = { image: { patches: 2.46 }, largest: [2048, 2048], page: 6_000, pages: 100, context: 1_047_576 };

/** DeepL's models: one per target language (relay/providers/deepl). */
const DEEPL_LANGUAGES = ['zh', 'en', 'ja', 'ko', 'de', 'fr', 'es'];

export const MODEL_CATALOGUE: ModelFamily[] = [
  {
    family: 'OpenAI GPT-3.5',
    match: /^gpt-3\.5/,
    outputLimit: 4_096,
    models: {
      'gpt-3.5-turbo': { ratio: 0.25, completion: 3, aliases: ['gpt-3.5-turbo-0125'] },
      'gpt-3.5-turbo-instruct': { ratio: 0.75, completion: 1.333 },
    },
  },
  {
    family: 'OpenAI GPT-4 (and GPT-4 Turbo, GPT-4.5)',
    match: /^gpt-4(?!\.1|o)/,
    outputLimit: 8_192,
    media: OPENAI_GPT4_TILES,
    variants: [{ match: /^gpt-4-(turbo|\d{4}-preview|vision)/, outputLimit: 4_096 }],
    models: {
      'gpt-4': { ratio: 15, completion: 2 },
      'gpt-4-turbo': { ratio: 5, completion: 3 },
    },
  },
  {
    family: 'OpenAI GPT-4o',
    match: /^gpt-4o/,
    cache: cacheReads(0.5),
    outputLimit: 16_384,
    media: OPENAI_GPT4_TILES,
    variants: [{ match: /^gpt-4o-mini/, media: OPENAI_4O_MINI_TILES }],
    models: {
      'gpt-4o': { ratio: 1.25, completion: 4, cacheRead: 0.5, aliases: ['gpt-4o-2024-08-06'] },
      'gpt-4o-mini': { ratio: 0.075, completion: 4, cacheRead: 0.5 },
    },
  },
  {
    // ChatGPT's own model (chatgpt-4o-latest): GPT-4o's prices and media, no published output limit.
    family: 'ChatGPT-4o',
    match: /^chatgpt-4o/,
    cache: cacheReads(0.5),
    media: OPENAI_GPT4_TILES,
    variants: [{ match: /^chatgpt-4o-mini/, media: OPENAI_4O_MINI_TILES }],
    models: {},
  },
  {
    family: 'OpenAI GPT-4.1',
    match: /^gpt-4\.1/,
    cache: cacheReads(0.25),
    outputLimit: 32_768,
    media: OPENAI_GPT4_TILES,
    variants: [
      { match: /^gpt-4\.1-mini/, media: OPENAI_MINI_PATCHES },
      { match: /^gpt-4\.1-nano/, media: OPENAI_NANO_PATCHES },
    ],
    models: {
      'gpt-4.1': { ratio: 1, completion: 4, cacheRead: 0.25 },
      'gpt-4.1-mini': { ratio: 0.2, completion: 4, cacheRead: 0.25 },
      'gpt-4.1-nano': { ratio: 0.05, completion: 4, cacheRead: 0.25 },
    },
  },
  {
    family: 'OpenAI o-series',
    match: /^o\d/,
    outputLimit: 100_000,
    variants: [
      { match: /^o1-mini/, outputLimit: 65_536 },
      { match: /^o4-mini/, media: { image: { patches: 1.72 }, largest: [2048, 2048], page: 6_000, pages: 100, context: 200_000 } },
      { match: /^(o3|o4)/, cache: cacheReads(0.25) },
      { match: /^o1/, cache: cacheReads(0.5) },
      { match: /^(o1|o3)/, media: { image: { tiles: [75, 150] }, largest: OPENAI_LARGEST, page: 6_000, pages: 100, context: 200_000 } },
    ],
    models: {
      o1: { ratio: 7.5, completion: 4, cacheRead: 0.5 },
      'o1-mini': { ratio: 0.55, completion: 4, cacheRead: 0.5 },
      'o3-mini': { ratio: 0.55, completion: 4, cacheRead: 0.5 },
      o3: { ratio: 1, completion: 4 },
      'o4-mini': { ratio: 0.55, completion: 4 },
    },
  },
  {
    family: 'OpenAI GPT-5',
    match: /^gpt-5/,
    cache: cacheReads(0.1),
    outputLimit: 128_000,
    media: { image: { tiles: [70, 140] }, largest: OPENAI_LARGEST, page: 6_000, pages: 100, context: 400_000 },
    variants: [
      { match: /^gpt-5(\.\d+)?-mini/, media: OPENAI_MINI_PATCHES },
      { match: /^gpt-5(\.\d+)?-nano/, media: OPENAI_NANO_PATCHES },
    ],
    models: {
      'gpt-5': { ratio: 0.625, completion: 8 },
      'gpt-5-mini': { ratio: 0.125, completion: 8 },
      'gpt-5-nano': { ratio: 0.025, completion: 8 },
    },
  },
  {
    family: 'OpenAI embeddings, moderation, images and audio',
    models: {
      'text-embedding-ada-002': { ratio: 0.05 },
      'text-embedding-3-small': { ratio: 0.01 },
      'text-embedding-3-large': { ratio: 0.065 },
      'text-moderation-latest': { ratio: 0.1 },
      'omni-moderation-latest': { ratio: 0.1 },
      'dall-e-2': { ratio: 8 },
      'dall-e-3': { ratio: 20 },
      'whisper-1': { ratio: 15 },
      'tts-1': { ratio: 7.5 },
      'tts-1-hd': { ratio: 15 },
    },
  },
  {
    // Every Claude model reads its cache at 10 % and writes it at 125 % (5 min) and 200 % (1 h).
    family: 'Anthropic Claude',
    match: /^claude/,
    cache: { read: 0.1, write: 1.25, write1h: 2 },
    outputLimit: 8_192,
    // About width x height / 750 tokens an image, a larger one first scaled down to 1568 pixels a side.
    media: { image: 'claude', largest: [1568, 1568], page: 6_000, pages: 100, context: 1_000_000 },
    variants: [
      { match: /^claude-3-(opus|sonnet|haiku)/, outputLimit: 4_096 },
      { match: /^claude-3-5/, outputLimit: 8_192 },
      { match: /^claude-(opus-4-1|opus-4-2|opus-4-0|opus-4$|opus-4-2025)/, outputLimit: 32_000 },
      { match: /^claude-(3-7|sonnet-4|haiku-4|opus-4)/, outputLimit: 64_000 },
    ],
    models: {
      'claude-3-haiku-20240307': { ratio: 0.125, completion: 5, cacheRead: 0.1, cacheWrite: 1.25 },
      'claude-3-5-haiku-20241022': { ratio: 0.4, completion: 5, cacheRead: 0.1, cacheWrite: 1.25, cacheWrite1h: 2 },
      'claude-3-5-sonnet-20241022': { ratio: 1.5, completion: 5, cacheRead: 0.1, cacheWrite: 1.25 },
      'claude-3-7-sonnet-20250219': { ratio: 1.5, completion: 5, cacheRead: 0.1, cacheWrite: 1.25, cacheWrite1h: 2 },
      'claude-3-opus-20240229': { ratio: 7.5, completion: 5, cacheRead: 0.1, cacheWrite: 1.25 },
      'claude-sonnet-4-20250514': { ratio: 1.5, completion: 5 },
      'claude-sonnet-4-5-20250929': { ratio: 1.5, completion: 5 },
      'claude-opus-4-20250514': { ratio: 7.5, completion: 5 },
      'claude-opus-4-1-20250805': { ratio: 7.5, completion: 5 },
      'claude-haiku-4-5-20251001': { ratio: 0.5, completion: 5 },
      // OpenRouter's own model page (openrouter.ai/anthropic/claude-3.5-sonnet), read 2026-11-23: US$3 / 15 per 1M.
      'anthropic/claude-3.5-sonnet': { ratio: 1.5, completion: 5 },
    },
  },
  {
    family: 'Google Gemini',
    match: /^gemini/,
    cache: cacheReads(0.25),
    outputLimit: 65_536,
    // 258 tokens an image up to 384 x 384, else 258 a 768 x 768 tile of the image scaled into 3072 x 3072.
    media: { image: 'gemini', largest: [3072, 3072], page: 1_200, pages: 1_000, context: 2_097_152 },
    variants: [{ match: /^gemini-(1\.|2\.0|pro)/, outputLimit: 8_192 }],
    models: {
      'gemini-1.5-flash': { ratio: 0.0375, completion: 4, cacheRead: 0.25 },
      'gemini-1.5-pro': { ratio: 0.625, completion: 4, cacheRead: 0.25 },
      'gemini-2.0-flash': { ratio: 0.05, completion: 4, cacheRead: 0.25 },
      'gemini-2.5-pro': { ratio: 0.625, completion: 8 },
      'gemini-2.5-flash': { ratio: 0.15, completion: 8.333 },
      'gemini-2.5-flash-lite': { ratio: 0.05, completion: 4 },
      // OpenRouter's own model page (openrouter.ai/google/gemini-2.0-flash-001), read 2026-11-23: US$0.10 / 0.40 per 1M.
      'google/gemini-2.0-flash-001': { ratio: 0.05, completion: 4 },
    },
  },
  {
    family: 'Amazon Bedrock (Nova, Llama)',
    models: {
      'amazon.nova-pro-v1:0': { ratio: 0.4, completion: 4 },
      'amazon.nova-lite-v1:0': { ratio: 0.03, completion: 4 },
      'meta.llama3-8b-instruct-v1:0': { ratio: 0.15, completion: 2 },
    },
  },
  {
    // Cache hits are billed at 10 % of the input price (DeepSeek reports them as prompt_cache_hit_tokens).
    family: 'DeepSeek',
    match: /^deepseek/,
    cache: cacheReads(0.1),
    outputLimit: 8_192,
    variants: [{ match: /^deepseek-reasoner/, outputLimit: 64_000 }],
    models: {
      'deepseek-chat': { ratio: 0.135, completion: 4, cacheRead: 0.1 },
      'deepseek-reasoner': { ratio: 0.275, completion: 4, cacheRead: 0.1 },
    },
  },
  {
    family: 'Mistral',
    models: {
      'mistral-large-latest': { ratio: 1, completion: 3 },
      'mistral-small-latest': { ratio: 0.1, completion: 3 },
      'open-mistral-nemo': { ratio: 0.075 },
      'codestral-latest': { ratio: 0.15, completion: 3 },
      'mistral-embed': { ratio: 0.05 },
    },
  },
  {
    family: 'Groq (hosted open models)',
    models: {
      'llama-3.1-8b-instant': { ratio: 0.025, completion: 1.6 },
      'llama-3.3-70b-versatile': { ratio: 0.295, completion: 1.339 },
      'gemma2-9b-it': { ratio: 0.1 },
      'mixtral-8x7b-32768': { ratio: 0.12 },
    },
  },
  {
    // kimi-k2-0905-preview 4 / 16 CNY per 1M input / output: added 2026-11-27 at the list price we knew (Moonshot's
    // page could not be re-read from this machine; verify before relying on it).
    family: 'Moonshot (Kimi)',
    models: {
      'moonshot-v1-8k': { ratio: 0.857 },
      'moonshot-v1-32k': { ratio: 1.714 },
      'moonshot-v1-128k': { ratio: 4.286 },
      'kimi-k2-0905-preview': { ratio: 0.2857, completion: 4 },
    },
  },
  {
    // docs.bigmodel.cn model pages read 2026-11-23: GLM-4-Plus 5 CNY / 1M tokens (one price for input and output),
    // Embedding-2 0.5 CNY / 1M; the GLM-4 page calls GLM-4-Flash a free model. Added 2026-11-27 at the list prices we
    // knew (the pages could not be re-read from this machine; verify before relying on them): GLM-4-Air 0.5,
    // GLM-4V-Plus 4, GLM-4.5 2 in / 8 out, Embedding-3 0.5 CNY per 1M.
    family: 'Zhipu GLM',
    models: {
      'glm-4': { ratio: 3.572 },
      'glm-4-plus': { ratio: 0.3571 },
      'glm-4-flash': { ratio: 0 },
      'embedding-2': { ratio: 0.0357 },
      'glm-4-air': { ratio: 0.0357 },
      'glm-4v-plus': { ratio: 0.2857 },
      'glm-4.5': { ratio: 0.1429, completion: 4 },
      'embedding-3': { ratio: 0.0357 },
      // Zhipu's rerank (docs.bigmodel.cn/api-reference/模型-api/文本重排序, model `rerank`): 0.8 CNY per 1M tokens as
      // GLM-Rerank is resold at list (ai.blsc.cn/document/llm/modalAbility/reRanking, read 2026-11-27); Zhipu's own price
      // page was not found in what could be read here.
      rerank: { ratio: 0.0571 },
    },
  },
  {
    // Alibaba Model Studio / DashScope. The mainland list as many public price tables copy it, read 2026-11-23, not
    // Alibaba's own page: qwen-turbo 0.0003 / 0.0006 CNY per 1K input / output, qwen-plus 0.0008 / 0.002, qwen-max
    // 0.0024 / 0.0096. help.aliyun.com model list and text-embedding billing page, read 2026-11-23: qwen-long 0.0005 CNY
    // / 1K input, 0.002 CNY / 1K output; text-embedding-v1 0.0007 CNY / 1K. Added 2026-11-27 at the list price we knew
    // (not re-read from this machine; verify before relying on it): text-embedding-v3 0.5 CNY per 1M. Alibaba's 文本排序
    // page (help.aliyun.com/zh/model-studio/text-rerank-api, 模型概览, read 2026-11-27): gte-rerank-v2 0.0008 CNY and
    // qwen3-rerank 0.0005 CNY per 1K input tokens (providers/dashscope/rerank.ts bills DashScope's total_tokens).
    family: 'Alibaba Qwen (DashScope)',
    models: {
      'qwen-turbo': { ratio: 0.0214, completion: 2 },
      'qwen-plus': { ratio: 0.0571, completion: 2.5 },
      'qwen-max': { ratio: 0.1714, completion: 4 },
      'qwen-long': { ratio: 0.0357, completion: 4 },
      'text-embedding-v1': { ratio: 0.05 },
      'text-embedding-v3': { ratio: 0.0357 },
      'gte-rerank-v2': { ratio: 0.0571 },
      'qwen3-rerank': { ratio: 0.0357 },
    },
  },
  {
    // Baidu Qianfan (ratio 1 = 0.014 CNY / 1K tokens), read 2026-11-27. Baidu's current price page could not be read;
    // these are the list prices in Baidu's own Qianfan SDK (github.com/baidubce/bce-qianfan-sdk,
    // python/qianfan/resources/llm/chat_completion.py and embedding.py at 6cacf600, 2025-12-12), which Baidu's price index
    // (cloud.baidu.com/doc/WENXINWORKSHOP/s/hlqnms5rn) also gives: ERNIE-4.0-8K 0.12 CNY / 1K input and output,
    // ERNIE-3.5-8K 0.012 / 0.012, Embedding-V1 0.002 / 1K. Baidu has cut ERNIE prices since, so these may overcharge;
    // an admin can lower them. ERNIE-Speed and ERNIE-Lite have been free since Baidu's announcement of 2024-05-21
    // ("千帆ModelBuilder 部分ERNIE系列模型免费开放公告").
    family: 'Baidu ERNIE',
    models: {
      'ERNIE-4.0-8K': { ratio: 8.5714 },
      'ERNIE-3.5-8K': { ratio: 0.8571 },
      'ERNIE-Speed-128K': { ratio: 0 },
      'ERNIE-Lite-8K': { ratio: 0 },
      'Embedding-V1': { ratio: 0.1429 },
    },
  },
  {
    // xfyun.cn/doc/spark/HTTP调用文档.html read 2026-11-23: Lite "支持免费使用" (free to use).
    family: 'iFlytek Spark',
    models: {
      'Spark-Lite': { ratio: 0 },
    },
  },
  {
    // developers.cloudflare.com/workers-ai/platform/pricing/ (billed in neurons, listed per token), read 2026-11-23:
    // llama-3.1-8b-instruct US$0.282 / 0.827 per 1M, mistral-7b-instruct-v0.1 US$0.110 / 0.190. The same page's source
    // (github.com/cloudflare/cloudflare-docs, src/content/docs/workers-ai/platform/pricing.mdx at 0059055, read
    // 2026-11-27): llama-3.3-70b-instruct-fp8-fast US$0.293 / 2.253 per 1M. bge-m3 US$0.012 per 1M was added 2026-11-27 at
    // the list price we knew; that version of the page does not list it (verify before relying on it).
    family: 'Cloudflare Workers AI',
    models: {
      '@cf/meta/llama-3.1-8b-instruct': { ratio: 0.141, completion: 2.933 },
      '@cf/mistral/mistral-7b-instruct-v0.1': { ratio: 0.055, completion: 1.727 },
      '@cf/meta/llama-3.3-70b-instruct-fp8-fast': { ratio: 0.1465, completion: 7.689 },
      '@cf/baai/bge-m3': { ratio: 0.006 },
    },
  },
  {
    // MiniMax-M2 2.1 / 8.4 CNY per 1M: added 2026-11-27 at the list price we knew (not re-read from this machine;
    // verify before relying on it).
    family: 'MiniMax',
    models: {
      'MiniMax-M2': { ratio: 0.15, completion: 4 },
    },
  },
  {
    // command-r-plus-08-2024 US$2.50 / 10.00 and command-r-08-2024 US$0.15 / 0.60 per 1M: Cohere's changelog
    // (docs.cohere.com/changelog/command-gets-refreshed). cohere.com/pricing could not be read here (2026-11-27); as
    // public price tables copy it: command-a-03-2025 US$2.50 / 10.00, command-r7b-12-2024 US$0.0375 / 0.15, embed-v4.0
    // US$0.12 and embed-multilingual-v3.0 US$0.10 per 1M text tokens, rerank-v3.5 US$2.00 per 1K searches. A search unit
    // is billed as 100 prompt tokens (providers/cohere/codec.ts), so ratio 10 = US$0.002 a search.
    family: 'Cohere',
    models: {
      'command-a-03-2025': { ratio: 1.25, completion: 4 },
      'command-r-plus-08-2024': { ratio: 1.25, completion: 4 },
      'command-r-08-2024': { ratio: 0.075, completion: 4 },
      'command-r7b-12-2024': { ratio: 0.01875, completion: 4 },
      'embed-v4.0': { ratio: 0.06 },
      'embed-multilingual-v3.0': { ratio: 0.05 },
      'rerank-v3.5': { ratio: 10 },
    },
  },
  {
    // Sources read 2026-11-27. Tencent's price page (cloud.tencent.com/document/product/1729/97731) could not be read
    // from here: hunyuan-lite is free and hunyuan-pro 30 / 100, hunyuan-standard 4.5 / 5 CNY per 1M input / output as a
    // public table dated 2024-05-23 copies that page; hunyuan-turbo 15 / 50 as Tencent announced it (not seen on the
    // page); hunyuan-turbos-latest 0.8 / 2 as Tencent's own Hunyuan-TurboS announcement
    // (github.com/Tencent/Hunyuan-TurboS) says.
    family: 'Tencent Hunyuan',
    models: {
      'hunyuan-lite': { ratio: 0 },
      'hunyuan-standard': { ratio: 0.3214, completion: 1.111 },
      'hunyuan-pro': { ratio: 2.1429, completion: 3.333 },
      'hunyuan-turbo': { ratio: 1.0714, completion: 3.333 },
      'hunyuan-turbos-latest': { ratio: 0.0571, completion: 2.5 },
    },
  },
  {
    // DeepL API Pro, per source character (relay/providers/deepl/adapter.ts reports DeepL's billed_characters as
    // prompt_tokens): US$25 per 1M characters = 12.5 x US$0.002 per 1K; support.deepl.com article 360020685720
    // (read 2026-11-23) lists the EUR price, €0.00002 per character. The translation's characters cost nothing.
    family: 'DeepL',
    models: Object.fromEntries(DEEPL_LANGUAGES.map((language) => [`deepl-${language}`, { ratio: 12.5, completion: 0 }])),
  },
];

/** What the catalogue knows of a model beyond its prices (nothing for a model of no known family). */
export function modelFacts(model: string): ModelFacts {
  const name = canonicalModelName(model);
  const family = familyOf(name);
  if (!family) return {};
  const variants = family.variants?.filter((variant) => variant.match.test(name)) ?? [];
  const fact = <K extends keyof ModelFacts>(key: K): ModelFacts[K] => variants.find((variant) => variant[key] !== undefined)?.[key] ?? family[key];
  return { cache: fact('cache'), outputLimit: fact('outputLimit'), media: fact('media') };
}

/** The family whose `match` claims a canonical model name. */
export const familyOf = (canonicalName: string): ModelFamily | undefined => MODEL_CATALOGUE.find((family) => family.match?.test(canonicalName));

type PriceKey = Exclude<keyof ModelPrices, 'aliases'>;

/** One default ratio option (ModelRatio: `ratio`, CompletionRatio: `completion`, ...): every model that sets it, aliases too. */
export function defaultRatios(key: PriceKey): Record<string, number> {
  const ratios: Record<string, number> = {};
  for (const family of MODEL_CATALOGUE) {
    for (const [model, prices] of Object.entries(family.models)) {
      const value = prices[key];
      if (value === undefined) continue;
      for (const name of [model, ...(prices.aliases ?? [])]) ratios[name] = value;
    }
  }
  return ratios;
}

/** A cloud's name for a provider's model: Bedrock `anthropic.claude-…`, or with an inference profile's region `us.anthropic.claude-…`. */
const CLOUD_MODEL = /^(?:[a-z]{2,4}\.)?((anthropic|amazon|meta|mistral|cohere|ai21|deepseek)\..+)$/;
/** A cloud's version suffix (Bedrock `-v1:0`). */
const CLOUD_VERSION = /-v\d+(?::\d+)?$/;

/**
 * A name unwrapped step by step: without an aggregator's vendor path (`openai/gpt-4o`, `models/gemini-2.5-pro`),
 * then without a Bedrock region (`us.amazon.nova-lite-v1:0` is `amazon.nova-lite-v1:0`), then, for Claude, without
 * Bedrock's vendor (`anthropic.claude-…` is Anthropic's own `claude-…`).
 */
function unwrap(model: string): { bare: string; cloud?: string; provider?: string } {
  const bare = model.slice(model.lastIndexOf('/') + 1);
  const cloud = CLOUD_MODEL.exec(bare);
  if (!cloud) return { bare };
  return { bare, cloud: cloud[1], provider: cloud[2] === 'anthropic' ? cloud[1].slice('anthropic.'.length) : undefined };
}

/**
 * The one normalisation of model names for looking up a model's facts (its family: output limit, media bounds, cache
 * prices): lower case, unwrapped (`unwrap`), without a cloud's version (Bedrock `-v1:0`, Vertex `claude-…@date`).
 * Prices are looked up under several names, most specific first (`priceNames`).
 */
export function canonicalModelName(model: string): string {
  const { bare, cloud, provider } = unwrap(model.toLowerCase());
  return (provider ?? cloud ?? bare).replace(CLOUD_VERSION, '').replace(/@.*$/, '');
}

/**
 * The names a model's price is looked up under, most specific first: the name as called, then the provider's own
 * name of a model that a cloud or an aggregator renames. Bedrock `us.anthropic.claude-sonnet-4-20250514-v1:0` is
 * Anthropic's `claude-sonnet-4-20250514`; Vertex `claude-sonnet-4@20250514` (and `claude-3-5-sonnet-v2@20241022`)
 * too; an aggregator's `openai/gpt-4o` is `gpt-4o`. A price set for the exact name always wins.
 */
export function priceNames(model: string): string[] {
  const { bare, cloud, provider } = unwrap(model);
  const vertex = bare.includes('@') ? bare.replace(/-v\d+@/, '@').replace('@', '-') : undefined;
  const names = [model];
  for (const name of [bare, cloud, provider?.replace(CLOUD_VERSION, ''), vertex]) if (name && !names.includes(name)) names.push(name);
  return names;
}

/** The latest `<alias>-<date>` key of a ratio map (dates as 20250929 or 2025-09-29), if any: an undated alias (claude-sonnet-4-5) stands for it. */
export function datedVersionOf(map: Record<string, number>, alias: string): string | undefined {
  let best: string | undefined;
  for (const key of Object.keys(map)) {
    if (!key.startsWith(`${alias}-`) || !/^(\d{8}|\d{4}-\d{2}-\d{2})$/.test(key.slice(alias.length + 1))) continue;
    if (best === undefined || key > best) best = key;
  }
  return best;
}
