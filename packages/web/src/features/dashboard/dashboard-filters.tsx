import { DASHBOARD_MAX_DAYS, DASHBOARD_MAX_HOUR_DAYS, type DashboardGranularity, type TokenDto } from '@model-relay/contract';
import { DownloadOutlined } from '@ant-design/icons';
import { Button, DatePicker, Form, Grid, Input, InputNumber, Segmented, Select } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { rangeDays, type DashboardFilters } from './chart-data';

const now = () => dayjs();
const PRESETS: Array<{ label: string; value: () => [Dayjs, Dayjs] }> = [
  { label: '今天', value: () => [now().startOf('day'), now().endOf('day')] },
  { label: '最近 7 天', value: () => [now().subtract(6, 'day').startOf('day'), now().endOf('day')] },
  { label: '最近 30 天', value: () => [now().subtract(29, 'day').startOf('day'), now().endOf('day')] },
  { label: '本月', value: () => [now().startOf('month'), now().endOf('day')] },
  { label: '上月', value: () => [now().subtract(1, 'month').startOf('month'), now().subtract(1, 'month').endOf('month')] },
];

/**
 * The report's filters: date range, hour or day buckets, model and key; in the everyone view (admins) also a
 * user and a channel. Applied with 查询; 导出 CSV saves the applied range.
 */
export function DashboardFiltersForm({
  draft,
  onChange,
  onApply,
  onExport,
  exporting,
  everyone,
  models,
  tokens,
}: {
  draft: DashboardFilters;
  onChange: (next: DashboardFilters) => void;
  onApply: () => void;
  onExport: () => void;
  exporting: boolean;
  everyone: boolean;
  models: string[];
  tokens: TokenDto[];
}) {
  // On a phone the two dates take the whole width: inline, they would run past the card's edge.
  const narrow = !Grid.useBreakpoint().sm;
  const set = <K extends keyof DashboardFilters>(key: K, value: DashboardFilters[K]) => onChange({ ...draft, [key]: value });
  const hourAllowed = rangeDays(draft.range) <= DASHBOARD_MAX_HOUR_DAYS;
  const setRange = (range: [Dayjs, Dayjs]) => onChange({ ...draft, range, granularity: rangeDays(range) <= DASHBOARD_MAX_HOUR_DAYS ? draft.granularity : 'day' });
  return (
    <Form layout="inline" style={{ marginBottom: 16, rowGap: 8 }} onFinish={onApply}>
      <Form.Item label="时间范围" style={narrow ? { width: '100%' } : undefined}>
        <DatePicker.RangePicker
          aria-label="时间范围"
          style={narrow ? { width: '100%' } : undefined}
          value={draft.range}
          presets={PRESETS}
          allowClear={false}
          disabledDate={(day, info) => Boolean(info.from && Math.abs(day.diff(info.from, 'day')) >= DASHBOARD_MAX_DAYS)}
          onChange={(value) => value?.[0] && value[1] && setRange([value[0], value[1]])}
        />
      </Form.Item>
      <Form.Item label="统计粒度">
        <Segmented<DashboardGranularity>
          aria-label="统计粒度"
          value={draft.granularity}
          options={[
            { label: '按天', value: 'day' },
            { label: '按小时', value: 'hour', disabled: !hourAllowed },
          ]}
          onChange={(value) => set('granularity', value)}
        />
      </Form.Item>
      <Form.Item label="模型">
        <Select aria-label="模型" style={{ minWidth: 180 }} allowClear showSearch placeholder="全部模型" value={draft.model || undefined} options={models.map((m) => ({ value: m, label: m }))} onChange={(value) => set('model', value ?? '')} />
      </Form.Item>
      {everyone ? (
        <>
          <Form.Item label="用户名">
            <Input aria-label="用户名" placeholder="全部用户" allowClear value={draft.username} onChange={(e) => set('username', e.target.value)} style={{ width: 140 }} />
          </Form.Item>
          <Form.Item label="令牌 ID">
            <InputNumber aria-label="令牌 ID" min={0} precision={0} placeholder="全部" value={draft.tokenId || null} onChange={(v) => set('tokenId', Number(v ?? 0))} style={{ width: 100 }} />
          </Form.Item>
          <Form.Item label="渠道 ID">
            <InputNumber aria-label="渠道 ID" min={0} precision={0} placeholder="全部" value={draft.channelId || null} onChange={(v) => set('channelId', Number(v ?? 0))} style={{ width: 100 }} />
          </Form.Item>
        </>
      ) : (
        <Form.Item label="令牌">
          <Select aria-label="令牌" style={{ minWidth: 160 }} allowClear showSearch optionFilterProp="label" placeholder="全部令牌" value={draft.tokenId || undefined} options={tokens.map((t) => ({ value: t.id, label: t.name }))} onChange={(value) => set('tokenId', value ?? 0)} />
        </Form.Item>
      )}
      <Form.Item>
        <Button type="primary" htmlType="submit">
          查询
        </Button>
      </Form.Item>
      <Form.Item>
        <Button icon={<DownloadOutlined />} loading={exporting} onClick={onExport}>
          导出 CSV
        </Button>
      </Form.Item>
    </Form>
  );
}
