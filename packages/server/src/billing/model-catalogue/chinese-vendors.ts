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
    variants: [{ match: /^deepseek-reasoner/, outputLimit: 64_000 }],
    models: {
      'deepseek-chat': { ratio: 0.135, completion: 4, cacheRead: 0.1 },
      'deepseek-reasoner': { ratio: 0.275, completion: 4, cacheRead: 0.1 },
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
    // Embedding-2 0.5 CNY / 1M; the GLM-4 page calls GLM-4-Flash a free model. Checked 2026-11-27 against third-party
    // catalogues (Zhipu's pages could not be re-read from here): GLM-4-Air 0.5 CNY per 1M (genai-prices
    // prices/providers/zhipuai.yml, US$0.069 at its 7.25 CNY per US$, checked by them 2026-05-23), Embedding-3 0.5 and
    // GLM-4V-Plus 10 CNY per 1M (aiproxy core/relay/adaptor/zhipu/constants.go: 0.0005 and 0.01 CNY / 1K; it had been
    // entered here at 4 from memory). Not confirmed by any source read here: GLM-4.5 2 in / 8 out CNY per 1M (the
    // price we knew; verify before relying on it).
    family: 'Zhipu GLM',
    models: {
      'glm-4': { ratio: 3.572 },
      'glm-4-plus': { ratio: 0.3571 },
      'glm-4-flash': { ratio: 0 },
      'embedding-2': { ratio: 0.0357 },
      'glm-4-air': { ratio: 0.0357 },
      'glm-4v-plus': { ratio: 0.7143 },
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
