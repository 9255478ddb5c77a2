import { parseJsonObject } from '@model-relay/contract';
import type { ChannelRow } from '../../storage/schema.js';

/** Each channel row's mapping, parsed once (the relay cache hands the same row to every request until it changes). */
const mappings = new WeakMap<object, { text: string | null | undefined; mapping: Record<string, unknown> | undefined }>();

/** The model to ask the channel for: its model_mapping's target, else the model itself (a broken mapping maps nothing). */
export function mapModel(channel: Pick<ChannelRow, 'model_mapping'>, model: string): string {
  let parsed = mappings.get(channel);
  if (!parsed || parsed.text !== channel.model_mapping) mappings.set(channel, (parsed = { text: channel.model_mapping, mapping: parseJsonObject(channel.model_mapping) }));
  const target = parsed.mapping?.[model];
  return typeof target === 'string' && target ? target : model;
}
