import { RedemptionStatus } from '@model-relay/contract';
import type { RedemptionRow } from '../../storage/schema.js';
import type { ImportReport } from '../report/import-report.js';
import type { Product } from '../source/detect-product.js';
import type { SourceRow } from '../source/open-source.js';
import { fit, int, isSet, rowName, str } from './values.js';

export type RedemptionValues = Omit<RedemptionRow, 'id'>;

export interface MappedRedemption {
  sourceId: number;
  label: string;
  values: RedemptionValues;
}

/** A code keeps its key, quota and status; an expiry (new-api) we cannot enforce disables an unused code. */
export function mapRedemption(product: Product, row: SourceRow, report: ImportReport): MappedRedemption | undefined {
  const label = rowName(row, row.name);
  if (product === 'new-api' && isSet(row.deleted_at)) {
    report.skip('redemptions', label, '源数据库中已删除');
    return undefined;
  }
  const key = str(row.key).trim();
  if (!key || key.length > 64) {
    report.skip('redemptions', label, key ? '兑换码超过 64 个字符' : '兑换码为空');
    return undefined;
  }
  let status = int(row.status, RedemptionStatus.Unused);
  if (![1, 2, 3].includes(status)) status = RedemptionStatus.Disabled;
  const expires = int(row.expired_time);
  if (expires > 0 && status === RedemptionStatus.Unused) {
    status = RedemptionStatus.Disabled;
    report.disable('redemptions', label, `有过期时间（${new Date(expires * 1000).toISOString().slice(0, 10)}），本网关的兑换码不会过期：以禁用状态导入`);
  }
  return {
    sourceId: int(row.id),
    label,
    values: {
      user_id: int(row.user_id),
      key,
      status,
      name: fit(str(row.name), 64)[0],
      quota: int(row.quota),
      created_time: int(row.created_time),
      redeemed_time: int(row.redeemed_time),
      used_user_id: int(row.used_user_id),
    },
  };
}
