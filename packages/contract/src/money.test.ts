import { describe, expect, it } from 'vitest';
import { formatQuota, quotaFromDollars } from './money.js';

const dollars = { quotaPerUnit: 500000, displayInCurrency: true };
const units = { quotaPerUnit: 500000, displayInCurrency: false };

describe('the one money display rule (docs/console.md §9)', () => {
  // covers S9-CONST-18
  it('currency on: quota / quota_per_unit, two decimals, $ and thousands separators', () => {
    expect(formatQuota(0, dollars)).toBe('$0.00');
    expect(formatQuota(1_250_000, dollars)).toBe('$2.50');
    expect(formatQuota(500_000_000_000_000, dollars)).toBe('$1,000,000,000.00');
    expect(formatQuota(617_283_950, dollars)).toBe('$1,234.57');
    expect(formatQuota(-1_000_000, dollars)).toBe('-$2.00');
    expect(formatQuota(1000, { quotaPerUnit: 1000, displayInCurrency: true })).toBe('$1.00');
  });

  it('a cost that is not zero never shows as $0.00: below half a cent it keeps two significant digits', () => {
    expect(formatQuota(113, dollars)).toBe('$0.00023');
    expect(formatQuota(1, dollars)).toBe('$0.000002');
    expect(formatQuota(2400, dollars)).toBe('$0.0048');
    expect(formatQuota(2500, dollars)).toBe('$0.01');
    // The same amount reads the same everywhere: a log row and a total of that one row agree.
    expect(formatQuota(4, dollars)).toBe(formatQuota(2 + 2, dollars));
  });

  // covers S9-CONST-19, S9-CONST-20, S9-CONST-21
  it('currency off: quota units abbreviated with k, M and B', () => {
    expect(formatQuota(9999, units)).toBe('9999');
    expect(formatQuota(10_000, units)).toBe('10.0k');
    expect(formatQuota(2_500_000, units)).toBe('2.5M');
    expect(formatQuota(3_000_000_000, units)).toBe('3.0B');
  });

  it('a zero or missing quota per unit falls back to the default 500000, and dollars convert back to units', () => {
    expect(formatQuota(500_000, { quotaPerUnit: 0, displayInCurrency: true })).toBe('$1.00');
    expect(quotaFromDollars(2.5, 500000)).toBe(1_250_000);
  });
});
