import { anthropicAdapter } from './anthropic/adapter.js';
import { azureAdapter } from './azure/adapter.js';
import { baiduAdapter } from './baidu/adapter.js';
import { bedrockAdapter } from './bedrock/adapter.js';
import { aiProxyLibraryAdapter } from './aiproxy-library/adapter.js';
import { cohereAdapter } from './cohere/adapter.js';
import { cozeAdapter } from './coze/adapter.js';
import { deeplAdapter } from './deepl/adapter.js';
import { geminiAdapter } from './gemini/adapter.js';
import { hunyuanAdapter } from './hunyuan/adapter.js';
import { ollamaAdapter } from './ollama/adapter.js';
import { openAiCompatibleAdapter } from './openai-compatible/adapter.js';
import { sparkAdapter } from './spark/adapter.js';
import type { ProviderAdapter } from './types.js';
import { vertexAdapter } from './vertex/adapter.js';

/** One line per provider. A channel type without an adapter here cannot relay yet. */
export const PROVIDERS: readonly ProviderAdapter[] = [
  openAiCompatibleAdapter,
  azureAdapter,
  anthropicAdapter,
  geminiAdapter,
  vertexAdapter,
  bedrockAdapter,
  ollamaAdapter,
  cohereAdapter,
  sparkAdapter,
  hunyuanAdapter,
  baiduAdapter,
  cozeAdapter,
  deeplAdapter,
  aiProxyLibraryAdapter,
];

const byType = new Map<number, ProviderAdapter>();
for (const adapter of PROVIDERS) for (const type of adapter.channelTypes) byType.set(type, adapter);

export function adapterFor(channelType: number): ProviderAdapter | undefined {
  return byType.get(channelType);
}
