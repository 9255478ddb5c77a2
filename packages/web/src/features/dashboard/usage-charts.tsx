import type { DashboardReport, QuotaDisplay } from '@model-relay/contract';
import { Card, Empty, Segmented } from 'antd';
import { useMemo, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Cell, Legend, Line, LineChart, Pie, PieChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { abbreviate, renderQuota } from '../../lib/format';
import { chartModels, modelShares, trendRows } from './chart-data';

/** Series colours (antd's palette), in the order models are drawn. */
export const COLORS = ['#1677ff', '#52c41a', '#faad14', '#eb2f96', '#13c2c2', '#722ed1', '#fa541c', '#2f54eb', '#a0d911'];
const HEIGHT = 280;

/** Axis ticks of amounts: short dollars, or abbreviated quota units. */
export function axisAmount(value: number, display: QuotaDisplay): string {
  if (!display.displayInCurrency) return abbreviate(Math.round(value));
  if (value >= 1000) return `$${(value / 1000).toFixed(1)}k`;
  return `$${Number(value.toPrecision(3))}`;
}
/** A chart amount back in quota units, for the one money display rule in tooltips. */
const toQuota = (value: number, display: QuotaDisplay) => (display.displayInCurrency ? Math.round(value * display.quotaPerUnit) : value);

type Metric = '消费' | '请求' | 'Tokens';

/** Spending (stacked by model), requests and failures, or tokens over the range's buckets. */
export function TrendChart({ report, display }: { report: DashboardReport; display: QuotaDisplay }) {
  const [metric, setMetric] = useState<Metric>('消费');
  const rows = useMemo(() => trendRows(report, display), [report, display]);
  const models = useMemo(() => chartModels(report), [report]);
  const money = (value: unknown) => renderQuota(toQuota(Number(value), display));
  return (
    <Card size="small" title="用量趋势" extra={<Segmented<Metric> size="small" options={['消费', '请求', 'Tokens']} value={metric} onChange={setMetric} />} style={{ marginBottom: 16 }}>
      <div aria-label={`用量趋势：${metric}`} style={{ width: '100%', height: HEIGHT }}>
        {report.totals.requests + report.totals.failures === 0 ? (
          // Nothing in the range: say so instead of drawing empty axes.
          <Empty style={{ paddingTop: 72 }} description="所选范围内还没有请求：用令牌调用模型，或在操练场试一试" />
        ) : (
          <ResponsiveContainer width="100%" height="100%">
            {metric === '消费' ? (
              <BarChart data={rows} margin={{ top: 8, right: 8, left: 0, bottom: 0 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="label" tick={{ fontSize: 12 }} minTickGap={12} />
                <YAxis tick={{ fontSize: 12 }} width={64} tickFormatter={(v: number) => axisAmount(v, display)} />
                <Tooltip formatter={money} />
                <Legend wrapperStyle={{ fontSize: 12 }} />
                {models.map((model, i) => (
                  <Bar key={model} dataKey={model} stackId="spent" fill={COLORS[i % COLORS.length]} isAnimationActive={false} />
                ))}
              </BarChart>
            ) : metric === '请求' ? (
              <LineChart data={rows} margin={{ top: 8, right: 8, left: 0, bottom: 0 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="label" tick={{ fontSize: 12 }} minTickGap={12} />
                <YAxis tick={{ fontSize: 12 }} width={48} allowDecimals={false} />
                <Tooltip />
                <Legend wrapperStyle={{ fontSize: 12 }} />
                <Line type="monotone" dataKey="请求数" stroke={COLORS[0]} dot={false} isAnimationActive={false} />
                <Line type="monotone" dataKey="失败数" stroke="#ff4d4f" dot={false} isAnimationActive={false} />
              </LineChart>
            ) : (
              <BarChart data={rows} margin={{ top: 8, right: 8, left: 0, bottom: 0 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="label" tick={{ fontSize: 12 }} minTickGap={12} />
                <YAxis tick={{ fontSize: 12 }} width={56} tickFormatter={(v: number) => abbreviate(v)} />
                <Tooltip formatter={(v) => Number(v).toLocaleString('en-US')} />
                <Bar dataKey="tokens" name="Tokens" fill={COLORS[1]} isAnimationActive={false} />
              </BarChart>
            )}
          </ResponsiveContainer>
        )}
      </div>
    </Card>
  );
}

/** Spending by model as a pie: the biggest models and 其他. */
export function ModelPie({ report, display }: { report: DashboardReport; display: QuotaDisplay }) {
  const shares = useMemo(() => modelShares(report.models, display), [report.models, display]);
  return (
    <Card size="small" title="模型消费占比" style={{ marginBottom: 16, height: 'calc(100% - 16px)' }}>
      {shares.length === 0 ? (
        <Empty description="所选范围内没有消费" />
      ) : (
        <div aria-label="模型消费占比" style={{ width: '100%', height: HEIGHT }}>
          <ResponsiveContainer width="100%" height="100%">
            <PieChart>
              <Pie data={shares} dataKey="value" nameKey="name" innerRadius="45%" outerRadius="75%" isAnimationActive={false}>
                {shares.map((s, i) => (
                  <Cell key={s.name} fill={COLORS[i % COLORS.length]} />
                ))}
              </Pie>
              <Tooltip formatter={(_value, _name, item) => renderQuota((item.payload as { quota: number }).quota)} />
              <Legend wrapperStyle={{ fontSize: 12 }} />
            </PieChart>
          </ResponsiveContainer>
        </div>
      )}
    </Card>
  );
}

/** The top users or channels by spending, as horizontal bars. */
export function RankingBars({ rows, display, label }: { rows: Array<{ name: string; quota: number }>; display: QuotaDisplay; label: string }) {
  const data = rows.map((r) => ({ name: r.name, 消费: display.displayInCurrency ? r.quota / display.quotaPerUnit : r.quota, quota: r.quota }));
  if (data.length === 0) return <Empty description="所选范围内没有数据" />;
  return (
    <div aria-label={label} style={{ width: '100%', height: Math.max(160, data.length * 28 + 40) }}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 16, left: 8, bottom: 4 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" tick={{ fontSize: 12 }} tickFormatter={(v: number) => axisAmount(v, display)} />
          <YAxis type="category" dataKey="name" tick={{ fontSize: 12 }} width={96} />
          <Tooltip formatter={(_value, _name, item) => renderQuota((item.payload as { quota: number }).quota)} />
          <Bar dataKey="消费" fill={COLORS[0]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
