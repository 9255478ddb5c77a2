/** How amounts of quota are shown: the `quota_per_unit` and `display_in_currency` of the status object. */
export interface QuotaDisplay {
  quotaPerUnit: number;
  displayInCurrency: boolean;
}

export const DEFAULT_QUOTA_PER_UNIT = 500000;

/** Abbreviates with k from 10,000, M from a million, B from a billion (docs/console.md §9). */
export function abbreviateQuota(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${(value / 1e9).toFixed(1)}B`;
  if (abs >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (abs >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  return String(value);
}

const dollars = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * The one money display rule (docs/console.md §9), used for every amount the product shows: balances, key quotas,
 * log rows, totals, codes, e-mails. With currency display on: quota / quota_per_unit in dollars with two
 * decimals and thousands separators ("$1,000,000,000.00"). An amount that is not zero but would round to
 * $0.00 (one cheap request) keeps two significant digits ("$0.00023") instead of claiming it cost nothing.
 * With currency display off: the quota units, abbreviated with k / M / B.
 */
export function formatQuota(quota: number, display: QuotaDisplay): string {
  const perUnit = display.quotaPerUnit > 0 ? display.quotaPerUnit : DEFAULT_QUOTA_PER_UNIT;
  if (!display.displayInCurrency) return abbreviateQuota(quota);
  const amount = quota / perUnit;
  const sign = amount < 0 ? '-' : '';
  const abs = Math.abs(amount);
  if (abs > 0 && abs < 0.005) {
    const digits = Math.min(8, 1 - Math.floor(Math.log10(abs)));
    return `${sign}$${abs.toFixed(digits).replace(/0+$/, '')}`;
  }
  return `${sign}$${dollars.format(abs)}`;
}

/** Quota units for an amount in dollars (the inverse, for inputs that take dollars). */
export function quotaFromDollars(amount: number, quotaPerUnit: number): number {
  return Math.round(amount * (quotaPerUnit > 0 ? quotaPerUnit : DEFAULT_QUOTA_PER_UNIT));
}
