import { RATIO_OPTION_KEYS, type RatioOptionKey } from '@model-relay/contract';
import { Button, DatePicker, Popconfirm, Space } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useMemo, useState } from 'react';
import { useDeleteLogs } from '../../api/logs/delete-logs';
import { toast } from '../../lib/toast';
import { GroupLimitsSection } from './group-limits-section';
import { RoutingSection } from './routing-section';
import { OptionSection } from './option-section';
import { ratioForEditing, ratioProblem } from './ratio-json';
import { useOptions } from './use-options';

/** 运营设置: general, log, monitoring, quota and ratio sections (docs/console.md §2). */
export default function OperationSettings() {
  const { options, loaded, saveMany } = useOptions();
  const [clearBefore, setClearBefore] = useState<Dayjs>(() => dayjs().subtract(30, 'day'));
  const deleteLogs = useDeleteLogs();
  // Ratios are edited pretty-printed, '{}' shown as empty.
  const ratioOptions = useMemo(() => ({ ...options, ...Object.fromEntries(RATIO_OPTION_KEYS.map((key) => [key, ratioForEditing(options[key])])) }), [options]);
  if (!loaded) return null;

  const clearLogs = async () => {
    try {
      const res = await deleteLogs.mutateAsync(clearBefore.unix());
      if (res.success) toast.success(`${res.data ?? 0} 条日志已清理！`);
      else toast.error(`日志清理失败：${res.message}`);
    } catch {
      /* shown by the request client */
    }
  };

  const ratio = (key: RatioOptionKey, label: string, placeholder = '为一个 JSON 文本，键为模型名称（分组名称），值为倍率') => ({
    key,
    label,
    kind: 'textarea' as const,
    placeholder,
    check: (value: string) => ratioProblem(key, value),
    normalise: (value: string) => (value.trim() === '' ? '{}' : value),
  });

  return (
    <>
      <OptionSection
        title="通用设置"
        options={options}
        saveMany={saveMany}
        fields={[
          { key: 'TopUpLink', label: '充值链接', placeholder: '例如发卡网站的购买链接' },
          { key: 'ChatLink', label: '聊天页面链接', placeholder: '例如 ChatGPT Next Web 的部署地址' },
          { key: 'QuotaPerUnit', label: '单位美元额度', kind: 'decimal' },
          { key: 'RetryTimes', label: '失败重试次数', kind: 'integer' },
          // The display switches of the general section (docs/console.md §2 and §3), consumption logging included.
          { key: 'LogConsumeEnabled', label: '启用额度消费日志记录', kind: 'switch' },
          { key: 'DisplayInCurrencyEnabled', label: '以货币形式显示额度', kind: 'switch' },
          { key: 'DisplayTokenStatEnabled', label: 'Billing 相关 API 显示令牌额度而非用户额度', kind: 'switch' },
          { key: 'ApproximateTokenEnabled', label: '使用近似的方式估算 token 数以减少计算量', kind: 'switch' },
          { key: 'PricingPageEnabled', label: '向未登录的访客公开定价页面（/pricing 与 /api/pricing）', kind: 'switch' },
        ]}
      />
      <OptionSection
        title="日志设置"
        options={options}
        saveMany={saveMany}
        fields={[]}
        extra={
          <Space wrap>
            <span>清除此时间之前的历史日志：</span>
            <DatePicker showTime value={clearBefore} onChange={(value) => value && setClearBefore(value)} aria-label="日志清理时间" />
            {/* Destructive and irreversible: asks first, naming the date. */}
            <Popconfirm
              title={`确定清除 ${clearBefore.format('YYYY-MM-DD HH:mm:ss')} 之前的所有日志？此操作不可恢复。`}
              okText="清除"
              okButtonProps={{ danger: true }}
              cancelText="取消"
              onConfirm={() => void clearLogs()}
            >
              <Button danger loading={deleteLogs.isPending}>
                清除历史日志
              </Button>
            </Popconfirm>
          </Space>
        }
      />
      <OptionSection
        title="监控设置"
        options={options}
        saveMany={saveMany}
        fields={[
          { key: 'ChannelDisableThreshold', label: '最长响应时间（秒）', kind: 'number' },
          { key: 'QuotaRemindThreshold', label: '额度提醒阈值', kind: 'integer' },
          { key: 'AutomaticDisableChannelEnabled', label: '失败时自动禁用通道', kind: 'switch' },
          { key: 'AutomaticEnableChannelEnabled', label: '成功时自动启用通道', kind: 'switch' },
        ]}
      />
      <OptionSection
        title="额度设置"
        options={options}
        saveMany={saveMany}
        fields={[
          { key: 'QuotaForNewUser', label: '新用户初始额度', kind: 'integer', span: 6 },
          { key: 'PreConsumedQuota', label: '请求预扣费额度', kind: 'integer', span: 6 },
          { key: 'QuotaForInviter', label: '邀请新用户奖励额度', kind: 'integer', span: 6 },
          { key: 'QuotaForInvitee', label: '新用户使用邀请码奖励额度', kind: 'integer', span: 6 },
        ]}
      />
      <OptionSection
        title="倍率设置"
        options={ratioOptions}
        saveMany={saveMany}
        fields={[ratio('ModelRatio', '模型倍率'), ratio('CompletionRatio', '补全倍率'), ratio('GroupRatio', '分组倍率')]}
      />
      {/* The prices a model's answer may have beyond its input and output tokens (docs/ledger.md, units and prices):
          a model missing from a map is priced as its family is in the built-in catalogue. */}
      <OptionSection
        title="更多价格设置"
        options={ratioOptions}
        saveMany={saveMany}
        fields={[
          ratio('CacheReadRatio', '缓存读取倍率', '为一个 JSON 文本，键为模型名称，值为缓存读取价格相对输入价格的倍率，例如 {"gpt-4o": 0.5}'),
          ratio('CacheWriteRatio', '缓存写入倍率', '为一个 JSON 文本，键为模型名称，值为缓存写入（5 分钟）价格相对输入价格的倍率'),
          ratio('CacheWrite1hRatio', '1 小时缓存写入倍率', '为一个 JSON 文本，键为模型名称，值为较长保留期缓存写入（Anthropic 的 1 小时、OpenAI 的 12 小时）价格相对输入价格的倍率'),
          ratio('ReasoningRatio', '推理倍率', '为一个 JSON 文本，键为模型名称，值为推理 token 价格相对输入价格的倍率（未设置时按补全倍率）'),
          ratio('AudioRatio', '音频输入倍率', '为一个 JSON 文本，键为模型名称，值为音频输入价格相对文本输入价格的倍率'),
          ratio('AudioCompletionRatio', '音频输出倍率', '为一个 JSON 文本，键为模型名称，值为音频输出价格相对音频输入价格的倍率'),
          ratio('ImageRatio', '图片输入倍率', '为一个 JSON 文本，键为模型名称，值为图片输入 token 价格相对文本输入价格的倍率，例如 {"gpt-image-1": 2}'),
          ratio('ImageCompletionRatio', '图片输出倍率', '为一个 JSON 文本，键为模型名称，值为模型回答中生成图片的输出价格相对输入价格的倍率，例如 {"gemini-2.5-flash-image": 100}'),
          ratio('WebSearchPrice', '联网搜索价格', '为一个 JSON 文本，键为模型名称，值为每 1000 次联网搜索的美元价格，例如 {"claude-sonnet-4-5": 10}'),
          ratio('FastModeRatio', '快速模式倍率', '为一个 JSON 文本，键为模型名称，值为上游以快速模式（OpenAI 的 service_tier priority/fast、Anthropic 的 speed fast）处理时全部 token 价格相对标准价格的倍率，例如 {"claude-opus-4-6": 6}'),
          ratio('ToolCallPrice', '托管工具价格', '为一个 JSON 文本，键为工具计价项（file_search、code_interpreter、image_generation:high:1024x1024 等），值为每 1000 次调用的美元价格；留空按 OpenAI 官方价格'),
        ]}
      />
      <GroupLimitsSection options={options} saveMany={saveMany} />
      <RoutingSection options={options} saveMany={saveMany} />
    </>
  );
}
