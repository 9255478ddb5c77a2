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
    // (megalodon.jp/ref/2026-0326-0135-31/https://platform.moonshot.ai:443/docs/pricing/chat), read 2026-12-07; US$ per 1M
    // tokens, cache hit / cache miss / output: kimi-k2.5 0.10 / 0.60 / 3.00, kimi-k2-0905-preview 0.15 / 0.60 / 2.50.
    // kimi-k2-0905-preview had been entered on 2026-11-27 at the mainland 4 / 16 CNY (US$0.571 / 2.286 at 7 CNY per US$),
    // below the US$ list. Moonshot's current pages (platform.kimi.com/docs/pricing/chat-k26 and the K3 pages) could not be
    // read with their tables, so the newer models below are priced from third-party catalogues (read 2026-12-07), US$ per
    // 1M tokens, cache hit / cache miss / output, Moonshot's international list as each copies it: kimi-k2.6 0.16 / 0.95 /
    // 4.00 and kimi-k2.7-code 0.19 / 0.95 / 4.00 (genai-prices prices/providers/moonshotai.yml at 47df840, which cites
    // platform.kimi.ai/docs/pricing/chat-k27-code.md for K2.7 Code), kimi-k3 0.30 / 3.00 / 15.00 (the same file, citing
    // platform.kimi.ai/docs/pricing/chat-k3.md; LobeHub's Moonshot card, a stored copy of
    // packages/model-bank/src/aiModels/moonshot.ts whose commit could not be identified, gives the same),
    // kimi-k2.7-code-highspeed 0.38 / 1.90 / 8.00 (Vercel AI Gateway's model page, vercel.com/ai-gateway/models/
    // moonshotai/kimi-k2.7-code-highspeed, served by Moonshot AI); the Rust crate aicost 0.2.4 (docs.rs/crate/aicost,
    // src/data/data_kimi.rs) lists all four at these prices, and kimi-k2.5 at the 0.10 / 0.60 / 3.00 above. That LobeHub
    // card gives the mainland prices of the K2 models, 1.1 / 6.5 / 27 CNY (K2.6), 1.3 / 6.5 / 27 (K2.7 Code) and 2.6 / 13
    // / 54 (HighSpeed), and a reseller's guide (dev.to/teamorouter) K3's, 2 / 20 / 100 CNY: all below the US$ list at 7
    // CNY per US$, so the US$ list is kept, never below what Moonshot bills. Kimi K3.1 Pro, US$ per 1M input / output,
    // cache read, 5-minute and 1-hour cache writes: kimi-k3.1-pro 2 / 10, 0.20, 2, 4; kimi-k3.1-pro-highspeed 4 / 20,
    // 0.20, 4, 8 (APIYI's K3.1 Pro guide, docs.apiyi.com/api-capabilities/kimi-k3-1/overview, its prices "与官网一致" (as the
    // official site's), read 2026-12-07; Novita's model page novita.ai/models/llm/moonshotai-kimi-k3.1-pro gives the same
    // for the standard model). No source names a plain "kimi-k2.7" model (the K2.7 generation is K2.7 Code only).
    // Quotients are rounded up at the fourth decimal. No output limit is entered: the copies disagree (K2.6 from 32,768 to
    // 98,304 tokens, K3 from 65,536 to 1,048,576), and this list has no family facts.
    family: 'Moonshot (Kimi)',
    models: {
      'moonshot-v1-8k': { ratio: 0.857 },
      'moonshot-v1-32k': { ratio: 1.714 },
      'moonshot-v1-128k': { ratio: 4.286 },
      'kimi-k2-0905-preview': { ratio: 0.3, completion: 4.1667, cacheRead: 0.25 },
      'kimi-k2.5': { ratio: 0.3, completion: 5, cacheRead: 0.1667 },
      'kimi-k2.6': { ratio: 0.475, completion: 4.2106, cacheRead: 0.1685 },
      'kimi-k2.7-code': { ratio: 0.475, completion: 4.2106, cacheRead: 0.2 },
      'kimi-k2.7-code-highspeed': { ratio: 0.95, completion: 4.2106, cacheRead: 0.2 },
      'kimi-k3': { ratio: 1.5, completion: 5, cacheRead: 0.1 },
      'kimi-k3.1-pro': { ratio: 1, completion: 5, cacheRead: 0.1, cacheWrite: 1, cacheWrite1h: 2 },
      'kimi-k3.1-pro-highspeed': { ratio: 2, completion: 5, cacheRead: 0.05, cacheWrite: 1, cacheWrite1h: 2 },
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
      // cost more than this (verify before relying on it). The stored copy of Z.AI's page predates GLM-5.1 and GLM-5.2;
      // their Z.AI list prices as third-party catalogues copy it, read 2026-12-07, US$ per 1M tokens input / cached
      // input / output: GLM-5.2 1.40 / 0.26 / 4.40 (genai-prices prices/providers/zai.yml at 47df840, citing
      // docs.z.ai/guides/overview/pricing, checked by them 2026-08-04), GLM-5.1 the same 1.40 / 0.26 / 4.40 (Bifrost's
      // model library, getmaxim.ai/bifrost/model-library/compare/zai/glm-5.1, input and output; ClawRouter's v0.12.211
      // release notes, github.com/BlockRunAI/ClawRouter, "same rate as GLM-5.1, cached $0.26"). Zhipu's mainland page
      // no longer lists them; a reseller's list (docs.apiyi.com/models/glm-5-2) gives GLM-5.2 at US$1.142 / 0.2284 /
      // 3.997, 8 / 1.6 / 28 CNY at 7 CNY per US$, below Z.AI's: Z.AI's is kept. No source read gives a price for a
      // GLM-5.1 or GLM-5.2 -Flash or -Air model (the glm-5.2-flash a few projects name is, one model guide says, no API
      // model): none is entered.
      'glm-5.2': { ratio: 0.7, completion: 3.1429, cacheRead: 0.1858 },
      'glm-5.1': { ratio: 0.7, completion: 3.1429, cacheRead: 0.1858 },
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
    // Qwen3-Max and the Qwen3.5 to Qwen3.8 models on Alibaba Model Studio, mainland (Beijing) list prices in CNY per 1M
    // tokens input / output by the request's input tokens. Alibaba's own pages (help.aliyun.com/zh/model-studio/models
    // and the model pages) could not be read with their tables from here; these are the prices of the third-party
    // catalogue LobeHub's Qwen card (a stored copy of packages/model-bank/src/aiModels/qwen.ts whose commit could not be
    // identified, citing help.aliyun.com/zh/model-studio/models and .../qwen3-8-max; read 2026-12-07), checked against
    // the other copies named:
    //   qwen3-max          0-32K 2.5 / 10, 32K-128K 4 / 16, 128K-252K 7 / 28 (the same in the price guide
    //                      github.com/qxytah/qwen-api-pricing, May 2026, "数据来源于阿里云官方帮助中心")
    //   qwen3.5-plus       0-128K 0.8 / 4.8, 128K-256K 2 / 12 (the same in qxytah), 256K-1M 4 / 24
    //   qwen3.5-flash      0-128K 0.2 / 2, 128K-256K 0.8 / 8, 256K-1M 1.2 / 12 (github.com/gntrq862/qwen3-pricing-analysis
    //                      gives the 0.2 input of its first tier)
    //   qwen3.6-plus       0-256K 2 / 12 (the same in qxytah), 256K-1M 8 / 48
    //   qwen3.6-flash      0-256K 1.2 / 7.2, 256K-1M 4.8 / 28.8
    //   qwen3.6-max-preview 0-128K 9 / 54, above 128K 15 / 90 (context 262,144)
    //   qwen3.7-plus       2 / 8 at any length (LobeHub's one price; OpenCode's US$ list has a dearer tier above 256K for
    //                      it: verify before relying on long prompts)
    //   qwen3.7-flash      0-32K 0.2 / 0.8, 32K-256K 0.6 / 2.4, 256K-1M 1.2 / 4.8 (a reseller, docs.apiyi.com/models/
    //                      qwen3-7-flash, lists it at US$0.16 / 0.64, unexplained by these tiers: verify)
    //   qwen3.7-max        12 / 48 at any length (a reseller's API example, git.opencomputing.cn/yumoqing/llmage; docs.apiyi.com/
    //                      models/qwen3-7-max lists US$1.714 / 5.142, 12 / 36 at 7: the copies disagree on the output price,
    //                      and the dearer is kept, never below what Alibaba bills: verify)
    //   qwen3.8-max        12 / 36 at any length up to 1M (docs.laozhang.ai/en/announcements/qwen3-8-2-4t-a95b-2026-12:
    //                      "Alibaba Cloud Model Studio's public price on December 4, 2026 (¥12 / ¥36)", one tier)
    //   qwen3.8-flash      0.8 / 2.7 at any length (docs.apiyi.com/en/models/qwen3-8-flash: US$0.114 / 0.3876)
    // Cache hits: 20 % of the input price (implicit cache, as LobeHub and LaoZhang give it; Alibaba's explicit cache is
    // billed lower, 10 % to 12.5 % in LobeHub's copy), so 20 %, never below; written tokens at 125 % as for Qwen3-Coder.
    // As there, the tiers are long-context steps from the first tier's price, 32K, 128K and 256K read as 32,000,
    // 128,000 and 256,000, and ratios are rounded up at the fourth decimal. Alibaba's international prices are higher
    // (third-party tables): a channel on dashscope-intl should raise these. The dated snapshots (qwen3.5-plus-2026-02-15
    // and the like) are not entered, nor the open-weight Qwen3.5 / 3.6 models (qwen3.5-397b-a17b and the like): no
    // vendor page read names their ids with prices, and their tiers stand on one copy.
    // Output limits: qwen3-max 65,536 (LobeHub; Vercel AI Gateway's vercel.com/ai-gateway/models/qwen3-max.md),
    // qwen3.7-flash 65,536, qwen3.8-flash and qwen3.8-max 131,072 (LobeHub; docs.apiyi.com's pages of each); the others'
    // copies disagree or stand alone, so they keep the default.
    family: 'Alibaba Qwen3-Max, Qwen3.5 to Qwen3.8 (DashScope)',
    match: /^qwen3(-max|\.5-(plus|flash)|\.6-(plus|flash|max-preview)|\.7-(plus|flash|max)|\.8-(flash|max))$/,
    cache: { read: 0.2, write: 1.25, write1h: 1.25 },
    variants: [
      // 2.5 / 10 CNY; above 32K 4 / 16 (x1.6), above 128K 7 / 28 (x2.8).
      { match: /^qwen3-max$/, outputLimit: 65_536, longContext: [{ above: 32_000, input: 1.6, output: 1.6 }, { above: 128_000, input: 2.8, output: 2.8 }] },
      // 0.8 / 4.8 CNY; above 128K 2 / 12 (x2.5), above 256K 4 / 24 (x5).
      { match: /^qwen3\.5-plus$/, longContext: [{ above: 128_000, input: 2.5, output: 2.5 }, { above: 256_000, input: 5, output: 5 }] },
      // 0.2 / 2 CNY; above 128K 0.8 / 8 (x4), above 256K 1.2 / 12 (x6).
      { match: /^qwen3\.5-flash$/, longContext: [{ above: 128_000, input: 4, output: 4 }, { above: 256_000, input: 6, output: 6 }] },
      // 2 / 12 CNY; above 256K 8 / 48 (x4).
      { match: /^qwen3\.6-plus$/, longContext: { above: 256_000, input: 4, output: 4 } },
      // 1.2 / 7.2 CNY; above 256K 4.8 / 28.8 (x4).
      { match: /^qwen3\.6-flash$/, longContext: { above: 256_000, input: 4, output: 4 } },
      // 9 / 54 CNY; above 128K 15 / 90 (x1.6667, 15 / 9 rounded up).
      { match: /^qwen3\.6-max-preview$/, longContext: { above: 128_000, input: 1.6667, output: 1.6667 } },
      // 0.2 / 0.8 CNY; above 32K 0.6 / 2.4 (x3), above 256K 1.2 / 4.8 (x6).
      { match: /^qwen3\.7-flash$/, outputLimit: 65_536, longContext: [{ above: 32_000, input: 3, output: 3 }, { above: 256_000, input: 6, output: 6 }] },
      { match: /^qwen3\.8-(flash|max)$/, outputLimit: 131_072 },
    ],
    models: {
      'qwen3-max': { ratio: 0.1786, completion: 4 },
      'qwen3.5-plus': { ratio: 0.0572, completion: 6 },
      'qwen3.5-flash': { ratio: 0.0143, completion: 10 },
      'qwen3.6-plus': { ratio: 0.1429, completion: 6 },
      'qwen3.6-flash': { ratio: 0.0858, completion: 6 },
      'qwen3.6-max-preview': { ratio: 0.6429, completion: 6 },
      'qwen3.7-plus': { ratio: 0.1429, completion: 4 },
      'qwen3.7-flash': { ratio: 0.0143, completion: 4 },
      'qwen3.7-max': { ratio: 0.8572, completion: 4 },
      'qwen3.8-max': { ratio: 0.8572, completion: 3 },
      'qwen3.8-flash': { ratio: 0.0572, completion: 3.375 },
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
