/** One entry of the channel type catalogue (spec section 3). `value` is the numeric type stored on a channel. */
export interface ChannelTypeInfo {
  value: number;
  text: string;
  color: string;
  /** Catalogue group as the spec lists it. */
  category: 'main' | 'knowledge' | 'proxy';
}

/** The full catalogue, in the spec's order. Colours are ours (the spec leaves them open). */
export const CHANNEL_TYPES: readonly ChannelTypeInfo[] = [
  { value: 1, text: 'OpenAI', color: 'green', category: 'main' },
  { value: 14, text: 'Anthropic Claude', color: 'volcano', category: 'main' },
  { value: 33, text: 'AWS', color: 'orange', category: 'main' },
  { value: 3, text: 'Azure OpenAI', color: 'geekblue', category: 'main' },
  { value: 11, text: 'Google PaLM2', color: 'blue', category: 'main' },
  { value: 24, text: 'Google Gemini', color: 'blue', category: 'main' },
  { value: 28, text: 'Mistral AI', color: 'gold', category: 'main' },
  { value: 41, text: 'Novita', color: 'purple', category: 'main' },
  { value: 40, text: '字节跳动豆包', color: 'cyan', category: 'main' },
  { value: 15, text: '百度文心千帆', color: 'blue', category: 'main' },
  { value: 17, text: '阿里通义千问', color: 'orange', category: 'main' },
  { value: 18, text: '讯飞星火认知', color: 'blue', category: 'main' },
  { value: 16, text: '智谱 ChatGLM', color: 'magenta', category: 'main' },
  { value: 19, text: '360 智脑', color: 'green', category: 'main' },
  { value: 25, text: 'Moonshot AI', color: 'default', category: 'main' },
  { value: 23, text: '腾讯混元', color: 'cyan', category: 'main' },
  { value: 26, text: '百川大模型', color: 'orange', category: 'main' },
  { value: 27, text: 'MiniMax', color: 'red', category: 'main' },
  { value: 29, text: 'Groq', color: 'volcano', category: 'main' },
  { value: 30, text: 'Ollama', color: 'default', category: 'main' },
  { value: 31, text: '零一万物', color: 'green', category: 'main' },
  { value: 32, text: '阶跃星辰', color: 'blue', category: 'main' },
  { value: 34, text: 'Coze', color: 'blue', category: 'main' },
  { value: 35, text: 'Cohere', color: 'blue', category: 'main' },
  { value: 36, text: 'DeepSeek', color: 'default', category: 'main' },
  { value: 37, text: 'Cloudflare', color: 'orange', category: 'main' },
  { value: 38, text: 'DeepL', color: 'default', category: 'main' },
  { value: 39, text: 'together.ai', color: 'blue', category: 'main' },
  { value: 42, text: 'VertexAI', color: 'blue', category: 'main' },
  { value: 43, text: 'Proxy', color: 'blue', category: 'main' },
  { value: 8, text: '自定义渠道', color: 'pink', category: 'main' },
  { value: 22, text: '知识库：FastGPT', color: 'blue', category: 'knowledge' },
  { value: 21, text: '知识库：AI Proxy', color: 'purple', category: 'knowledge' },
  { value: 20, text: '代理：OpenRouter', color: 'black', category: 'proxy' },
  { value: 2, text: '代理：API2D', color: 'blue', category: 'proxy' },
  { value: 5, text: '代理：OpenAI-SB', color: 'purple', category: 'proxy' },
  { value: 7, text: '代理：OhMyGPT', color: 'purple', category: 'proxy' },
  { value: 10, text: '代理：AI Proxy', color: 'purple', category: 'proxy' },
  { value: 4, text: '代理：CloseAI', color: 'teal', category: 'proxy' },
  { value: 6, text: '代理：OpenAI Max', color: 'violet', category: 'proxy' },
  { value: 9, text: '代理：AI.LS', color: 'yellow', category: 'proxy' },
  { value: 12, text: '代理：API2GPT', color: 'blue', category: 'proxy' },
  { value: 13, text: '代理：AIGC2D', color: 'purple', category: 'proxy' },
];

const byValue = new Map(CHANNEL_TYPES.map((t) => [t.value, t]));

/** Looks a type up by its number; unknown numbers get a neutral entry instead of throwing. */
export function channelTypeInfo(value: number): ChannelTypeInfo {
  return byValue.get(value) ?? { value, text: '未知类型', color: 'default', category: 'main' };
}

/** True for a type number of the catalogue. */
export function isKnownChannelType(value: number): boolean {
  return byValue.has(value);
}
