import { CHANNEL_KEY_PARTS, PROVIDER_CATALOGUE, keyFromConfig, parseJsonObject } from '@model-relay/contract';

/**
 * The type-specific fields of a channel (docs/console.md §3 and §5), kept in its config JSON: AWS (33) region,
 * ak, sk; Vertex AI (42) region, vertex_ai_project_id, vertex_ai_adc; Coze (34) user_id; Cloudflare (37) its Account ID
 * in user_id; the vendors with an Anthropic-compatible endpoint `claude_api: "on"` when the channel uses it.
 */
export interface ChannelConfig {
  region: string;
  ak: string;
  sk: string;
  user_id: string;
  vertex_ai_project_id: string;
  vertex_ai_adc: string;
  claude_api: string;
}

export const EMPTY_CONFIG: ChannelConfig = { region: '', ak: '', sk: '', user_id: '', vertex_ai_project_id: '', vertex_ai_adc: '', claude_api: '' };

/** Which config fields each type uses, in the order they are sent. */
const CONFIG_FIELDS: Partial<Record<number, Array<keyof ChannelConfig>>> = {
  33: ['region', 'ak', 'sk'],
  42: ['region', 'vertex_ai_project_id', 'vertex_ai_adc'],
  34: ['user_id'],
  37: ['user_id'],
  ...Object.fromEntries(PROVIDER_CATALOGUE.filter((p) => p.anthropicPath).map((p) => [p.value, ['claude_api'] as Array<keyof ChannelConfig>])),
};

/** The stored config text of a channel as form fields; anything unreadable gives empty fields. */
export function parseChannelConfig(text: string): ChannelConfig {
  const stored = parseJsonObject(text) ?? {};
  const config = { ...EMPTY_CONFIG };
  for (const field of Object.keys(EMPTY_CONFIG) as Array<keyof ChannelConfig>) if (typeof stored[field] === 'string') config[field] = stored[field];
  return config;
}

/** The config text sent for a type: only that type's fields, or empty for types without any. */
export function configText(type: number, config: ChannelConfig): string {
  const fields = CONFIG_FIELDS[type];
  return fields ? JSON.stringify(Object.fromEntries(fields.map((field) => [field, config[field].trim()]))) : '';
}

/** The key of the types whose key is made from config fields (AWS, Vertex AI: docs/console.md §5), else the typed one. */
export function composeKey(type: number, config: ChannelConfig, plain: string): string {
  if (!CHANNEL_KEY_PARTS[type]) return plain;
  return keyFromConfig(type, { ...config }) ?? '';
}
