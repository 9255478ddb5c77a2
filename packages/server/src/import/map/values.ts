import type { SourceRow } from '../source/open-source.js';

/** Reading a source column whatever the driver made of it (bigint strings, 0/1 or t/f booleans, null). */
export const num = (value: unknown, fallback = 0): number => {
  if (value === null || value === undefined || value === '') return fallback;
  const n = typeof value === 'bigint' ? Number(value) : Number(value);
  return Number.isFinite(n) ? n : fallback;
};
export const int = (value: unknown, fallback = 0): number => Math.trunc(num(value, fallback));
export const str = (value: unknown): string => (value === null || value === undefined ? '' : Buffer.isBuffer(value) ? value.toString('utf8') : String(value));
export const bool = (value: unknown): boolean => value === true || value === 1 || value === '1' || value === 't' || value === 'true' || value === 1n;
/** A soft-delete column (gorm's deleted_at) holding a time. */
export const isSet = (value: unknown): boolean => value !== null && value !== undefined && value !== '' && value !== 0;

/** A JSON column: drivers return text (SQLite), an object (PostgreSQL json, mysql2 JSON) or nothing. */
export function jsonOf(value: unknown): unknown {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'object' && !Buffer.isBuffer(value)) return value;
  try {
    return JSON.parse(str(value)) as unknown;
  } catch {
    return undefined;
  }
}

/** "#12 alice": how the report names a source row. */
export const rowName = (row: SourceRow, label: unknown): string => `#${str(row.id)}${str(label) ? ` ${str(label)}` : ''}`;

/** Text cut to a column's size, with whether it was cut. */
export function fit(text: string, max: number): [string, boolean] {
  return text.length <= max ? [text, false] : [text.slice(0, max), true];
}
