import { PROVIDER_CATALOGUE } from './providers.js';
import { z } from 'zod';
import { isKnownChannelType } from './channel-types.js';
import { TEXT_COLUMN_MAX_BYTES, idInput, integerInput, textInput, utf8Length } from './input.js';

export const ChannelMessages = {
  nameAndKeyRequired: '请填写渠道名称和渠道密钥！',
  modelRequired: '请至少选择一个模型！',
  mappingInvalid: '模型重定向必须是合法的 JSON 格式！',
  configInvalid: '渠道配置必须是合法的 JSON 格式！',
  /** An Azure channel calls {endpoint}/openai/deployments/...: without one it cannot answer anything. */
  azureEndpointRequired: '请填写 AZURE_OPENAI_ENDPOINT，例如 https://docs-test-001.openai.azure.com',
  /** A Vertex AI channel logs in with a service-account key file (vertex-channel.ts): anything else cannot answer. */
  vertexCredentialsInvalid: 'Vertex AI 渠道的密钥必须是服务账号的 JSON（"type": "service_account"，含 client_email 与 private_key）',
} as const;

/** Type with no model list (docs/console.md §3, "Type 43 has no models"). */
export const PROXY_CHANNEL_TYPE = 43;
export const AZURE_CHANNEL_TYPE = 3;
export const AZURE_DEFAULT_API_VERSION = '2024-03-01-preview';

/** Key format hints of docs/console.md §5. */
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
 * Key composition of docs/console.md §5 from a channel's config fields: AWS (33) is AK|SK|region, Vertex AI (42)
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
  const parts = fields.map((field) => (typeof config[field] === 'string' ? oneLine((config[field] as string).trim()) : ''));
  return parts.every(Boolean) ? parts.join('|') : undefined;
}

/** Vertex AI (42): one key is region|project|credentials JSON, and a downloaded service-account JSON spans many lines. */
const SINGLE_KEY_TYPES = new Set([42]);

/**
 * The keys of a channel's key text: one per non-empty line (batch create), except for types whose one key may
 * span lines (a Vertex AI credentials JSON), which give one key with the JSON on a single line.
 */
export function channelKeys(type: number, text: string): string[] {
  if (SINGLE_KEY_TYPES.has(type)) {
    const key = oneLine(text.trim());
    return key ? [key] : [];
  }
  return text.split('\n').map((k) => k.trim()).filter(Boolean);
}

/** A JSON text (or a key ending in one) on one line: JSON strings cannot hold raw newlines, so they go. */
function oneLine(text: string): string {
  return text.includes('\n') ? text.replace(/\s*\r?\n\s*/g, ' ') : text;
}

/** Size limits of a channel's fields: their columns (varchar(128) name, varchar(512) base_url and other, varchar(255) group, TEXT elsewhere). */
export const ChannelLimits = {
  name: 128,
  /** All keys of a batch together; each key (one line) must fit a TEXT column. */
  keyTotal: 512 * 1024,
  baseUrl: 512,
  other: 512,
  group: 255,
  /** Entries of the models and group lists, keys of one batch, and rows of the channel index one create may add. */
  models: 2000,
  groups: 32,
  /** One model name and one group name: the columns of the channel index (varchar(255), varchar(64)). */
  modelName: 255,
  groupName: 64,
  batchKeys: 500,
  abilityRows: 50_000,
} as const;

/** Priority and weight: empty input is ignored (docs/console.md §5); weight is a 32-bit column. */
const priority = z.preprocess((v) => (v === '' || v === null ? undefined : v), integerInput('priority', { message: '优先级必须是整数' }).optional());
const weight = z.preprocess((v) => (v === '' || v === null ? undefined : v), integerInput('weight', { max: 2147483647, message: '权重必须是不超过 2147483647 的整数' }).optional());
const longText = (field: string) => textInput(field, { max: TEXT_COLUMN_MAX_BYTES, maxBytes: TEXT_COLUMN_MAX_BYTES, multiline: true, trim: false });

/** Fields of POST /api/channel/ and the full-update form of PUT /api/channel/. */
export const channelInputSchema = z.object({
  name: textInput('name', { max: ChannelLimits.name }).default(''),
  type: integerInput('type', { min: 1, message: '未知的渠道类型' })
    .refine((type) => isKnownChannelType(type), '未知的渠道类型')
    .default(1),
  key: textInput('key', { max: ChannelLimits.keyTotal, multiline: true, trim: false })
    .refine((key) => key.split('\n').every((line) => utf8Length(line) <= TEXT_COLUMN_MAX_BYTES), `参数 key 中每个密钥最多 ${TEXT_COLUMN_MAX_BYTES} 字节`)
    .default(''),
  base_url: textInput('base_url', { max: ChannelLimits.baseUrl }).default(''),
  other: textInput('other', { max: ChannelLimits.other }).default(''),
  model_mapping: longText('model_mapping').default('').refine((v) => isJsonObjectText(v, 'string'), ChannelMessages.mappingInvalid),
  models: longText('models')
    .default('')
    .refine((v) => splitList(v).length <= ChannelLimits.models, `一个渠道最多 ${ChannelLimits.models} 个模型`)
    .refine((v) => splitList(v).every((m) => m.length <= ChannelLimits.modelName), `模型名称最多 ${ChannelLimits.modelName} 个字符`),
  group: textInput('group', { max: ChannelLimits.group })
    .default('default')
    .refine((v) => splitList(v).length <= ChannelLimits.groups, `一个渠道最多 ${ChannelLimits.groups} 个分组`)
    .refine((v) => splitList(v).every((g) => g.length <= ChannelLimits.groupName), `分组名称最多 ${ChannelLimits.groupName} 个字符`),
  config: longText('config').default('').refine((v) => isJsonObjectText(v), ChannelMessages.configInvalid),
  system_prompt: longText('system_prompt').default(''),
  priority,
  weight,
});
export type ChannelInput = z.infer<typeof channelInputSchema>;

/**
 * POST /api/channel/fetch_models: the upstream's model list for the channel the form holds. `id` names a saved channel
 * whose stored key is used when the form leaves the key empty (an edit does not send the key back).
 */
export const fetchModelsSchema = z.object({
  id: idInput('渠道').optional(),
  type: channelInputSchema.shape.type,
  key: channelInputSchema.shape.key,
  base_url: channelInputSchema.shape.base_url,
  other: channelInputSchema.shape.other,
  config: channelInputSchema.shape.config,
});
export type FetchModelsInput = z.input<typeof fetchModelsSchema>;

/** Statuses an admin may set (docs/console.md §4): 1 enabled, 2 manually disabled, 3 automatically disabled. */
const channelStatus = integerInput('status', { message: '无效的渠道状态' }).refine((s) => s === 1 || s === 2 || s === 3, '无效的渠道状态');

/** PUT /api/channel/ with only id plus status, priority and/or weight (the list's inline edits). */
export const channelPatchSchema = z.object({
  id: idInput('渠道'),
  status: channelStatus.optional(),
  priority,
  weight,
});
export const channelIdSchema = z.object({ id: idInput('渠道') });
export type ChannelPatch = z.output<typeof channelPatchSchema>;
/** PUT /api/channel/: an inline edit (ChannelPatch), or the id and the whole channel form. */
export type ChannelUpdate = ChannelPatch | (Partial<ChannelInput> & { id: number });

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
  /** Answers whose upstream usage report was wrong (用量异常) and billed at the request's bound or the gateway's count. */
  usage_anomalies: number;
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
