import { abbreviateQuota, DEFAULT_QUOTA_PER_UNIT, formatQuota, type QuotaDisplay } from '@model-relay/contract';
import dayjs from 'dayjs';
import { StorageKeys } from './storage';

/** Seconds since the epoch as YYYY-MM-DD HH:mm:ss (docs/console.md §9). */
export function formatTimestamp(seconds: number): string {
  return dayjs.unix(seconds).format('YYYY-MM-DD HH:mm:ss');
}

/** Abbreviates with k from 10,000, M from a million, B from a billion (docs/console.md §9). */
export const abbreviate = abbreviateQuota;

/** The stored status's quota_per_unit and display_in_currency (currency display unless switched off). */
export function quotaDisplay(): QuotaDisplay {
  return {
    displayInCurrency: localStorage.getItem(StorageKeys.displayInCurrency) !== 'false',
    quotaPerUnit: Number(localStorage.getItem(StorageKeys.quotaPerUnit) || DEFAULT_QUOTA_PER_UNIT) || DEFAULT_QUOTA_PER_UNIT,
  };
}

/** An amount of quota by the one display rule of the product (contract formatQuota, docs/console.md §9). */
export function renderQuota(quota: number): string {
  return formatQuota(quota, quotaDisplay());
}

/** Usernames longer than 15 characters show their first 12 plus an ellipsis. */
export function truncateName(text: string, limit = 15): string {
  return text.length > limit ? `${text.slice(0, limit - 3)}...` : text;
}
