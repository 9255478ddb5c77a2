import { DASHBOARD_CHART_MODELS, EMPTY_TOTALS, type ModelPoint, type ModelUsage, type UsagePoint, type UsageTotals } from '@model-relay/contract';
import type { Cell, OwnerCell } from '../../storage/repositories/usage-rollup-queries.js';

/** Adds b's counters to a copy of a. */
export function add(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    requests: a.requests + b.requests,
    failures: a.failures + b.failures,
    quota: a.quota + b.quota,
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    cached_tokens: a.cached_tokens + b.cached_tokens,
    reasoning_tokens: a.reasoning_tokens + b.reasoning_tokens,
    latency_ms: a.latency_ms + b.latency_ms,
  };
}

const totalsOnly = (row: UsageTotals): UsageTotals => add(EMPTY_TOTALS, row);

/** Most spent first, then most requested, then by key (a stable order for equal rows). */
const bySpending = <T extends UsageTotals>(key: (row: T) => string | number) => (a: T, b: T) =>
  b.quota - a.quota || b.requests - a.requests || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/** Sums rows by a key into UsageTotals plus the fields `pick` keeps of the first row of each group. */
function groupBy<R extends UsageTotals, K extends string | number, E extends object>(rows: R[], key: (row: R) => K, pick: (row: R) => E): Array<UsageTotals & E> {
  const groups = new Map<K, UsageTotals & E>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    groups.set(k, group ? { ...group, ...add(group, row) } : { ...pick(row), ...totalsOnly(row) });
  }
  return [...groups.values()];
}

export function totalsOfCells(cells: Cell[]): UsageTotals {
  return cells.reduce<UsageTotals>((sum, cell) => add(sum, cell), EMPTY_TOTALS);
}

/** Sums per bucket, with every bucket of [first, end) present (empty ones as zeros) so charts show the gaps. */
export function seriesOf(cells: Cell[], first: number, end: number, step: number): UsagePoint[] {
  const byTime = new Map(groupBy(cells, (c) => c.time, (c) => ({ time: c.time })).map((p) => [p.time, p]));
  const series: UsagePoint[] = [];
  for (let time = first; time < end; time += step) series.push(byTime.get(time) ?? { time, ...EMPTY_TOTALS });
  return series;
}

/** Sums per model, most spent first. */
export function modelsOf(cells: Cell[]): ModelUsage[] {
  return groupBy(cells, (c) => c.model, (c) => ({ model: c.model })).sort(bySpending((m) => m.model));
}

/** The chart's per-model series: the models spent most on only (the rest is the series minus these). */
export function modelSeriesOf(cells: Cell[], models: ModelUsage[]): ModelPoint[] {
  const drawn = new Set(models.slice(0, DASHBOARD_CHART_MODELS).map((m) => m.model));
  return cells
    .filter((c) => drawn.has(c.model))
    .map((c) => ({ time: c.time, model: c.model, quota: c.quota, requests: c.requests }))
    .sort((a, b) => a.time - b.time || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
}

/** The `limit` keys, users or channels spent most on, summed from the owner cells. */
export function topTokens(cells: OwnerCell[], limit: number) {
  return groupBy(cells, (c) => c.token_id, (c) => ({ token_id: c.token_id, user_id: c.user_id })).sort(bySpending((t) => t.token_id)).slice(0, limit);
}
export function topUsers(cells: OwnerCell[], limit: number) {
  return groupBy(cells, (c) => c.user_id, (c) => ({ user_id: c.user_id })).sort(bySpending((u) => u.user_id)).slice(0, limit);
}
export function topChannels(cells: OwnerCell[], limit: number) {
  return groupBy(cells, (c) => c.channel_id, (c) => ({ channel_id: c.channel_id })).sort(bySpending((c) => c.channel_id)).slice(0, limit);
}
