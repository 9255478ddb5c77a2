/**
 * Built-in model lists per channel type (GET /api/models): what the channel form offers for a type.
 * Channels may list any other model name too.
 */
const OPENAI = [
  'gpt-3.5-turbo', 'gpt-3.5-turbo-0125', 'gpt-3.5-turbo-instruct', 'gpt-4', 'gpt-4-turbo', 'gpt-4o', 'gpt-4o-2024-08-06', 'gpt-4o-mini',
  'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano', 'o1', 'o1-mini', 'o3-mini', 'text-embedding-ada-002', 'text-embedding-3-small',
  'text-embedding-3-large', 'text-moderation-latest', 'omni-moderation-latest', 'dall-e-2', 'dall-e-3', 'whisper-1', 'tts-1', 'tts-1-hd',
];

export const CHANNEL_MODELS: Record<number, string[]> = {
  1: OPENAI,
  3: OPENAI,
  8: OPENAI,
  14: ['claude-3-haiku-20240307', 'claude-3-5-haiku-20241022', 'claude-3-5-sonnet-20241022', 'claude-3-7-sonnet-20250219', 'claude-3-opus-20240229'],
  33: ['claude-3-haiku-20240307', 'claude-3-5-sonnet-20241022', 'claude-3-7-sonnet-20250219', 'meta.llama3-8b-instruct-v1:0'],
  11: ['PaLM-2'],
  24: ['gemini-1.5-flash', 'gemini-1.5-pro', 'gemini-2.0-flash', 'text-embedding-004'],
  42: ['gemini-1.5-flash', 'gemini-1.5-pro', 'gemini-2.0-flash', 'claude-3-5-sonnet-v2@20241022'],
  28: ['mistral-small-latest', 'mistral-large-latest', 'open-mistral-nemo', 'codestral-latest', 'mistral-embed'],
  41: ['meta-llama/llama-3.1-8b-instruct', 'meta-llama/llama-3.1-70b-instruct', 'mistralai/mistral-nemo', 'qwen/qwen-2.5-72b-instruct'],
  40: ['doubao-pro-32k', 'doubao-lite-32k', 'doubao-pro-128k', 'doubao-embedding'],
  15: ['ERNIE-4.0-8K', 'ERNIE-3.5-8K', 'ERNIE-Speed-128K', 'ERNIE-Lite-8K', 'Embedding-V1'],
  17: ['qwen-turbo', 'qwen-plus', 'qwen-max', 'qwen-long', 'text-embedding-v1'],
  18: ['SparkDesk-v3.5', 'SparkDesk-v4.0', 'Spark-Lite', 'Spark-Max'],
  16: ['glm-4', 'glm-4-plus', 'glm-4-flash', 'glm-4v', 'embedding-2'],
  19: ['360GPT_S2_V9', 'embedding-bert-512-v1', 'embedding_s1_v1'],
  25: ['moonshot-v1-8k', 'moonshot-v1-32k', 'moonshot-v1-128k'],
  23: ['hunyuan-lite', 'hunyuan-standard', 'hunyuan-pro', 'hunyuan-turbo'],
  26: ['Baichuan4', 'Baichuan3-Turbo', 'Baichuan2-Turbo', 'Baichuan-Text-Embedding'],
  27: ['abab6.5s-chat', 'abab6.5-chat', 'abab5.5-chat', 'MiniMax-Text-01'],
  29: ['llama-3.1-8b-instant', 'llama-3.3-70b-versatile', 'mixtral-8x7b-32768', 'gemma2-9b-it'],
  30: ['llama3.1', 'qwen2.5', 'mistral', 'nomic-embed-text'],
  31: ['yi-lightning', 'yi-large', 'yi-medium', 'yi-vision'],
  32: ['step-1-8k', 'step-1-32k', 'step-1-128k', 'step-1v-8k', 'step-2-16k'],
  34: ['coze-bot'],
  35: ['command-r', 'command-r-plus', 'command-r7b-12-2024', 'embed-multilingual-v3.0'],
  36: ['deepseek-chat', 'deepseek-reasoner'],
  37: ['@cf/meta/llama-3.1-8b-instruct', '@cf/mistral/mistral-7b-instruct-v0.1', '@hf/thebloke/deepseek-coder-6.7b-instruct-awq'],
  38: ['deepl-zh', 'deepl-en', 'deepl-ja'],
  39: ['meta-llama/Llama-3.3-70B-Instruct-Turbo', 'Qwen/Qwen2.5-72B-Instruct-Turbo', 'mistralai/Mixtral-8x7B-Instruct-v0.1'],
  22: ['fastgpt-app'],
  21: ['aiproxy-library'],
  20: ['openai/gpt-4o', 'openai/gpt-4o-mini', 'anthropic/claude-3.5-sonnet', 'google/gemini-2.0-flash-001', 'deepseek/deepseek-chat'],
  2: OPENAI,
  5: OPENAI,
  7: OPENAI,
  10: OPENAI,
  4: OPENAI,
  6: OPENAI,
  9: OPENAI,
  12: OPENAI,
  13: OPENAI,
  43: [],
};

/** Every built-in model name once, sorted. */
export function allBuiltInModels(): string[] {
  return [...new Set(Object.values(CHANNEL_MODELS).flat())].sort();
}
