import {
  AZURE_CHANNEL_TYPE,
  AZURE_DEFAULT_API_VERSION,
  ChannelMessages,
  PROXY_CHANNEL_TYPE,
  VERTEX_CHANNEL_TYPE,
  channelKeys,
  isJsonObjectText,
  parseJsonObject,
  vertexChannelProblem,
  vertexCredentialsProblem,
} from '@model-relay/contract';
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
  if (state.type === VERTEX_CHANNEL_TYPE) {
    const problem = vertexProblem(state, config, key);
    if (problem) return { error: problem };
  }
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

/**
 * A Vertex AI channel as the relay will read it (the provider's rules, in the contract): with all three parts the
 * key is whole and the channel is checked as saved; an edit with only new credentials checks them alone (the server
 * fills the rest from the stored channel); an edit leaving the credentials empty keeps the stored ones.
 */
function vertexProblem(state: ChannelFormState, config: ChannelConfig, key: string): string | undefined {
  if (key) return vertexChannelProblem({ key: channelKeys(state.type, key)[0] ?? '', other: state.other.trim(), config: parseJsonObject(configText(state.type, config)) ?? {} });
  return config.vertex_ai_adc.trim() ? vertexCredentialsProblem(config.vertex_ai_adc) : undefined;
}
