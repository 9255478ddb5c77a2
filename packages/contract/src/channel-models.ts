import { PROVIDER_CATALOGUE } from './providers.js';

/**
 * Built-in model lists per channel type (GET /api/models): what the channel form offers for a type, from the
 * provider catalogue. Channels may list any other model name too.
 */
export const CHANNEL_MODELS: Record<number, string[]> = Object.fromEntries(PROVIDER_CATALOGUE.map((p) => [p.value, [...p.models]]));

/** Every built-in model name once, sorted. */
export function allBuiltInModels(): string[] {
  return [...new Set(Object.values(CHANNEL_MODELS).flat())].sort();
}
