import { PROVIDER_CATALOGUE, providerInfo } from './providers.js';

/** One entry of the channel type catalogue (docs/console.md §3). `value` is the numeric type stored on a channel. */
export interface ChannelTypeInfo {
  value: number;
  text: string;
  color: string;
  /** Catalogue group as docs/console.md §3 lists it. */
  category: 'main' | 'knowledge' | 'proxy';
}

/** The full catalogue, in the order of docs/console.md §3 (from the provider catalogue, providers.ts). */
export const CHANNEL_TYPES: readonly ChannelTypeInfo[] = PROVIDER_CATALOGUE.map(({ value, text, color, category }) => ({ value, text, color, category }));

/** Looks a type up by its number; unknown numbers get a neutral entry instead of throwing. */
export function channelTypeInfo(value: number): ChannelTypeInfo {
  const { text, color, category } = providerInfo(value);
  return { value, text, color, category };
}

/** True for a type number of the catalogue. */
export function isKnownChannelType(value: number): boolean {
  return PROVIDER_CATALOGUE.some((p) => p.value === value);
}
