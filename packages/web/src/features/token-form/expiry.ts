import dayjs from 'dayjs';

/** The expiry quick buttons of docs/console.md §9: never, 30 days, one day, one hour, one minute. */
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

const DATE_TIME = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * Parses the expiry field: '-1' means never; anything else must be a real local date and time written
 * YYYY-MM-DD [HH:mm[:ss]] (docs/console.md §5). Impossible dates (month 13, February 30) are refused rather
 * than rolled over into another date.
 */
export function parseExpiry(text: string): number | 'invalid' {
  const value = text.trim();
  if (value === '-1') return -1;
  const match = DATE_TIME.exec(value);
  if (!match) return 'invalid';
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1).map((part) => (part === undefined ? undefined : Number(part))) as number[];
  const date = new Date(year, month - 1, day, hour, minute, second);
  const same = date.getFullYear() === year && date.getMonth() === month - 1 && date.getDate() === day && date.getHours() === hour && date.getMinutes() === minute && date.getSeconds() === second;
  return same ? Math.floor(date.getTime() / 1000) : 'invalid';
}

export function expiryText(expiredTime: number): string {
  return expiredTime === -1 ? '-1' : dayjs.unix(expiredTime).format('YYYY-MM-DD HH:mm:ss');
}
