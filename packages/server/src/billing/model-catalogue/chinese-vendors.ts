import { cacheReads, type ModelFamily } from './types.js';

/**
 * The Chinese vendors: DeepSeek, Moonshot, Zhipu, Alibaba DashScope, Baidu, iFlytek Spark, MiniMax, Tencent Hunyuan,
 * StepFun, 360, Baichuan, 01.AI (Yi) and ByteDance Doubao (CNY at 7 CNY per US$: ratio = CNY per 1M tokens / 14).
 * (Ratios, units and where each price was read: billing/model-catalogue.ts and the comment on each family.)
 *
 * Where a vendor's own price page could not be read from here, a price is taken from a public catalogue that carries
 * prices as data and is marked "third-party catalogue": LobeHub's model cards (github.com/lobehub/lobe-chat), Sealos
 * AI Proxy's model lists (github.com/labring/aiproxy, core/relay/adaptor/<vendor>/constants.go at aebeb5e, prices in
 * CNY per 1K tokens), one-api's ratio table (github.com/songquanpeng/one-api, relay/billing/ratio/model.go at 0053521,
 * prices in CNY per 1K tokens) and pydantic's genai-prices (github.com/pydantic/genai-prices at 47df840).
 */

export const CHINESE_VENDOR_FAMILIES: ModelFamily[] = [
  {
    // Cache hits are billed at 10 % of the input price (DeepSeek reports them as prompt_cache_hit_tokens).
    family: 'DeepSeek',
    match: /^deepseek/,
    cache: cacheReads(0.1),
    outputLimit: 8_192,
    variants: [
      { match: /^deepseek-reasoner/, outputLimit: 64_000 },
      // DeepSeek's V4 generation (deepseek-flash, deepseek-v4-*): "MAXIMUM: 384K" output on its price page, read as
      // 384,000 (the lower reading: the upstream is told at most this many tokens, and a vendor refuses more than its max).
      { match: /^deepseek-(flash|v4)/, outputLimit: 384_000 },
    ],
    models: {
      'deepseek-chat': { ratio: 0.135, completion: 4, cacheRead: 0.1 },
      'deepseek-reasoner': { ratio: 0.275, completion: 4, cacheRead: 0.1 },
      // DeepSeek's Models & Pricing page (api-docs.deepseek.com/quick_start/pricing, the US$ table, read 2026-12-07),
      // US$ per 1M tokens, cache hit / cache miss / output: deepseek-flash (DeepSeek-V4.1-Flash) 0.006 / 0.30 / 1.20,
      // deepseek-v4-pro (DeepSeek-V4-Pro-0813) 0.044 / 1.32 / 3.96. These are its peak prices: since 2026-08-16 DeepSeek
      // bills half of them off-peak (peak: 01:00-04:00 and 06:00-10:00 UTC on weekdays) and a price here has no time
      // of day, so the peak one, never below what DeepSeek bills. Its CNY table (2 / 0.04 / 8 and 9 / 0.30 / 27 CNY at
      // peak) is below these at 7 CNY per US$. The page names the legacy deepseek-v4-flash and deepseek-v4-flash-vision-exp
      // as still accepted, served by V4.1-Flash "at the Flash price". deepseek-chat and deepseek-reasoner above were
      // retired on 2026-07-24 (third-party reports of DeepSeek's notice; its page had said they would be): left as they
      // were.
      'deepseek-flash': { ratio: 0.15, completion: 4, cacheRead: 0.02, aliases: ['deepseek-v4-flash', 'deepseek-v4-flash-vision-exp'] },
      'deepseek-v4-pro': { ratio: 0.66, completion: 3, cacheRead: 0.0334 },
    },
  },
  {
    // Moonshot's international price page (platform.moonshot.ai/docs/pricing/chat) as archived on 2026-03-26
    // (megalodon.jp/ref/2026-0326-0135-31/https://platform.moonshot.ai:443/docs/pricing/chat), read 2026-12-07; US$ per
    // 1M tokens, cache hit / cache miss / output: kimi-k2.5 0.10 / 0.60 / 3.00, kimi-k2-0905-preview 0.15 / 0.60 / 2.50.
    // kimi-k2-0905-preview had been entered on 2026-11-27 at the mainland 4 / 16 CNY (US$0.571 / 2.286 at 7 CNY per
    // US$), below the US$ list. Moonshot's current pages (platform.kimi.com/docs/pricing/chat-k26 and the K3 pages) could
    // not be read with their tables, so Kimi K2.6, K2.7 Code, K3 and K3.1 Pro are not priced here.
    family: 'Moonshot (Kimi)',
    models: {
      'moonshot-v1-8k': { ratio: 0.857 },
      'moonshot-v1-32k': { ratio: 1.714 },
      'moonshot-v1-128k': { ratio: 4.286 },
      'kimi-k2-0905-preview': { ratio: 0.3, completion: 4.1667, cacheRead: 0.25 },
      'kimi-k2.5': { ratio: 0.3, completion: 5, cacheRead: 0.1667 },
    },
  },
  {
    // docs.bigmodel.cn model pages read 2026-11-23: GLM-4-Plus 5 CNY / 1M tokens (one price for input and output),
    // Embedding-2 0.5 CNY / 1M; the GLM-4 page calls GLM-4-Flash a free model. Checked 2026-11-27 against third-party
    // catalogues (Zhipu's pages could not be re-read from here): GLM-4-Air 0.5 CNY per 1M (genai-prices
    // prices/providers/zhipuai.yml, US$0.069 at its 7.25 CNY per US$, checked by them 2026-05-23), Embedding-3 0.5 and
    // GLM-4V-Plus 10 CNY per 1M (aiproxy core/relay/adaptor/zhipu/constants.go: 0.0005 and 0.01 CNY / 1K; it had been
    // entered here at 4 from memory). GLM-4.5 had been entered at 2 in / 8 out CNY per 1M, confirmed by no source; it is
    // priced below from Z.AI's list.
    family: 'Zhipu GLM',
    models: {
      'glm-4': { ratio: 3.572 },
      'glm-4-plus': { ratio: 0.3571 },
      'glm-4-flash': { ratio: 0 },
      'embedding-2': { ratio: 0.0357 },
      'glm-4-air': { ratio: 0.0357 },
      'glm-4v-plus': { ratio: 0.7143 },
      'embedding-3': { ratio: 0.0357 },
      // Zhipu's rerank (docs.bigmodel.cn/api-reference/模型-api/文本重排序, model `rerank`): 0.8 CNY per 1M tokens as
      // GLM-Rerank is resold at list (ai.blsc.cn/document/llm/modalAbility/reRanking, read 2026-11-27); Zhipu's own price
      // page was not found in what could be read here.
      rerank: { ratio: 0.0571 },
      // Z.AI's price list (docs.z.ai/guides/overview/pricing, "All prices are in USD", read 2026-12-07), US$ per 1M
      // tokens input / cached input / output, cached-input storage "Limited-time Free": GLM-5 1 / 0.2 / 3.2, GLM-5-Turbo
      // 1.2 / 0.24 / 4.0, GLM-5-Code 1.2 / 0.3 / 5, GLM-4.7, GLM-4.6 and GLM-4.5 0.6 / 0.11 / 2.2, GLM-4.5-X 2.2 / 0.45 /
      // 8.9, GLM-4.5-Air 0.2 / 0.03 / 1.1, GLM-4.5-AirX 1.1 / 0.22 / 4.5, GLM-4.7-FlashX 0.07 / 0.01 / 0.4,
      // GLM-4-32B-0414-128K 0.1 / - / 0.1, GLM-4.7-Flash and GLM-4.5-Flash free. One price at any prompt length there.
      // Zhipu's mainland page (open.bigmodel.cn, the channel type's default) tiers these models by input and output
      // length; its tiers could not be read here, so the international list is kept for them: a long mainland prompt may
      // cost more than this (verify before relying on it). The stored copy of Z.AI's page predates GLM-5.1 and GLM-5.2:
      // not priced here.
      'glm-5': { ratio: 0.5, completion: 3.2, cacheRead: 0.2 },
      'glm-5-turbo': { ratio: 0.6, completion: 3.3334, cacheRead: 0.2 },
      'glm-5-code': { ratio: 0.6, completion: 4.1667, cacheRead: 0.25 },
      'glm-4.7': { ratio: 0.3, completion: 3.6667, cacheRead: 0.1834 },
      'glm-4.6': { ratio: 0.3, completion: 3.6667, cacheRead: 0.1834 },
      'glm-4.5': { ratio: 0.3, completion: 3.6667, cacheRead: 0.1834 },
      'glm-4.5-x': { ratio: 1.1, completion: 4.0455, cacheRead: 0.2046 },
      'glm-4.5-air': { ratio: 0.1, completion: 5.5, cacheRead: 0.15 },
      'glm-4.5-airx': { ratio: 0.55, completion: 4.091, cacheRead: 0.2 },
      'glm-4.7-flashx': { ratio: 0.035, completion: 5.7143, cacheRead: 0.1429 },
      'glm-4-32b-0414-128k': { ratio: 0.05 },
      'glm-4.7-flash': { ratio: 0 },
      'glm-4.5-flash': { ratio: 0 },
      // Zhipu's mainland price page (docs.bigmodel.cn/cn/guide/start/pricing, 旗舰模型, read 2026-12-07), CNY per 1M
      // tokens input / output / cache hit, cache storage 限时免费, one price up to its 1M context: GLM-5.3 8 / 28 / 2;
      // GLM-5.3-Flash at its list price 0.8 / 2.8 / 0.23 (the half price shown beside it ended 2026-09-09). Third-party
      // tables give Z.AI's international GLM-5.3 at US$1.40 / 4.40, cache US$0.26, above the US$1.143 / 4.00 here: a
      // channel on api.z.ai should raise it (Z.AI's own page for it was not read).
      'glm-5.3': { ratio: 0.5715, completion: 3.5, cacheRead: 0.25 },
      'glm-5.3-flash': { ratio: 0.0572, completion: 3.5, cacheRead: 0.2875 },
    },
  },
  {
    // Alibaba Model Studio / DashScope. The mainland list as many public price tables copy it, read 2026-11-23, not
    // Alibaba's own page: qwen-turbo 0.0003 / 0.0006 CNY per 1K input / output, qwen-plus 0.0008 / 0.002, qwen-max
    // 0.0024 / 0.0096. help.aliyun.com model list and text-embedding billing page, read 2026-11-23: qwen-long 0.0005 CNY
    // / 1K input, 0.002 CNY / 1K output; text-embedding-v1 0.0007 CNY / 1K. text-embedding-v3 0.5 CNY per 1M as the
    // third-party catalogue aiproxy lists it (core/relay/adaptor/ali/constants.go: 0.0005 CNY / 1K, read 2026-11-27;
    // Alibaba's page was not re-read). Alibaba's 文本排序
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
    // Alibaba's Qwen-Coder page (help.aliyun.com/zh/model-studio/qwen-coder, 中国大陆(北京), read 2026-12-07), CNY per 1K
    // tokens input / output by the request's input tokens: qwen3-coder-plus (and its snapshots -2025-09-23 and
    // -2025-07-22, same prices) 0-32K 0.004 / 0.016, 32K-128K 0.006 / 0.024, 128K-256K 0.01 / 0.04, 256K-1M 0.02 / 0.2;
    // qwen3-coder-flash (and -2025-07-28) 0.001 / 0.004, 0.0015 / 0.006, 0.0025 / 0.01, 0.005 / 0.025. Implicit cache
    // hits pay 20 % of the input price (explicit ones 10 %); context 1,000,000, output at most 65,536. The page gives no
    // price for explicit cache writes; Alibaba's qwen-doc-turbo page (help.aliyun.com/zh/model-studio/qwen-doc-turbo,
    // read 2026-12-07) prices them at 125 % of the input price (0.75 against 0.6 CNY), so written tokens are billed at
    // 125 % here, never below. Alibaba's international (Singapore) prices were not read here (third-party
    // tables give them higher than the mainland's): a channel on dashscope-intl should raise these.
    //
    // Four tiers, each a long-context step from the 0-32K price (32K, 128K and 256K read as 32,000, 128,000 and
    // 256,000, so no prompt at a boundary pays less than its tier). Ratios are rounded up, never down.
    family: 'Alibaba Qwen3-Coder (DashScope)',
    match: /^qwen3-coder-(plus|flash)/,
    cache: { read: 0.2, write: 1.25, write1h: 1.25 },
    outputLimit: 65_536,
    variants: [
      // 4 / 16 CNY; above 32K 6 / 24 (x1.5), above 128K 10 / 40 (x2.5), above 256K 20 / 200 (x5, x12.5).
      { match: /^qwen3-coder-plus/, longContext: [{ above: 32_000, input: 1.5, output: 1.5 }, { above: 128_000, input: 2.5, output: 2.5 }, { above: 256_000, input: 5, output: 12.5 }] },
      // 1 / 4 CNY; above 32K 1.5 / 6 (x1.5), above 128K 2.5 / 10 (x2.5), above 256K 5 / 25 (x5, x6.25).
      { match: /^qwen3-coder-flash/, longContext: [{ above: 32_000, input: 1.5, output: 1.5 }, { above: 128_000, input: 2.5, output: 2.5 }, { above: 256_000, input: 5, output: 6.25 }] },
    ],
    models: {
      'qwen3-coder-plus': { ratio: 0.2858, completion: 4, aliases: ['qwen3-coder-plus-2025-09-23', 'qwen3-coder-plus-2025-07-22'] },
      'qwen3-coder-flash': { ratio: 0.0715, completion: 4, aliases: ['qwen3-coder-flash-2025-07-28'] },
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
    // xfyun.cn/doc/spark/HTTP调用文档.html read 2026-11-23: Lite "支持免费使用" (free to use). The paid versions are sold
    // as token packages, one price for input and output; iFlytek's package page could not be read from here, so these
    // are the per-token prices the third-party catalogue aiproxy lists (core/relay/adaptor/xunfei/constants.go at
    // aebeb5e, read 2026-11-27, CNY per 1K tokens): Pro 0.014, Pro-128K 0.026, Max 0.06, Max-32K 0.09, 4.0 Ultra 0.14.
    // one-api's SparkDesk names (relay/providers/spark/versions.ts): SparkDesk-v3.5 is Max, SparkDesk-v4.0 is 4.0 Ultra.
    family: 'iFlytek Spark',
    models: {
      'Spark-Lite': { ratio: 0 },
      'Spark-Pro': { ratio: 1 },
      'Spark-Pro-128K': { ratio: 1.8571 },
      'Spark-Max': { ratio: 4.2857, aliases: ['SparkDesk-v3.5'] },
      'Spark-Max-32K': { ratio: 6.4286 },
      'Spark-4.0-Ultra': { ratio: 10, aliases: ['SparkDesk-v4.0'] },
    },
  },
  {
    // MiniMax's price page could not be read from here; third-party catalogues, read 2026-11-27 (CNY per 1M input /
    // output): MiniMax-M2 2.1 / 8.4 (LobeHub packages/model-bank/src/aiModels/minimax.ts at 3c9c874), MiniMax-Text-01
    // 1 / 8 and abab6.5s-chat 1 / 1 (the same LobeHub card at 143be90, src/config/aiModels/minimax.ts; aiproxy
    // core/relay/adaptor/minimax/constants.go gives the same), abab5.5-chat 15 (aiproxy, and one-api), abab6.5-chat 30
    // (one-api relay/billing/ratio/model.go, which cites api.minimax.chat/document/price).
    family: 'MiniMax',
    models: {
      'MiniMax-M2': { ratio: 0.15, completion: 4 },
      'MiniMax-Text-01': { ratio: 0.0714, completion: 8 },
      'abab6.5s-chat': { ratio: 0.0714 },
      'abab6.5-chat': { ratio: 2.1429 },
      'abab5.5-chat': { ratio: 1.0714 },
    },
  },
  {
    // Sources read 2026-11-27. Tencent's price page (cloud.tencent.com/document/product/1729/97731) could not be read
    // from here: hunyuan-lite is free and hunyuan-pro 30 / 100, hunyuan-standard 4.5 / 5 CNY per 1M input / output as a
    // public table dated 2024-05-23 copies that page; hunyuan-turbo 15 / 50 as Tencent announced it (not seen on the
    // page; the third-party catalogue aiproxy, core/relay/adaptor/tencent/constants.go read 2026-11-27, lists the same
    // 0.015 / 0.05 CNY per 1K, and hunyuan-pro 0.03 / 0.10; it lists hunyuan-standard at 0.0008 / 0.002, against the
    // 4.5 / 5 per 1M kept here, which another catalogue also copies: left as it was, unresolved); hunyuan-turbos-latest 0.8 / 2 as Tencent's own Hunyuan-TurboS announcement
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
    // StepFun's price page (platform.stepfun.com/docs/pricing/details) could not be read from here and no longer lists
    // the step-1 models; third-party catalogues that cite it, read 2026-11-27 (CNY per 1M input / output): LobeHub
    // src/config/aiModels/stepfun.ts at 115e0d5, with aiproxy core/relay/adaptor/stepfun/constants.go and one-api
    // agreeing: step-1-8k 5 / 20, step-1-32k 15 / 70, step-1-128k 40 / 200, step-1v-8k 5 / 20, step-2-16k 38 / 120.
    family: 'StepFun',
    models: {
      'step-1-8k': { ratio: 0.3571, completion: 4 },
      'step-1-32k': { ratio: 1.0714, completion: 4.6667 },
      'step-1-128k': { ratio: 2.8571, completion: 5 },
      'step-1v-8k': { ratio: 0.3571, completion: 4 },
      'step-2-16k': { ratio: 2.7143, completion: 3.1579 },
    },
  },
  {
    // 360's price page could not be read from here; one price for input and output, as the third-party catalogue
    // one-api lists it (relay/billing/ratio/model.go at 0053521, read 2026-11-27): 360GPT_S2_V9 0.012 CNY / 1K tokens,
    // embedding-bert-512-v1 and embedding_s1_v1 0.001 CNY / 1K.
    family: '360 AI',
    models: {
      '360GPT_S2_V9': { ratio: 0.8571 },
      'embedding-bert-512-v1': { ratio: 0.0714 },
      embedding_s1_v1: { ratio: 0.0714 },
    },
  },
  {
    // Baichuan's price page (platform.baichuan-ai.com/price) could not be read from here; one price for input and
    // output, third-party catalogues read 2026-11-27 (CNY per 1M tokens): Baichuan4 100, Baichuan3-Turbo 12,
    // Baichuan2-Turbo 8 (LobeHub src/config/aiModels/baichuan.ts at 33e0426; aiproxy and one-api agree),
    // Baichuan-Text-Embedding 0.5 (aiproxy core/relay/adaptor/baichuan/constants.go: 0.0005 CNY / 1K).
    family: 'Baichuan',
    models: {
      Baichuan4: { ratio: 7.1429 },
      'Baichuan3-Turbo': { ratio: 0.8571 },
      'Baichuan2-Turbo': { ratio: 0.5714 },
      'Baichuan-Text-Embedding': { ratio: 0.0357 },
    },
  },
  {
    // 01.AI's price page (platform.lingyiwanwu.com) could not be read from here; one price for input and output, as the
    // third-party catalogue LobeHub lists it (src/config/aiModels/zeroone.ts at 15bc2cc, read 2026-11-27; CNY per 1M
    // tokens): yi-lightning 0.99, yi-large 20, yi-medium 2.5, yi-vision 6 (aiproxy gives yi-lightning the same).
    family: '01.AI (Yi)',
    models: {
      'yi-lightning': { ratio: 0.0707 },
      'yi-large': { ratio: 1.4286 },
      'yi-medium': { ratio: 0.1786 },
      'yi-vision': { ratio: 0.4286 },
    },
  },
  {
    // Volcengine Ark's price page could not be read from here; third-party catalogue aiproxy
    // (core/relay/adaptor/doubao/constants.go at aebeb5e, read 2026-11-27, citing console.volcengine.com/ark; CNY per 1K
    // input / output): Doubao-pro-32k 0.0008 / 0.002, Doubao-lite-32k 0.0003 / 0.0006, Doubao-pro-128k 0.005 / 0.009,
    // Doubao-embedding 0.0005.
    family: 'ByteDance Doubao',
    models: {
      'doubao-pro-32k': { ratio: 0.0571, completion: 2.5 },
      'doubao-lite-32k': { ratio: 0.0214, completion: 2 },
      'doubao-pro-128k': { ratio: 0.3571, completion: 1.8 },
      'doubao-embedding': { ratio: 0.0357 },
    },
  },
];
