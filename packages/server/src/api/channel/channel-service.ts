import {
  AZURE_CHANNEL_TYPE,
  AZURE_DEFAULT_API_VERSION,
  ChannelLimits,
  ChannelMessages,
  ChannelStatus,
  PROXY_CHANNEL_TYPE,
  VERTEX_CHANNEL_TYPE,
  channelIdSchema,
  channelInputSchema,
  channelPatchSchema,
  channelKeys,
  keyFromConfig,
  parseJsonObject,
  splitList,
  vertexChannelProblem,
  type ChannelDto,
  type ChannelInput,
} from '@model-relay/contract';
import { fail } from '../../lib/errors.js';
import { nowSeconds, parseInput } from '../../lib/validate.js';
import type { ChannelChanges, ChannelsRepository, NewChannel } from '../../storage/repositories/channels.js';
import type { ChannelRow } from '../../storage/schema.js';

/** Config fields that are credentials (AWS secret key, Vertex AI credentials JSON): kept on the server like the key. */
const SECRET_CONFIG_FIELDS = ['sk', 'vertex_ai_adc'] as const;

/** The config as the API shows it: credential fields blanked. */
function redactConfig(text: string | null): string {
  const config = parseJsonObject(text);
  if (!config) return text ?? '';
  for (const field of SECRET_CONFIG_FIELDS) if (typeof config[field] === 'string' && config[field]) config[field] = '';
  return JSON.stringify(config);
}

/** An edit's config: a credential field left empty keeps the stored value (as an empty key keeps the key). */
function mergeConfig(stored: string | null, incoming: string): string {
  const next = parseJsonObject(incoming);
  const previous = parseJsonObject(stored);
  if (!next || !previous) return incoming;
  for (const field of SECRET_CONFIG_FIELDS) if (!next[field] && typeof previous[field] === 'string' && previous[field]) next[field] = previous[field];
  return JSON.stringify(next);
}

/**
 * A channel as the API shows it: the key and the credential fields of its config are never sent back
 * (docs/console.md §6: channel keys never leave the server).
 */
export function toChannelDto(row: ChannelRow): ChannelDto {
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    key: '',
    status: row.status,
    weight: Number(row.weight),
    priority: Number(row.priority),
    created_time: Number(row.created_time),
    test_time: Number(row.test_time),
    response_time: Number(row.response_time),
    test_error: row.test_error ?? '',
    usage_anomalies: Number(row.usage_anomalies ?? 0),
    base_url: row.base_url,
    other: row.other,
    balance: Number(row.balance),
    balance_updated_time: Number(row.balance_updated_time),
    models: row.models ?? '',
    group: row.group,
    used_quota: Number(row.used_quota),
    request_count: Number(row.request_count),
    model_mapping: row.model_mapping ?? '',
    config: redactConfig(row.config),
    system_prompt: row.system_prompt ?? '',
  };
}

/** Normalisation shared by create and full update (docs/console.md §5, "Channel submit"). */
function normalise(input: ChannelInput) {
  return {
    name: input.name,
    type: input.type,
    base_url: input.base_url.replace(/\/$/, ''),
    other: input.type === AZURE_CHANNEL_TYPE && !input.other ? AZURE_DEFAULT_API_VERSION : input.other,
    model_mapping: input.model_mapping.trim(),
    models: splitList(input.models).join(','),
    group: splitList(input.group).join(',') || 'default',
    config: input.config.trim(),
    system_prompt: input.system_prompt,
  };
}

/**
 * A Vertex AI channel is refused unless the relay could log in and call with it: its credentials (config first,
 * then the key) a service-account key file, its region and project valid (the provider's own rules, in the contract).
 */
function checkVertex(key: string, fields: { other: string; config: string }): void {
  const problem = vertexChannelProblem({ key, other: fields.other, config: parseJsonObject(fields.config) ?? {} });
  if (problem) fail(problem);
}

/** Channels (docs/console.md §7, "Channels"); admin only, enforced by the routes. */
export class ChannelService {
  constructor(private readonly channels: ChannelsRepository) {}

  async list(page: number): Promise<ChannelDto[]> {
    return (await this.channels.list(page)).map(toChannelDto);
  }

  async search(keyword: string): Promise<ChannelDto[]> {
    const trimmed = keyword.trim();
    if (!trimmed) return this.list(0);
    return (await this.channels.search(trimmed)).map(toChannelDto);
  }

  async get(id: number): Promise<ChannelDto> {
    return toChannelDto(await this.mustFind(id));
  }

  /** The full row, key included, for server-side use (tests, balance). */
  async row(id: number): Promise<ChannelRow> {
    return this.mustFind(id);
  }

  /** Creates one channel per non-empty key line (batch create), all or none. Returns how many. */
  async create(body: unknown): Promise<number> {
    const input = parseInput(channelInputSchema, body);
    const keys = channelKeys(input.type, input.key);
    if (!input.name || keys.length === 0) fail(ChannelMessages.nameAndKeyRequired);
    const fields = normalise(input);
    if (input.type !== PROXY_CHANNEL_TYPE && !fields.models) fail(ChannelMessages.modelRequired);
    if (input.type === AZURE_CHANNEL_TYPE && !fields.base_url) fail(ChannelMessages.azureEndpointRequired);
    if (input.type === VERTEX_CHANNEL_TYPE) for (const key of keys) checkVertex(key, fields);
    // Every key is a channel and every channel one index row per (group, model): bound what one request writes.
    const indexRows = keys.length * Math.max(1, splitList(fields.models).length) * splitList(fields.group).length;
    if (keys.length > ChannelLimits.batchKeys || indexRows > ChannelLimits.abilityRows) {
      fail(`一次最多添加 ${ChannelLimits.batchKeys} 个渠道，且密钥数 × 模型数 × 分组数不超过 ${ChannelLimits.abilityRows}`);
    }
    const now = nowSeconds();
    const rows: NewChannel[] = keys.map((key) => ({
      ...fields,
      key,
      status: ChannelStatus.Enabled,
      weight: Math.max(0, input.weight ?? 0),
      priority: input.priority ?? 0,
      created_time: now,
      test_time: 0,
      response_time: 0,
      balance: 0,
      balance_updated_time: 0,
      used_quota: 0,
      request_count: 0,
    }));
    await this.channels.insertMany(rows);
    return rows.length;
  }

  /**
   * PUT /api/channel/: id plus changed fields. A body with only status, priority or weight changes just those
   * (inline edits); anything else is a full update where an empty key keeps the stored one.
   */
  async update(body: unknown): Promise<ChannelDto> {
    const raw = (body ?? {}) as Record<string, unknown>;
    const { id } = parseInput(channelIdSchema, raw);
    const keys = typeof raw === 'object' && !Array.isArray(raw) ? Object.keys(raw).filter((k) => k !== 'id') : [];
    const partial = keys.every((k) => k === 'status' || k === 'priority' || k === 'weight');
    const patch = partial ? parseInput(channelPatchSchema, raw) : undefined;
    const input = partial ? undefined : parseInput(channelInputSchema, raw);
    const stored = await this.mustFind(id);
    const changes: ChannelChanges = {};
    if (patch) {
      if (patch.status !== undefined) changes.status = patch.status;
      if (patch.priority !== undefined) changes.priority = patch.priority;
      if (patch.weight !== undefined) changes.weight = Math.max(0, patch.weight);
    } else if (input) {
      const fields = normalise(input);
      if (!fields.name) fail(ChannelMessages.nameAndKeyRequired);
      if (input.type !== PROXY_CHANNEL_TYPE && !fields.models) fail(ChannelMessages.modelRequired);
      if (input.type === AZURE_CHANNEL_TYPE && !fields.base_url) fail(ChannelMessages.azureEndpointRequired);
      Object.assign(changes, fields);
      changes.config = mergeConfig(stored.config, fields.config);
      // An empty key keeps the stored one; for AWS and Vertex AI it is made again from the (merged) config,
      // so changing the region alone takes effect.
      const key = channelKeys(fields.type, input.key)[0] ?? keyFromConfig(fields.type, parseJsonObject(changes.config) ?? {});
      if (key) changes.key = key;
      // Checked as the relay will read it: the new key or the stored one, with the merged config.
      if (fields.type === VERTEX_CHANNEL_TYPE) checkVertex(changes.key ?? stored.key, { ...fields, config: changes.config });
      if (input.priority !== undefined) changes.priority = input.priority;
      if (input.weight !== undefined) changes.weight = Math.max(0, input.weight);
    }
    await this.channels.update(id, changes);
    return this.get(id);
  }

  async delete(id: number): Promise<void> {
    if (!(await this.channels.delete(id))) fail('渠道不存在');
  }

  deleteDisabled(): Promise<number> {
    return this.channels.deleteDisabled();
  }

  private async mustFind(id: number): Promise<ChannelRow> {
    const row = await this.channels.find(id);
    if (!row) return fail('渠道不存在');
    return row;
  }
}
