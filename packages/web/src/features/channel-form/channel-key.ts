/**
 * The type-specific fields of a channel (spec sections 3 and 5), kept in its config JSON: AWS (33) region,
 * ak, sk; Vertex AI (42) region, vertex_ai_project_id, vertex_ai_adc; Coze (34) user_id.
 */
export interface ChannelConfig {
  region: string;
  ak: string;
  sk: string;
  user_id: string;
  vertex_ai_project_id: string;
  vertex_ai_adc: string;
}

export const EMPTY_CONFIG: ChannelConfig = { region: '', ak: '', sk: '', user_id: '', vertex_ai_project_id: '', vertex_ai_adc: '' };

/** Which config fields each type uses, in the order they are sent. */
const CONFIG_FIELDS: Partial<Record<number, Array<keyof ChannelConfig>>> = {
  33: ['region', 'ak', 'sk'],
  42: ['region', 'vertex_ai_project_id', 'vertex_ai_adc'],
  34: ['user_id'],
};

/** The stored config text of a channel as form fields; anything unreadable gives empty fields. */
export function parseChannelConfig(text: string): ChannelConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return EMPTY_CONFIG;
  }
  if (!parsed || typeof parsed !== 'object') return EMPTY_CONFIG;
  const stored = parsed as Record<string, unknown>;
  const config = { ...EMPTY_CONFIG };
  for (const field of Object.keys(EMPTY_CONFIG) as Array<keyof ChannelConfig>) if (typeof stored[field] === 'string') config[field] = stored[field];
  return config;
}

/** The config text sent for a type: only that type's fields, or empty for types without any. */
export function configText(type: number, config: ChannelConfig): string {
  const fields = CONFIG_FIELDS[type];
  return fields ? JSON.stringify(Object.fromEntries(fields.map((field) => [field, config[field].trim()]))) : '';
}

/** Key composition of spec section 5: AWS (33) is AK|SK|region; Vertex AI (42) is region|project id|credentials JSON. */
export function composeKey(type: number, config: ChannelConfig, plain: string): string {
  const parts = type === 33 ? [config.ak, config.sk, config.region] : type === 42 ? [config.region, config.vertex_ai_project_id, config.vertex_ai_adc] : undefined;
  if (!parts) return plain;
  return parts.every((p) => p.trim()) ? parts.map((p) => p.trim()).join('|') : '';
}
