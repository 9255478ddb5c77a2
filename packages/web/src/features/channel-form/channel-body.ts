import { AZURE_CHANNEL_TYPE, AZURE_DEFAULT_API_VERSION, ChannelMessages, PROXY_CHANNEL_TYPE, channelKeys, isJsonObjectText } from '@model-relay/contract';
import { composeKey, configText, type ChannelConfig } from './channel-key';

export interface ChannelFormState {
  type: number;
  name: string;
  groups: string[];
  models: string[];
  model_mapping: string;
  key: string;
  base_url: string;
  other: string;
  priority: number | null;
  weight: number | null;
  batch: boolean;
}

/**
 * The channel submit rules of docs/console.md §5: checks, then the request body. Returns the message to show
 * instead when a rule fails.
 */
export function buildChannelBody(state: ChannelFormState, config: ChannelConfig, editing: boolean): { error: string } | { body: Record<string, unknown> } {
  const key = composeKey(state.type, config, state.key);
  if (!editing && (!state.name.trim() || !key.trim())) return { error: ChannelMessages.nameAndKeyRequired };
  if (state.type !== PROXY_CHANNEL_TYPE && state.models.length === 0) return { error: ChannelMessages.modelRequired };
  if (!isJsonObjectText(state.model_mapping, 'string')) return { error: ChannelMessages.mappingInvalid };
  if (state.type === AZURE_CHANNEL_TYPE && !state.base_url.trim().replace(/\/$/, '')) return { error: ChannelMessages.azureEndpointRequired };
  const body: Record<string, unknown> = {
    type: state.type,
    name: state.name.trim(),
    key: state.batch ? key : (channelKeys(state.type, key)[0] ?? ''),
    base_url: state.base_url.trim().replace(/\/$/, ''),
    other: state.type === AZURE_CHANNEL_TYPE && !state.other.trim() ? AZURE_DEFAULT_API_VERSION : state.other.trim(),
    model_mapping: state.model_mapping,
    models: state.type === PROXY_CHANNEL_TYPE ? '' : state.models.join(','),
    group: state.groups.join(','),
    config: configText(state.type, config),
  };
  // Priority and weight are integers; empty input is ignored; a negative weight becomes 0.
  if (state.priority !== null && Number.isFinite(state.priority)) body.priority = Math.trunc(state.priority);
  if (state.weight !== null && Number.isFinite(state.weight)) body.weight = Math.max(0, Math.trunc(state.weight));
  return { body };
}
