import { beforeEach, describe, expect, it } from 'vitest';
import { abbreviate, formatTimestamp, renderQuota, truncateName } from './format';

beforeEach(() => localStorage.clear());

describe('amount display (docs/console.md §9)', () => {
  // covers S9-CONST-18
  it('with currency display on: quota / quota_per_unit, 2 decimals, $ prefix', () => {
    localStorage.setItem('display_in_currency', 'true');
    localStorage.setItem('quota_per_unit', '500000');
    expect(renderQuota(1_250_000)).toBe('$2.50');
    expect(renderQuota(0)).toBe('$0.00');
    // One rule everywhere: thousands separators (root's balance) and no "$0.00" for a real cost.
    expect(renderQuota(500_000_000_000_000)).toBe('$1,000,000,000.00');
    expect(renderQuota(113)).toBe('$0.00023');
  });
  it('currency display is on unless the status switched it off; quota_per_unit comes from the status', () => {
    localStorage.setItem('quota_per_unit', '1000');
    expect(renderQuota(2500)).toBe('$2.50');
  });
  // covers S9-CONST-19, S9-CONST-20, S9-CONST-21
  it('otherwise abbreviated with k from 10000, M from a million, B from a billion', () => {
    localStorage.setItem('display_in_currency', 'false');
    expect(renderQuota(9999)).toBe('9999');
    expect(renderQuota(10_000)).toBe('10.0k');
    expect(abbreviate(2_500_000)).toBe('2.5M');
    expect(abbreviate(3_000_000_000)).toBe('3.0B');
  });
});

describe('timestamps and names', () => {
  // covers S9-CONST-22
  it('formats seconds as YYYY-MM-DD HH:mm:ss', () => {
    expect(formatTimestamp(0)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });
  // covers S2-USERS-13
  it('truncates usernames longer than 15 characters to 12 plus an ellipsis', () => {
    expect(truncateName('abcdefghijklmno')).toBe('abcdefghijklmno');
    expect(truncateName('abcdefghijklmnop')).toBe('abcdefghijkl...');
  });
});
