import { parseGroupLimits } from '@model-relay/contract';
import { Typography } from 'antd';
import { useMemo } from 'react';
import { OptionSection } from './option-section';
import { ratioForEditing } from './ratio-json';
import type { OptionMap } from './use-options';

export const GROUP_LIMITS_INVALID = '分组限额不是合法的 JSON：每个分组的 rpm、tpm、daily、monthly 必须是非负整数';

/**
 * 分组限额 (运营设置): the GroupLimits option, the limits a user of a group gets where their own are 0, edited as
 * JSON like the ratios and checked with the contract's parseGroupLimits before it is sent.
 */
export function GroupLimitsSection({ options, saveMany }: { options: OptionMap; saveMany: (entries: Array<[string, string]>) => Promise<boolean> }) {
  const shown = useMemo(() => ({ ...options, GroupLimits: ratioForEditing(options.GroupLimits) }), [options]);
  return (
    <OptionSection
      title="分组限额"
      options={shown}
      saveMany={saveMany}
      fields={[
        {
          key: 'GroupLimits',
          label: '分组默认限额',
          kind: 'textarea',
          placeholder: '{"default": {"rpm": 60, "tpm": 100000, "daily": 500000, "monthly": 10000000}}',
          check: (value) => (parseGroupLimits(value) ? undefined : GROUP_LIMITS_INVALID),
          normalise: (value) => (value.trim() === '' ? '{}' : value),
        },
      ]}
      extra={
        <Typography.Paragraph type="secondary" style={{ marginTop: -8 }}>
          键为分组名称；rpm 为每分钟请求数，tpm 为每分钟 tokens 数，daily / monthly 为每日 / 每月额度（与其他额度同一单位）；0 或不填表示不限制。用户或令牌自己设置了限额时以其自身为准。
        </Typography.Paragraph>
      }
    />
  );
}
