import { TOKEN_SUBNET_MAX, TokenStatus, isValidSubnetList, splitList } from '@model-relay/contract';
import type { TokenRow } from '../../storage/schema.js';
import type { ImportReport } from '../report/import-report.js';
import type { Product } from '../source/detect-product.js';
import type { SourceRow } from '../source/open-source.js';
import { bool, fit, int, isSet, rowName, str } from './values.js';

export type TokenValues = Omit<TokenRow, 'id' | 'rpm_limit' | 'tpm_limit' | 'daily_quota_limit' | 'monthly_quota_limit'>;

/** A source key in our columns; `user_id` is still the source's id. Undefined: not imported (reported). */
export interface MappedToken {
  sourceId: number;
  label: string;
  values: TokenValues;
}

const UNMAPPED_TOKEN_FIELDS = ['cross_group_retry', 'billing_type'];

/**
 * A key keeps its string (without the sk- some versions store), its status and quotas. A restriction we cannot
 * express exactly (an unreadable IP list, "no model allowed", a key-level group other than its owner's) disables the
 * key rather than opening it wider than it was.
 */
export function mapToken(product: Product, row: SourceRow, ownerGroup: string | undefined, report: ImportReport): MappedToken | undefined {
  const label = rowName(row, row.name);
  if (product === 'new-api' && isSet(row.deleted_at)) {
    report.skip('tokens', label, '源数据库中已删除');
    return undefined;
  }
  const key = str(row.key).trim().replace(/^sk-/, '');
  // "-" is fine: the relay looks a key up whole before it reads a trailing -<channel id> as a pin.
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(key)) {
    report.skip('tokens', label, key.length > 64 ? '密钥超过 64 个字符，本网关无法保存' : '密钥含有本网关不能识别的字符，客户端无法用它调用');
    return undefined;
  }
  const reasons: string[] = [];
  let models = '';
  if (product === 'one-api') {
    models = splitList(str(row.models)).join(',');
  } else if (bool(row.model_limits_enabled)) {
    models = splitList(str(row.model_limits)).join(',');
    if (!models) reasons.push('限制为"不允许任何模型"，本网关的空模型列表表示不限，无法照搬');
  }
  let subnet = product === 'one-api' ? str(row.subnet) : str(row.allow_ips);
  subnet = subnet.split(/[\s,]+/).filter(Boolean).join(',');
  if (subnet && (subnet.length > TOKEN_SUBNET_MAX || !isValidSubnetList(subnet))) {
    reasons.push(`IP 限制无法识别（${subnet.slice(0, 60)}）`);
    subnet = '';
  }
  const group = str(row.group).trim();
  if (product === 'new-api' && group && group !== ownerGroup) reasons.push(`令牌分组 "${group}" 与用户分组不同，本网关的令牌没有单独的分组`);
  for (const field of UNMAPPED_TOKEN_FIELDS) if (isSet(row[field]) && bool(row[field]) !== false) report.noEquivalent('tokens', field, label);
  let status = int(row.status, TokenStatus.Enabled);
  if (![1, 2, 3, 4].includes(status)) status = TokenStatus.Disabled;
  if (reasons.length > 0 && status === TokenStatus.Enabled) {
    status = TokenStatus.Disabled;
    report.disable('tokens', label, `${reasons.join('；')}：为不扩大权限，以禁用状态导入`);
  } else if (reasons.length > 0) {
    report.change('tokens', label, reasons.join('；'));
  }
  const [name, cut] = fit(str(row.name), 64);
  if (cut) report.change('tokens', label, '名称超过 64 个字符，已截断');
  return {
    sourceId: int(row.id),
    label,
    values: {
      user_id: int(row.user_id),
      key,
      status,
      name,
      created_time: int(row.created_time),
      accessed_time: int(row.accessed_time),
      expired_time: int(row.expired_time, -1) <= 0 ? -1 : int(row.expired_time),
      remain_quota: int(row.remain_quota),
      unlimited_quota: bool(row.unlimited_quota) ? 1 : 0,
      used_quota: int(row.used_quota),
      request_count: int(row.request_count),
      models,
      subnet,
    },
  };
}
