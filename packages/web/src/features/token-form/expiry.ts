import dayjs from 'dayjs';

/** The expiry quick buttons of spec section 9: never, 30 days, one day, one hour, one minute. */
export const EXPIRY_SHORTCUTS: Array<{ label: string; seconds: number | null }> = [
  { label: '永不过期', seconds: null },
  { label: '一个月', seconds: 30 * 24 * 3600 },
  { label: '一天', seconds: 24 * 3600 },
  { label: '一小时', seconds: 3600 },
  { label: '一分钟', seconds: 60 },
];

/** The text shown in the expiry field for a shortcut ('-1' for never). */
export function expiryFromShortcut(seconds: number | null, now = Date.now()): string {
  return seconds === null ? '-1' : dayjs(now + seconds * 1000).format('YYYY-MM-DD HH:mm:ss');
}

/** Parses the expiry field: '-1' means never; anything else must be a date (spec section 5). */
export function parseExpiry(text: string): number | 'invalid' {
  const value = text.trim();
  if (value === '-1') return -1;
  const date = dayjs(value);
  if (!value || !date.isValid()) return 'invalid';
  return date.unix();
}

export function expiryText(expiredTime: number): string {
  return expiredTime === -1 ? '-1' : dayjs.unix(expiredTime).format('YYYY-MM-DD HH:mm:ss');
}
