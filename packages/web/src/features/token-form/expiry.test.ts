import { describe, expect, it } from 'vitest';
import { EXPIRY_SHORTCUTS, expiryFromShortcut, parseExpiry } from './expiry';

describe('token expiry (docs/console.md §5 and §9)', () => {
  // covers S5-VALID-30, S5-VALID-34
  it('-1 means never; a text that is not a date is refused', () => {
    expect(parseExpiry('-1')).toBe(-1);
    expect(parseExpiry('not a date')).toBe('invalid');
    expect(parseExpiry('')).toBe('invalid');
    expect(parseExpiry('2030-01-02 03:04:05')).toBe(new Date(2030, 0, 2, 3, 4, 5).getTime() / 1000);
    expect(parseExpiry('2030-01-02')).toBe(new Date(2030, 0, 2).getTime() / 1000);
    expect(parseExpiry('2030-01-02 03:04')).toBe(new Date(2030, 0, 2, 3, 4).getTime() / 1000);
    // Impossible dates are refused, not rolled over; a bare number is not a date.
    for (const text of ['2030-13-45', '2030-02-30', '2030-01-02 25:00', '1', 'next tuesday']) expect(parseExpiry(text)).toBe('invalid');
  });
  // covers S2-TOKENFORM-06, S2-TOKENFORM-07, S2-TOKENFORM-08, S2-TOKENFORM-09, S2-TOKENFORM-10
  it('offers never, 30 days, one day, one hour and one minute', () => {
    expect(EXPIRY_SHORTCUTS.map((s) => s.seconds)).toEqual([null, 2592000, 86400, 3600, 60]);
    const now = Date.UTC(2030, 0, 1, 0, 0, 0);
    expect(expiryFromShortcut(null, now)).toBe('-1');
    expect(parseExpiry(expiryFromShortcut(3600, now))).toBe(now / 1000 + 3600);
  });
});
