import { azureAdapter } from './azure/adapter.js';
import { openAiAdapter } from './openai/adapter.js';
import type { ProviderAdapter } from './types.js';

/** One line per provider. A channel type without an adapter here cannot relay yet. */
const ADAPTERS: ProviderAdapter[] = [openAiAdapter, azureAdapter];

const byType = new Map<number, ProviderAdapter>();
for (const adapter of ADAPTERS) for (const type of adapter.channelTypes) byType.set(type, adapter);

export function adapterFor(channelType: number): ProviderAdapter | undefined {
  return byType.get(channelType);
}
