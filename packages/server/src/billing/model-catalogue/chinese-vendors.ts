import { cacheReads, type ModelFamily } from './types.js';

/**
 * The Chinese vendors: DeepSeek, Moonshot, Zhipu, Alibaba DashScope, Baidu, iFlytek Spark, MiniMax, Tencent Hunyuan
 * (CNY at 7 CNY per US$: ratio = CNY per 1M tokens / 14). (Ratios, units and where each price was read:
 * billing/model-catalogue.ts and the comment on each family.)
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
    // MiniMax-M2 2.1 / 8.4 CNY per 1M: added 2026-11-27 at the list price we knew (not re-read from this machine;
    // verify before relying on it).
    family: 'MiniMax',
    models: {
      'MiniMax-M2': { ratio: 0.15, completion: 4 },
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
];
