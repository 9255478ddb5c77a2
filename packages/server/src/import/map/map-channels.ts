import { AZURE_CHANNEL_TYPE, AZURE_DEFAULT_API_VERSION, ChannelStatus, isJsonObjectText, parseJsonObject, splitList } from '@model-relay/contract';
import { adapterFor } from '../../relay/providers/registry.js';
import type { NewChannel } from '../../storage/repositories/channels.js';
import type { ImportReport } from '../report/import-report.js';
import type { Product } from '../source/detect-product.js';
import type { SourceRow } from '../source/open-source.js';
import { mapChannelType } from './channel-types.js';
import { bool, fit, int, jsonOf, num, rowName, str } from './values.js';

export type ChannelValues = NewChannel & { test_error: string };

/** One of our channels made from a source channel (a new-api multi-key channel gives one per key). */
export interface MappedChannel {
  sourceId: number;
  /** 0 for the source's own row, 1.. for the further keys of a multi-key channel. */
  part: number;
  label: string;
  values: ChannelValues;
}

const CUSTOM = 8;
const VERTEX = 42;
const AWS = 33;
/** new-api channel columns with no equivalent here. */
const UNMAPPED_CHANNEL_FIELDS = ['status_code_mapping', 'param_override', 'header_override', 'setting', 'settings', 'tag', 'remark', 'test_model', 'openai_organization', 'other_info'];

/** The keys of a new-api channel: a JSON array (Vertex service accounts) or one per line. */
function splitKeys(key: string): string[] {
  const text = key.trim();
  if (text.startsWith('[')) {
    const parsed = jsonOf(text);
    if (Array.isArray(parsed)) return parsed.map((k) => (typeof k === 'string' ? k : JSON.stringify(k))).filter(Boolean);
  }
  return text.split('\n').map((k) => k.trim()).filter(Boolean);
}

/** A JSON value as a one-line string (our Vertex key holds the credentials JSON on one line). */
const oneLineJson = (text: string) => {
  const parsed = jsonOf(text);
  return parsed && typeof parsed === 'object' ? JSON.stringify(parsed) : text.replace(/\s*\r?\n\s*/g, ' ');
};

export function mapChannel(product: Product, row: SourceRow, report: ImportReport): MappedChannel[] {
  const label = rowName(row, row.name);
  const sourceType = int(row.type);
  const mapping = mapChannelType(product, sourceType);
  const disabledBecause: string[] = [];
  const type = mapping.type ?? CUSTOM;
  if (mapping.type === undefined) disabledBecause.push(`源渠道类型 ${sourceType}（${mapping.name}）在本网关没有对应类型，以"自定义渠道"类型禁用导入，请改成合适的类型后再启用`);
  else if (!adapterFor(type)) disabledBecause.push(`本网关暂不能转发此渠道类型（${mapping.name}）`);

  for (const field of UNMAPPED_CHANNEL_FIELDS) {
    const value = str(row[field]).trim();
    if (value && value !== '{}' && value !== '[]') report.noEquivalent('channels', field, label);
  }
  if (row.auto_ban !== undefined && row.auto_ban !== null && int(row.auto_ban, 1) === 0) report.noEquivalent('channels', 'auto_ban=0（不自动禁用）', label);

  let baseUrl = str(row.base_url).trim().replace(/\/+$/, '');
  if (!baseUrl && mapping.baseUrl) baseUrl = mapping.baseUrl;
  if (baseUrl && mapping.pathSuffix && !baseUrl.endsWith(mapping.pathSuffix)) baseUrl += mapping.pathSuffix;
  if (type === CUSTOM && !baseUrl && mapping.type !== undefined) disabledBecause.push('OpenAI 兼容渠道缺少 Base URL');
  let [other] = fit(str(row.other).trim(), 512);
  let config = str(row.config).trim();
  if (config && !isJsonObjectText(config)) {
    report.change('channels', label, 'config 不是合法的 JSON 对象，已丢弃');
    config = '';
  }
  const configObject = parseJsonObject(config) ?? {};

  let mappingText = str(row.model_mapping).trim();
  if (mappingText && !isJsonObjectText(mappingText, 'string')) {
    disabledBecause.push('模型重定向不是"模型名 → 模型名"的 JSON，无法照搬');
    mappingText = '';
  }
  if (type === AZURE_CHANNEL_TYPE && !other) other = AZURE_DEFAULT_API_VERSION;

  let keys = product === 'new-api' && bool((jsonOf(row.channel_info) as Record<string, unknown> | undefined)?.is_multi_key) ? splitKeys(str(row.key)) : [str(row.key).trim()];
  const info = jsonOf(row.channel_info) as { multi_key_status_list?: Record<string, unknown> } | undefined;

  if (product === 'new-api' && type === VERTEX) {
    // new-api keeps the service-account JSON as the key and the region in `other` (a plain region or a JSON map of
    // model -> region with a "default"); ours is region|project|credentials with the parts in config.
    const regions = parseJsonObject(other);
    const region = regions ? str(regions.default) || 'global' : other || 'global';
    if (regions && Object.keys(regions).some((k) => k !== 'default')) report.noEquivalent('channels', 'Vertex 按模型区分的区域（已使用 default 区域）', label);
    keys = keys.map((key) => {
      const credentials = oneLineJson(key);
      const project = str((jsonOf(credentials) as Record<string, unknown> | undefined)?.project_id);
      return `${region}|${project}|${credentials}`;
    });
    const [region0, project0, credentials0] = splitVertex(keys[0] ?? '||');
    Object.assign(configObject, { region: region0, vertex_ai_project_id: project0, vertex_ai_adc: credentials0 });
    other = '';
  }
  if (type === AWS && keys[0] && !configObject.ak) {
    const [ak = '', sk = '', region = ''] = keys[0].split('|').map((p) => p.trim());
    if (ak && sk && region) Object.assign(configObject, { ak, sk, region });
  }
  if (type === VERTEX && product === 'one-api') keys = keys.map(oneLineJson);
  config = Object.keys(configObject).length > 0 ? JSON.stringify(configObject) : config;
  if (keys.length === 0 || !keys[0]) {
    keys = [''];
    disabledBecause.push('渠道没有密钥');
  }

  const sourceStatus = int(row.status, ChannelStatus.Enabled);
  const [name] = fit(str(row.name).trim() || `渠道 ${str(row.id)}`, 128);
  const groups = splitList(str(row.group) || 'default');
  const [group, groupCut] = fit(groups.join(','), 255);
  if (groupCut) report.change('channels', label, '分组列表超过 255 个字符，已截断');
  const models = splitList(str(row.models)).join(',');
  const perKeyStatus = info?.multi_key_status_list ?? {};
  if (keys.length > 1) report.change('channels', label, `多密钥渠道（${keys.length} 个密钥）拆分为 ${keys.length} 个渠道`);

  return keys.map((key, part) => {
    let status = [1, 2, 3].includes(sourceStatus) ? sourceStatus : ChannelStatus.ManuallyDisabled;
    const keyStatus = int(perKeyStatus[String(part)], ChannelStatus.Enabled);
    if (status === ChannelStatus.Enabled && keyStatus !== ChannelStatus.Enabled) status = keyStatus === 3 ? ChannelStatus.AutoDisabled : ChannelStatus.ManuallyDisabled;
    const partLabel = keys.length > 1 ? `${label}（密钥 ${part + 1}）` : label;
    if (disabledBecause.length > 0 && status === ChannelStatus.Enabled) {
      status = ChannelStatus.ManuallyDisabled;
      report.disable('channels', partLabel, disabledBecause.join('；'));
    } else if (disabledBecause.length > 0) {
      report.change('channels', partLabel, disabledBecause.join('；'));
    }
    return {
      sourceId: int(row.id),
      part,
      label: partLabel,
      values: {
        type,
        key,
        status,
        name: keys.length > 1 ? fit(`${name} #${part + 1}`, 128)[0] : name,
        weight: Math.max(0, Math.min(2147483647, int(row.weight))),
        created_time: int(row.created_time),
        test_time: int(row.test_time),
        response_time: int(row.response_time),
        test_error: disabledBecause.join('；').slice(0, 1000),
        base_url: fit(baseUrl, 512)[0],
        other,
        balance: num(row.balance),
        balance_updated_time: int(row.balance_updated_time),
        models,
        group: group || 'default',
        used_quota: part === 0 ? int(row.used_quota) : 0,
        request_count: 0,
        model_mapping: mappingText,
        priority: int(row.priority),
        config,
        system_prompt: str(row.system_prompt),
      },
    };
  });
}

/** region|project|credentials, the credentials JSON possibly holding "|". */
function splitVertex(key: string): [string, string, string] {
  const first = key.indexOf('|');
  const second = key.indexOf('|', first + 1);
  return [key.slice(0, first), key.slice(first + 1, second), key.slice(second + 1)];
}
