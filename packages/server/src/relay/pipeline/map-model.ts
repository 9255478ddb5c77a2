import { parseJsonObject } from '@model-relay/contract';
import type { ChannelRow } from '../../storage/schema.js';

/** The model to ask the channel for: its model_mapping's target, else the model itself (a broken mapping maps nothing). */
export function mapModel(channel: Pick<ChannelRow, 'model_mapping'>, model: string): string {
  const target = parseJsonObject(channel.model_mapping)?.[model];
  return typeof target === 'string' && target ? target : model;
}
