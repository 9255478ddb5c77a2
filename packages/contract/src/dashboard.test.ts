import { describe, expect, it } from 'vitest';
import { adminDashboardQuerySchema, bucketStart, dashboardQuerySchema, DashboardMessages, monthStart } from './dashboard.js';

const utc = (...parts: [number, number, number, number?, number?]) => Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3] ?? 0, parts[4] ?? 0) / 1000;

describe('dashboard buckets', () => {
  it('hours are whole UTC hours; days start at the viewer\'s midnight', () => {
    const t = utc(2026, 3, 10, 1, 30);
    expect(bucketStart(t, 'hour', 480)).toBe(utc(2026, 3, 10, 1));
    expect(bucketStart(t, 'day', 0)).toBe(utc(2026, 3, 10));
    // 09:30 in UTC+8: the local day began at 16:00 UTC the day before
    expect(bucketStart(t, 'day', 480)).toBe(utc(2026, 3, 9, 16));
    // 20:30 on March 9 in UTC-5
    expect(bucketStart(t, 'day', -300)).toBe(utc(2026, 3, 9, 5));
    expect(bucketStart(utc(2026, 3, 10), 'day', 0)).toBe(utc(2026, 3, 10));
  });

  it('a month starts at local midnight of its first day, across year ends and leap days', () => {
    expect(monthStart(utc(2026, 3, 10, 12), 0)).toBe(utc(2026, 3, 1));
    expect(monthStart(utc(2026, 3, 31, 20), 480)).toBe(utc(2026, 3, 31, 16)); // already April 1 04:00 in UTC+8
    expect(monthStart(utc(2027, 1, 1, 2), -300)).toBe(utc(2026, 12, 1, 5)); // still Dec 31 in UTC-5
    expect(monthStart(utc(2028, 2, 29, 12), 0)).toBe(utc(2028, 2, 1));
  });
});

describe('dashboard queries', () => {
  const range = { start: '1000', end: '90000' };
  it('defaults: day buckets, UTC, no filters, top 10; strings from a query string are numbers', () => {
    expect(dashboardQuerySchema.parse(range)).toEqual({ start: 1000, end: 90000, granularity: 'day', tz: 0, model: '', token_id: 0, top: 10 });
    // a user's query knows nothing of users and channels
    expect(dashboardQuerySchema.parse({ ...range, user_id: '7', channel_id: '3' })).not.toHaveProperty('user_id');
    expect(adminDashboardQuerySchema.parse({ ...range, user_id: '7', channel_id: '3', username: ' amy ' })).toMatchObject({ user_id: 7, channel_id: 3, username: 'amy' });
  });

  it('refuses ranges that are empty, reversed or too long, with the message of the first problem', () => {
    const message = (input: object) => {
      const result = dashboardQuerySchema.safeParse(input);
      return result.success ? undefined : result.error.issues[0].message;
    };
    expect(message({ start: 5, end: 5 })).toBe(DashboardMessages.rangeInvalid);
    expect(message({ start: 0, end: 367 * 86400 })).toBe(DashboardMessages.rangeTooLong);
    expect(message({ start: 0, end: 32 * 86400, granularity: 'hour' })).toBe(DashboardMessages.hourRangeTooLong);
    expect(message({ start: 0, end: 31 * 86400, granularity: 'hour' })).toBeUndefined();
    expect(message({ start: 0, end: 10, tz: 841 })).toBe(DashboardMessages.tzInvalid);
  });
});
