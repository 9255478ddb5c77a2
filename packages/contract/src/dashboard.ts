import { z } from 'zod';

/**
 * The usage dashboard (issue 11): totals, series over time and breakdowns read from the hourly usage rollups,
 * never from the log table. Amounts are quota units (shown with formatQuota); times are unix seconds.
 */
export const DASHBOARD_GRANULARITIES = ['hour', 'day'] as const;
export type DashboardGranularity = (typeof DASHBOARD_GRANULARITIES)[number];

/** The longest range a report covers, and the longest one in hour buckets (744 points). */
export const DASHBOARD_MAX_DAYS = 366;
export const DASHBOARD_MAX_HOUR_DAYS = 31;
/** Rows of the top-N tables: 10 unless asked, at most 100. */
export const DASHBOARD_TOP_DEFAULT = 10;
export const DASHBOARD_TOP_MAX = 100;
/** Models drawn as their own series in the spending chart; the rest are summed as 其他. */
export const DASHBOARD_CHART_MODELS = 8;
/** Rows a CSV export may hold (a narrower range or day buckets when there are more). */
export const DASHBOARD_EXPORT_MAX_ROWS = 100_000;

export const DashboardMessages = {
  rangeInvalid: '时间范围无效：结束时间必须晚于开始时间',
  rangeTooLong: `时间范围不能超过 ${DASHBOARD_MAX_DAYS} 天`,
  hourRangeTooLong: `按小时统计时时间范围不能超过 ${DASHBOARD_MAX_HOUR_DAYS} 天，请缩小范围或改为按天统计`,
  granularityInvalid: '统计粒度只能是 hour（按小时）或 day（按天）',
  tzInvalid: '时区偏移无效：应为 -720 到 840 之间的整数分钟',
  timeInvalid: '时间必须是非负整数秒',
  idInvalid: 'ID 必须是非负整数',
  topInvalid: `排行数量必须是 1 到 ${DASHBOARD_TOP_MAX} 之间的整数`,
  exportTooLarge: `导出的数据超过 ${DASHBOARD_EXPORT_MAX_ROWS} 行，请缩小时间范围或改为按天统计`,
} as const;

const seconds = z.coerce.number(DashboardMessages.timeInvalid).int(DashboardMessages.timeInvalid).min(0, DashboardMessages.timeInvalid);
const id = z.coerce.number(DashboardMessages.idInvalid).int(DashboardMessages.idInvalid).min(0, DashboardMessages.idInvalid).max(2_147_483_647, DashboardMessages.idInvalid).default(0);

const baseQuery = {
  start: seconds,
  end: seconds,
  granularity: z.enum(DASHBOARD_GRANULARITIES, DashboardMessages.granularityInvalid).default('day'),
  /** The viewer's offset from UTC in minutes (east positive): day buckets and "today" start at its midnight. */
  tz: z.coerce.number(DashboardMessages.tzInvalid).int(DashboardMessages.tzInvalid).min(-720, DashboardMessages.tzInvalid).max(840, DashboardMessages.tzInvalid).default(0),
  model: z.string().trim().max(255).default(''),
  token_id: id,
  top: z.coerce.number(DashboardMessages.topInvalid).int(DashboardMessages.topInvalid).min(1, DashboardMessages.topInvalid).max(DASHBOARD_TOP_MAX, DashboardMessages.topInvalid).default(DASHBOARD_TOP_DEFAULT),
};

function checkRange(query: { start: number; end: number; granularity: DashboardGranularity }, ctx: z.RefinementCtx): void {
  if (query.end <= query.start) ctx.addIssue({ code: 'custom', message: DashboardMessages.rangeInvalid, path: ['end'] });
  else if (query.end - query.start > DASHBOARD_MAX_DAYS * 86_400) ctx.addIssue({ code: 'custom', message: DashboardMessages.rangeTooLong, path: ['end'] });
  else if (query.granularity === 'hour' && query.end - query.start > DASHBOARD_MAX_HOUR_DAYS * 86_400) {
    ctx.addIssue({ code: 'custom', message: DashboardMessages.hourRangeTooLong, path: ['granularity'] });
  }
}

/** GET /api/dashboard/self/report (and export): one's own usage; filters by model and own key. */
export const dashboardQuerySchema = z.object(baseQuery).superRefine(checkRange);

/** GET /api/dashboard/report (and export, admin): everyone's usage; also filters by user and channel. */
export const adminDashboardQuerySchema = z
  .object({ ...baseQuery, user_id: id, username: z.string().trim().max(64).default(''), channel_id: id })
  .superRefine(checkRange);

/** GET /api/dashboard/(self/)summary: only the viewer's time zone. */
export const dashboardSummaryQuerySchema = z.object({ tz: baseQuery.tz });

/** Sums of settled requests (usage_rollups columns summed over the rows that match). */
export interface UsageTotals {
  /** requests served (a channel answered; charged) */
  requests: number;
  /** requests no channel answered (log type 5): counted apart, never charged */
  failures: number;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  /** total milliseconds of all of them, served and failed (latency_ms / (requests + failures) is the mean) */
  latency_ms: number;
}

/** One bucket of a series: `time` is the bucket's start (an hour, or the viewer's midnight). */
export interface UsagePoint extends UsageTotals {
  time: number;
}

export interface ModelUsage extends UsageTotals {
  model: string;
}
export interface ModelPoint {
  time: number;
  model: string;
  quota: number;
  requests: number;
}
export interface TokenUsage extends UsageTotals {
  token_id: number;
  token_name: string;
  user_id: number;
}
export interface UserUsage extends UsageTotals {
  user_id: number;
  username: string;
}
export interface ChannelUsage extends UsageTotals {
  channel_id: number;
  channel_name: string;
}

/** Everything the dashboard screen draws for a range and filters. */
export interface DashboardReport {
  /** The range actually covered: start rounded down and end rounded up to whole hours (end exclusive). */
  start: number;
  end: number;
  granularity: DashboardGranularity;
  totals: UsageTotals;
  /** Every bucket of the range, empty ones as zeros. */
  series: UsagePoint[];
  /** Every model used in the range, most spent first. */
  models: ModelUsage[];
  /** Per bucket, the DASHBOARD_CHART_MODELS models spent most on (empty buckets left out). */
  model_series: ModelPoint[];
  /** Top-N keys by spending. */
  tokens: TokenUsage[];
  /** Admin report only: top-N users and channels by spending. */
  users?: UserUsage[];
  channels?: ChannelUsage[];
}

/** The cards above the charts: the balance and what was spent today and this month (viewer's calendar). */
export interface DashboardSummary {
  /** 'self': the caller's own account; 'all' (admin): every user summed. */
  scope: 'self' | 'all';
  balance: number;
  used_quota: number;
  request_count: number;
  today: UsageTotals;
  month: UsageTotals;
}

export const EMPTY_TOTALS: UsageTotals = { requests: 0, failures: 0, quota: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0, latency_ms: 0 };

/**
 * The start of the bucket holding `time`: the hour, or the day starting at midnight in the viewer's zone
 * (`tz` minutes east of UTC). Hours are the rollups' own grain, so days are exact for whole-hour zones.
 */
export function bucketStart(time: number, granularity: DashboardGranularity, tz: number): number {
  if (granularity === 'hour') return time - (((time % 3600) + 3600) % 3600);
  const offset = tz * 60;
  return time - ((((time + offset) % 86_400) + 86_400) % 86_400);
}

/** Midnight of the first day of the month holding `time`, in the viewer's zone. */
export function monthStart(time: number, tz: number): number {
  const local = new Date((time + tz * 60) * 1000);
  return Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), 1) / 1000 - tz * 60;
}
