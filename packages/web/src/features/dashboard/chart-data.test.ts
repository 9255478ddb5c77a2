import type { DashboardReport } from '@model-relay/contract';
import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { chartModels, dashboardQuery, defaultDashboardFilters, modelShares, OTHERS, rangeDays, trendRows } from './chart-data';

const zero = { requests: 0, failures: 0, quota: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0, latency_ms: 0 };
const dollars = { quotaPerUnit: 500000, displayInCurrency: true };
const T = dayjs('2026-03-10T00:00:00').unix();

const models = Array.from({ length: 10 }, (_, i) => ({ ...zero, model: `m${i}`, quota: (10 - i) * 1000, requests: 1 }));
const report: DashboardReport = {
  start: T, end: T + 2 * 86400, granularity: 'day', totals: zero, tokens: [],
  series: [
    { ...zero, time: T, quota: 60_000, requests: 5, failures: 1, prompt_tokens: 100, completion_tokens: 50 },
    { ...zero, time: T + 86400 },
  ],
  models,
  model_series: [
    { time: T, model: 'm0', quota: 10_000, requests: 1 },
    { time: T, model: 'm1', quota: 9_000, requests: 1 },
  ],
};

describe('dashboard chart data', () => {
  it('the query: whole local days of the range, the granularity, the zone, and only the filters that are set', () => {
    const filters = { ...defaultDashboardFilters(dayjs('2026-03-10T15:00:00')), model: 'gpt-4o', tokenId: 3, username: 'amy', channelId: 2 };
    const own = new URLSearchParams(dashboardQuery(filters, false, 480));
    expect(own.get('start')).toBe(String(dayjs('2026-03-04T00:00:00').unix()));
    expect(own.get('end')).toBe(String(dayjs('2026-03-11T00:00:00').unix()));
    expect(Object.fromEntries(own)).toMatchObject({ granularity: 'day', tz: '480', model: 'gpt-4o', token_id: '3' });
    expect(own.has('username')).toBe(false);
    const everyone = new URLSearchParams(dashboardQuery(filters, true, 0));
    expect(Object.fromEntries(everyone)).toMatchObject({ username: 'amy', channel_id: '2' });
    expect(new URLSearchParams(dashboardQuery(defaultDashboardFilters(), true)).has('model')).toBe(false);
    expect(rangeDays(filters.range)).toBe(7);
  });

  it('the spending chart draws the eight biggest models and 其他 for the rest of each bucket', () => {
    expect(chartModels(report)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', OTHERS]);
    const [first, second] = trendRows(report, dollars);
    expect(first).toMatchObject({ label: '03-10', m0: 0.02, m1: 0.018, m2: 0, 消费: 0.12, 请求数: 5, 失败数: 1, tokens: 150 });
    // the bucket's spending not in the drawn models' series
    expect(first[OTHERS]).toBeCloseTo(0.082, 10);
    expect(second).toMatchObject({ label: '03-11', 消费: 0, m0: 0, [OTHERS]: 0 });
    // quota units when currency display is off
    expect(trendRows(report, { quotaPerUnit: 500000, displayInCurrency: false })[0]).toMatchObject({ m0: 10_000, 消费: 60_000 });
  });

  it('the pie: the biggest models and 其他, without models that cost nothing', () => {
    const shares = modelShares([...models, { ...zero, model: 'free', quota: 0 }], dollars);
    expect(shares.map((s) => s.name)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', OTHERS]);
    expect(shares.at(-1)).toMatchObject({ quota: 3000, value: 0.006 });
    expect(modelShares([{ ...zero, model: 'free' }], dollars)).toEqual([]);
  });
});
