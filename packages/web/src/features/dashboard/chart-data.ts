import { DASHBOARD_CHART_MODELS, type DashboardGranularity, type DashboardReport, type ModelUsage, type QuotaDisplay, type UsageTotals } from '@model-relay/contract';
import dayjs, { type Dayjs } from 'dayjs';

/** The label of the rest when only the biggest models are drawn. */
export const OTHERS = '其他';

/** What the screen asks the report for. */
export interface DashboardFilters {
  range: [Dayjs, Dayjs];
  granularity: DashboardGranularity;
  model: string;
  /** a key id (0: every key) */
  tokenId: number;
  /** admins, everyone's view: a username and a channel id ('' / 0: all) */
  username: string;
  channelId: number;
}

/** The last 7 days, today included, by day. */
export function defaultDashboardFilters(now: Dayjs = dayjs()): DashboardFilters {
  return { range: [now.subtract(6, 'day').startOf('day'), now.endOf('day')], granularity: 'day', model: '', tokenId: 0, username: '', channelId: 0 };
}

/** The viewer's offset from UTC in minutes: day buckets and "today" start at their own midnight. */
export const viewerOffset = (now: Dayjs = dayjs()) => now.utcOffset();

/** The query string of the report and export calls: whole days of the picked range, in the viewer's zone. */
export function dashboardQuery(filters: DashboardFilters, everyone: boolean, tz = viewerOffset()): string {
  const params = new URLSearchParams();
  params.set('start', String(filters.range[0].startOf('day').unix()));
  params.set('end', String(filters.range[1].endOf('day').unix() + 1));
  params.set('granularity', filters.granularity);
  params.set('tz', String(tz));
  if (filters.model) params.set('model', filters.model);
  if (filters.tokenId) params.set('token_id', String(filters.tokenId));
  if (everyone) {
    if (filters.username.trim()) params.set('username', filters.username.trim());
    if (filters.channelId) params.set('channel_id', String(filters.channelId));
  }
  return params.toString();
}

/** How many days the picked range covers (hour buckets are offered up to 31). */
export const rangeDays = (range: [Dayjs, Dayjs]) => range[1].endOf('day').diff(range[0].startOf('day'), 'day') + 1;

/** An amount for a chart: dollars with currency display on, quota units otherwise (axes and tooltips format it). */
export function chartAmount(quota: number, display: QuotaDisplay): number {
  return display.displayInCurrency ? quota / (display.quotaPerUnit || 500000) : quota;
}

export const tokensOf = (t: UsageTotals) => t.prompt_tokens + t.completion_tokens;

/** A bucket's label on the time axis, in the viewer's zone. */
export function timeLabel(time: number, granularity: DashboardGranularity): string {
  return dayjs.unix(time).format(granularity === 'hour' ? 'MM-DD HH:00' : 'MM-DD');
}

/** The models drawn on their own in the spending chart, and 其他 when some spending is left for the rest. */
export function chartModels(report: DashboardReport): string[] {
  const drawn = report.models.slice(0, DASHBOARD_CHART_MODELS).map((m) => m.model);
  const rest = report.models.slice(DASHBOARD_CHART_MODELS).reduce((sum, m) => sum + m.quota, 0);
  return rest > 0 ? [...drawn, OTHERS] : drawn;
}

export interface TrendRow {
  time: number;
  label: string;
  /** spending of the bucket by model (chart units), OTHERS included */
  [model: string]: number | string;
}

/**
 * One row per bucket for the charts: spending by drawn model (and 其他: the bucket's spending minus theirs),
 * total spending, requests, failures and tokens.
 */
export function trendRows(report: DashboardReport, display: QuotaDisplay): TrendRow[] {
  const models = chartModels(report);
  const drawn = models.filter((m) => m !== OTHERS);
  const byBucket = new Map<number, Record<string, number>>();
  for (const point of report.model_series) {
    const bucket = byBucket.get(point.time) ?? {};
    bucket[point.model] = point.quota;
    byBucket.set(point.time, bucket);
  }
  return report.series.map((point) => {
    const spent = byBucket.get(point.time) ?? {};
    const row: TrendRow = { time: point.time, label: timeLabel(point.time, report.granularity), 消费: chartAmount(point.quota, display), 请求数: point.requests, 失败数: point.failures, tokens: tokensOf(point) };
    let rest = point.quota;
    for (const model of drawn) {
      row[model] = chartAmount(spent[model] ?? 0, display);
      rest -= spent[model] ?? 0;
    }
    if (models.includes(OTHERS)) row[OTHERS] = chartAmount(Math.max(0, rest), display);
    return row;
  });
}

/** The share of spending per model for the pie: the drawn models and 其他; models without spending left out. */
export function modelShares(models: ModelUsage[], display: QuotaDisplay): Array<{ name: string; value: number; quota: number }> {
  const drawn = models.slice(0, DASHBOARD_CHART_MODELS).filter((m) => m.quota > 0);
  const rest = models.slice(DASHBOARD_CHART_MODELS).reduce((sum, m) => sum + m.quota, 0);
  const shares = drawn.map((m) => ({ name: m.model, value: chartAmount(m.quota, display), quota: m.quota }));
  return rest > 0 ? [...shares, { name: OTHERS, value: chartAmount(rest, display), quota: rest }] : shares;
}

/** Mean latency of the requests, served and failed, in seconds ('—' without any). */
export function meanLatency(t: UsageTotals): string {
  const n = t.requests + t.failures;
  return n ? `${(t.latency_ms / n / 1000).toFixed(2)} 秒` : '—';
}
