import dayjs from 'dayjs';
import { StorageKeys } from './storage';

/** Seconds since the epoch as YYYY-MM-DD HH:mm:ss (spec section 9). */
export function formatTimestamp(seconds: number): string {
  return dayjs.unix(seconds).format('YYYY-MM-DD HH:mm:ss');
}

/** Abbreviates with k from 10,000, M from a million, B from a billion (spec section 9). */
export function abbreviate(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${(value / 1e9).toFixed(1)}B`;
  if (abs >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (abs >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  return String(value);
}

/**
 * An amount of quota as the console shows it: with currency display on, quota / quota_per_unit with two
 * decimals and a $ prefix; otherwise abbreviated.
 */
export function renderQuota(quota: number, digits = 2): string {
  const displayInCurrency = localStorage.getItem(StorageKeys.displayInCurrency) !== 'false';
  const perUnit = Number(localStorage.getItem(StorageKeys.quotaPerUnit) || 500000) || 500000;
  if (displayInCurrency) return `$${(quota / perUnit).toFixed(digits)}`;
  return abbreviate(quota);
}

/** Usernames longer than 15 characters show their first 12 plus an ellipsis. */
export function truncateName(text: string, limit = 15): string {
  return text.length > limit ? `${text.slice(0, limit - 3)}...` : text;
}
