import type { Product } from '../source/detect-product.js';

/**
 * How a source channel type becomes one of ours. `type` is our number; `baseUrl` is put in when the source left the
 * base URL empty and our type has no default of its own (an OpenAI-compatible vendor brought over as 自定义渠道);
 * `pathSuffix` is added to a base URL that lacks it (one-api and new-api append /api/v3 for Doubao themselves, our
 * type 40 expects it in the base URL). Without `type` the source type cannot be reproduced: `name` says what it was.
 */
export interface TypeMapping {
  type?: number;
  name: string;
  baseUrl?: string;
  pathSuffix?: string;
}

const CUSTOM = 8;

/**
 * one-api's channel types (relay/channeltype): 1–43 are ours, number for number (our catalogue took them over);
 * the later ones are mapped where an OpenAI-compatible channel reproduces them.
 */
const ONE_API_LATER: Record<number, TypeMapping> = {
  44: { type: CUSTOM, name: 'SiliconFlow', baseUrl: 'https://api.siliconflow.cn' },
  45: { type: CUSTOM, name: 'xAI', baseUrl: 'https://api.x.ai' },
  46: { name: 'Replicate' },
  // Qianfan v2's keys are bce-v3 keys, which our Baidu type sends to the v2 API; Spark v2 is its HTTP API
  47: { type: 15, name: '百度千帆 V2' },
  48: { type: 18, name: '讯飞星火 V2', baseUrl: 'https://spark-api-open.xf-yun.com' },
  49: { name: '阿里云百炼' },
  50: { type: CUSTOM, name: 'OpenAI 兼容' },
  51: { name: 'Gemini（OpenAI 兼容）' },
  52: { name: 'Dummy' },
};

/**
 * new-api's channel types (constant/channel.go): the same as one-api's up to 25, different after (its 26 is Zhipu v4,
 * 33 AWS, 41 Vertex AI, 42 Mistral, 43 DeepSeek ...).
 */
const NEW_API: Record<number, TypeMapping> = {
  1: { type: 1, name: 'OpenAI' },
  2: { name: 'Midjourney 代理' },
  3: { type: 3, name: 'Azure OpenAI' },
  4: { type: 30, name: 'Ollama' },
  5: { name: 'Midjourney Plus' },
  6: { type: 6, name: 'OpenAI Max' },
  7: { type: 7, name: 'OhMyGPT' },
  8: { type: CUSTOM, name: '自定义渠道' },
  9: { type: 9, name: 'AI.LS' },
  10: { type: 10, name: 'AI Proxy' },
  11: { type: 11, name: 'Google PaLM2' },
  12: { type: 12, name: 'API2GPT' },
  13: { type: 13, name: 'AIGC2D' },
  14: { type: 14, name: 'Anthropic Claude' },
  15: { type: 15, name: '百度文心千帆' },
  16: { type: 16, name: '智谱 ChatGLM' },
  17: { type: 17, name: '阿里通义千问' },
  18: { type: 18, name: '讯飞星火' },
  19: { type: 19, name: '360 智脑' },
  20: { type: 20, name: 'OpenRouter' },
  21: { type: 21, name: '知识库：AI Proxy' },
  22: { type: 22, name: '知识库：FastGPT' },
  23: { type: 23, name: '腾讯混元' },
  24: { type: 24, name: 'Google Gemini' },
  25: { type: 25, name: 'Moonshot AI' },
  26: { type: 16, name: '智谱 GLM-4（v4）' },
  27: { name: 'Perplexity' },
  31: { type: 31, name: '零一万物' },
  33: { type: 33, name: 'AWS Claude' },
  34: { type: 35, name: 'Cohere' },
  35: { type: 27, name: 'MiniMax' },
  36: { name: 'Suno API' },
  37: { name: 'Dify' },
  38: { name: 'Jina' },
  39: { type: 37, name: 'Cloudflare' },
  40: { type: CUSTOM, name: 'SiliconFlow', baseUrl: 'https://api.siliconflow.cn' },
  41: { type: 42, name: 'Vertex AI' },
  42: { type: 28, name: 'Mistral AI' },
  43: { type: 36, name: 'DeepSeek' },
  44: { name: 'MokaAI' },
  45: { type: 40, name: '火山引擎（豆包）', pathSuffix: '/api/v3' },
  46: { type: 15, name: '百度千帆 V2' },
  47: { type: CUSTOM, name: 'Xinference' },
  48: { type: CUSTOM, name: 'xAI', baseUrl: 'https://api.x.ai' },
  49: { type: 34, name: 'Coze' },
  50: { name: '可灵' },
  51: { name: '即梦' },
  52: { name: 'Vidu' },
  53: { name: 'Submodel' },
  54: { name: '豆包视频' },
  55: { name: 'Sora' },
  56: { name: 'Replicate' },
  57: { name: 'Codex' },
};

export function mapChannelType(product: Product, sourceType: number): TypeMapping {
  if (product === 'one-api') {
    if (sourceType >= 1 && sourceType <= 43) return { type: sourceType, name: `类型 ${sourceType}`, pathSuffix: sourceType === 40 ? '/api/v3' : undefined };
    return ONE_API_LATER[sourceType] ?? { name: `未知类型 ${sourceType}` };
  }
  return NEW_API[sourceType] ?? { name: `未知类型 ${sourceType}` };
}
