import {
  adminDashboardQuerySchema,
  bucketStart,
  DASHBOARD_EXPORT_MAX_ROWS,
  DashboardMessages,
  dashboardQuerySchema,
  dashboardSummaryQuerySchema,
  monthStart,
  type ChannelUsage,
  type DashboardGranularity,
  type DashboardReport,
  type DashboardSummary,
  type TokenUsage,
  type UsageTotals,
  type UserUsage,
} from '@model-relay/contract';
import { fail } from '../../lib/errors.js';
import { nowSeconds, parseInput } from '../../lib/validate.js';
import type { OptionStore } from '../../options/option-store.js';
import type { Bucketing, RollupFilter, UsageRollupsRepository } from '../../storage/repositories/usage-rollup-queries.js';
import type { UsersRepository } from '../../storage/repositories/users.js';
import type { Caller } from '../../auth/caller.js';
import { toCsv } from './csv.js';
import { modelSeriesOf, modelsOf, seriesOf, topChannels, topTokens, topUsers, totalsOfCells } from './fold-usage.js';

/** Whose usage a call reads: the caller's own, or (admins) everyone's. */
export type Scope = { kind: 'self'; caller: Caller } | { kind: 'all' };

/** A parsed query: the rollup filter over whole hours, the bucketing, and the table size. */
interface Plan {
  filter: RollupFilter;
  bucketing: Bucketing;
  top: number;
}

const HOUR = 3600;
const DAY = 86_400;
const floorHour = (t: number) => t - (t % HOUR);
const ceilHour = (t: number) => (t % HOUR === 0 ? t : t - (t % HOUR) + HOUR);

/** Names for rows whose user, key or channel was deleted since (the rollups keep the id). */
const missing = (kind: string, id: number) => (id > 0 ? `${kind} #${id}（已删除）` : '');

/**
 * The usage dashboard's data (issue 11): everything is summed from usage_rollups (hourly rows written with
 * the consume logs), never from a scan of the logs table. Users read their own rows only; admins read
 * everyone's and may filter by user, key, model and channel.
 */
export class DashboardService {
  constructor(
    private readonly rollups: UsageRollupsRepository,
    private readonly users: UsersRepository,
    private readonly options: OptionStore,
    private readonly now: () => number = nowSeconds,
  ) {}

  /** Balance, and what was spent today and this month in the viewer's calendar. */
  async summary(scope: Scope, query: unknown): Promise<DashboardSummary> {
    const { tz } = parseInput(dashboardSummaryQuerySchema, query);
    const now = this.now();
    const end = ceilHour(now + 1);
    const userId = scope.kind === 'self' ? scope.caller.id : undefined;
    const [today, month, account] = await Promise.all([
      this.rollups.totals({ start: bucketStart(now, 'day', tz), end, userId }),
      this.rollups.totals({ start: monthStart(now, tz), end, userId }),
      scope.kind === 'self' ? this.ownAccount(scope.caller.id) : this.users.sumAccounts(),
    ]);
    return { scope: scope.kind, balance: account.quota, used_quota: account.used_quota, request_count: account.request_count, today, month };
  }

  /** Totals, the series over time, the breakdown by model and the top-N tables for a range: two scans of the range. */
  async report(scope: Scope, query: unknown): Promise<DashboardReport> {
    const { filter, bucketing, top } = await this.plan(scope, query);
    const admin = scope.kind === 'all';
    const [cells, owners] = await Promise.all([this.rollups.byBucketAndModel(filter, bucketing), this.rollups.byOwner(filter, admin)]);
    const models = modelsOf(cells);
    const tokens = topTokens(owners, top);
    const users = admin ? topUsers(owners, top) : undefined;
    const channels = admin ? topChannels(owners, top) : undefined;
    const names = await this.rollups.names({
      tokens: tokens.map((t) => t.token_id),
      users: (users ?? []).map((u) => u.user_id),
      channels: (channels ?? []).map((c) => c.channel_id),
    });
    const report: DashboardReport = {
      start: filter.start,
      end: filter.end,
      granularity: bucketing.granularity,
      totals: totalsOfCells(cells),
      series: seriesOf(cells, bucketStart(filter.start, bucketing.granularity, bucketing.tz), filter.end, bucketing.granularity === 'hour' ? HOUR : DAY),
      models,
      model_series: modelSeriesOf(cells, models),
      tokens: tokens.map((t): TokenUsage => ({ ...t, token_name: names.tokens.get(t.token_id) ?? missing('令牌', t.token_id) })),
    };
    if (users) report.users = users.map((u): UserUsage => ({ ...u, username: names.users.get(u.user_id) ?? missing('用户', u.user_id) }));
    if (channels) report.channels = channels.map((c): ChannelUsage => ({ ...c, channel_name: c.channel_id ? (names.channels.get(c.channel_id) ?? missing('渠道', c.channel_id)) : '（未选中渠道）' }));
    return report;
  }

  /**
   * The rows of the range as a CSV file for Excel: per bucket x user x key x model (x channel for admins), with
   * names, token counts, quota and its amount in US$. Users' files leave out users and channels.
   */
  async exportCsv(scope: Scope, query: unknown): Promise<{ filename: string; csv: string }> {
    const { filter, bucketing } = await this.plan(scope, query);
    const admin = scope.kind === 'all';
    const rows = await this.rollups.exportRows(filter, bucketing, DASHBOARD_EXPORT_MAX_ROWS + 1, admin);
    if (rows.length > DASHBOARD_EXPORT_MAX_ROWS) fail(DashboardMessages.exportTooLarge);
    const names = await this.rollups.names({ users: admin ? rows.map((r) => r.user_id) : [], tokens: rows.map((r) => r.token_id), channels: admin ? rows.map((r) => r.channel_id) : [] });
    const perUnit = this.options.number('QuotaPerUnit') || 500_000;
    const tz = bucketing.tz;
    const counters = (r: UsageTotals) => [
      r.requests,
      r.failures,
      r.prompt_tokens,
      r.completion_tokens,
      r.cached_tokens,
      r.reasoning_tokens,
      r.quota,
      (r.quota / perUnit).toFixed(6),
      r.requests + r.failures ? Math.round(r.latency_ms / (r.requests + r.failures)) : 0,
    ];
    const counterHeader = ['请求数', '失败数', '输入 tokens', '输出 tokens', '缓存读取 tokens', '推理 tokens', '消费额度', '金额（美元）', '平均耗时（毫秒）'];
    const header = admin ? ['时间', '用户 ID', '用户名', '令牌 ID', '令牌名称', '模型', '渠道 ID', '渠道名称', ...counterHeader] : ['时间', '令牌 ID', '令牌名称', '模型', ...counterHeader];
    const body = rows.map((r) => {
      const time = formatLocal(r.time, tz, bucketing.granularity);
      const token = names.tokens.get(r.token_id) ?? missing('令牌', r.token_id);
      if (!admin) return [time, r.token_id, token, r.model, ...counters(r)];
      const channel = r.channel_id ? (names.channels.get(r.channel_id) ?? missing('渠道', r.channel_id)) : '';
      return [time, r.user_id, names.users.get(r.user_id) ?? missing('用户', r.user_id), r.token_id, token, r.model, r.channel_id, channel, ...counters(r)];
    });
    const day = (t: number) => formatLocal(t, tz, 'day').replace(/-/g, '');
    return { filename: `usage-${day(filter.start)}-${day(filter.end - 1)}.csv`, csv: await toCsv(header, body) };
  }

  private async ownAccount(id: number) {
    const user = await this.users.findById(id);
    if (!user) return fail('用户不存在');
    return { quota: Number(user.quota), used_quota: Number(user.used_quota), request_count: Number(user.request_count) };
  }

  /** Validates a report or export query; a user's is pinned to their own rows whatever it says. */
  private async plan(scope: Scope, query: unknown): Promise<Plan> {
    const bucketingOf = (q: { granularity: DashboardGranularity; tz: number }): Bucketing => ({ granularity: q.granularity, tz: q.tz });
    if (scope.kind === 'self') {
      const q = parseInput(dashboardQuerySchema, query);
      return { filter: { start: floorHour(q.start), end: ceilHour(q.end), userId: scope.caller.id, tokenId: q.token_id, model: q.model }, bucketing: bucketingOf(q), top: q.top };
    }
    const q = parseInput(adminDashboardQuerySchema, query);
    let userId = q.user_id;
    if (q.username) {
      const user = await this.users.findByUsername(q.username);
      if (!user) fail(`用户 ${q.username} 不存在`);
      else if (userId && userId !== user.id) fail('用户 ID 与用户名不是同一个用户');
      else userId = user.id;
    }
    return { filter: { start: floorHour(q.start), end: ceilHour(q.end), userId, tokenId: q.token_id, model: q.model, channelId: q.channel_id }, bucketing: bucketingOf(q), top: q.top };
  }
}

/** The service over the database's rollups (the routes never reach storage themselves). */
/** A bucket's start in the viewer's zone: YYYY-MM-DD for days, YYYY-MM-DD HH:00 for hours. */
function formatLocal(time: number, tz: number, granularity: DashboardGranularity): string {
  const d = new Date((time + tz * 60) * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  const day = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  return granularity === 'day' ? day : `${day} ${pad(d.getUTCHours())}:00`;
}
