import { readVertexChannelSettings, type VertexChannelSettings } from '@model-relay/contract';
import type { ChannelTarget } from '../types.js';

/**
 * Where a Vertex AI channel sends its requests and with which service account. The console keeps the parts in
 * the channel's config (`region`, `vertex_ai_project_id`, `vertex_ai_adc`) and composes the key
 * "region|project|credentials JSON" from them; a channel made through the API may have only the key. The config
 * wins (the key of a pasted multi-line JSON can be cut at its first line), the key fills what it lacks, the
 * project defaults to the service account's own and the region to `global`. The rules live in the contract
 * (readVertexChannelSettings), where the channel submit checks of the console and the API use them too.
 */
export type VertexChannel = VertexChannelSettings;

/** A Vertex channel whose settings cannot work; the message says which one, in the console's words. */
export class VertexConfigError extends Error {}

export function readVertexChannel(channel: ChannelTarget): VertexChannel {
  const reading = readVertexChannelSettings(channel);
  if (!reading.ok) throw new VertexConfigError(reading.message);
  return reading.value;
}
