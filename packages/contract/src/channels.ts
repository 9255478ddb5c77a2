import { PROVIDER_CATALOGUE } from './providers.js';
import { z } from 'zod';

export const ChannelMessages = {
  nameAndKeyRequired: '请填写渠道名称和渠道密钥！',
  modelRequired: '请至少选择一个模型！',
  mappingInvalid: '模型重定向必须是合法的 JSON 格式！',
  configInvalid: '渠道配置必须是合法的 JSON 格式！',
} as const;

/** Type with no model list (spec section 3, "Type 43 has no models"). */
export const PROXY_CHANNEL_TYPE = 43;
export const AZURE_CHANNEL_TYPE = 3;
export const AZURE_DEFAULT_API_VERSION = '2024-03-01-preview';

/** Key format hints of spec section 5. */
/** What the key field expects, per type, when it is more than one API key (from the provider catalogue). */
export const CHANNEL_KEY_HINTS: Record<number, string> = Object.fromEntries(PROVIDER_CATALOGUE.flatMap((p) => (p.keyHint ? [[p.value, p.keyHint]] : [])));

/** The model redirect example of the channel form: dated names mapped to base names. */
export const MODEL_MAPPING_EXAMPLE = JSON.stringify({ 'gpt-3.5-turbo-0301': 'gpt-3.5-turbo', 'gpt-4-0314': 'gpt-4', 'gpt-4-32k-0314': 'gpt-4-32k' }, null, 2);

/** A JSON object from text; undefined when the text is empty, not JSON, or not an object. */
export function parseJsonObject(text: string | null | undefined): Record<string, unknown> | undefined {
  if (!text?.trim()) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A JSON text that must be empty or an object; `valueType` constrains the values. */
export function isJsonObjectText(text: string, valueType?: 'string'): boolean {
  if (text.trim() === '') return true;
  const parsed = parseJsonObject(text);
  if (!parsed) return false;
  return valueType ? Object.values(parsed).every((v) => typeof v === valueType) : true;
}

/**
 * Key composition of spec section 5 from a channel's config fields: AWS (33) is AK|SK|region, Vertex AI (42)
 * region|project id|credentials JSON.
 */
export const CHANNEL_KEY_PARTS: Partial<Record<number, readonly string[]>> = {
  33: ['ak', 'sk', 'region'],
  42: ['region', 'vertex_ai_project_id', 'vertex_ai_adc'],
};

/** The key made from the config fields, or undefined for other types or while a part is missing. */
export function keyFromConfig(type: number, config: Record<string, unknown>): string | undefined {
  const fields = CHANNEL_KEY_PARTS[type];
  if (!fields) return undefined;
  const parts = fields.map((field) => (typeof config[field] === 'string' ? (config[field] as string).trim() : ''));
  return parts.every(Boolean) ? parts.join('|') : undefined;
}

const integer = z.preprocess((v) => (v === '' || v === null ? undefined : v), z.coerce.number().int().optional());

/** Fields of POST /api/channel/ and the full-update form of PUT /api/channel/. */
export const channelInputSchema = z.object({
  name: z.string().trim().default(''),
  type: z.coerce.number().int().min(1).default(1),
  key: z.string().default(''),
  base_url: z.string().trim().default(''),
  other: z.string().trim().default(''),
  model_mapping: z.string().default('').refine((v) => isJsonObjectText(v, 'string'), ChannelMessages.mappingInvalid),
  models: z.string().default(''),
  group: z.string().default('default'),
  config: z.string().default('').refine((v) => isJsonObjectText(v), ChannelMessages.configInvalid),
  system_prompt: z.string().default(''),
  priority: integer,
  weight: integer,
});
export type ChannelInput = z.infer<typeof channelInputSchema>;

/** Comma list -> trimmed, de-duplicated entries. */
export function splitList(text: string): string[] {
  return [...new Set(text.split(',').map((s) => s.trim()).filter(Boolean))];
}

/** The channel as lists and reads return it: never with its key. */
export interface ChannelDto {
  id: number;
  type: number;
  name: string;
  key: string;
  status: number;
  weight: number;
  priority: number;
  created_time: number;
  test_time: number;
  response_time: number;
  /** Why the last test failed; empty when it passed or never ran. A failed channel must not look healthy. */
  test_error: string;
  base_url: string;
  other: string;
  balance: number;
  balance_updated_time: number;
  models: string;
  group: string;
  used_quota: number;
  request_count: number;
  model_mapping: string;
  config: string;
  system_prompt: string;
}

/** GET /api/channel/test/status: the background run of "test all" / "test disabled". */
export interface ChannelTestProgress {
  running: boolean;
  scope: 'all' | 'disabled' | '';
  total: number;
  done: number;
  failed: number;
  /** seconds; 0 before the first run */
  started_at: number;
  finished_at: number;
}
