import { describe, expect, it } from 'vitest';
import { csvCell, toCsv, UTF8_BOM } from './csv.js';

describe('CSV export text', () => {
  it('quotes what needs quoting and defuses formulas', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell(12.5)).toBe('12.5');
  });

  it('a large export is written in parts with turns of the event loop between, and reads as one document', async () => {
    const rows = Array.from({ length: 4_500 }, (_, i) => [`2026-11-${String(1 + (i % 28)).padStart(2, '0')}`, i, `key,${i}`]);
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const csv = await toCsv(['时间', 'ID', '令牌'], rows);
    clearInterval(ticker);
    expect(turns).toBeGreaterThan(0);
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(`${UTF8_BOM}时间,ID,令牌`);
    expect(lines).toHaveLength(4_500 + 2); // header, rows, and the empty string after the last CRLF
    expect(lines[1]).toBe('2026-11-01,0,"key,0"');
    expect(lines[4_500]).toBe(`2026-11-${String(1 + (4_499 % 28)).padStart(2, '0')},4499,"key,4499"`);
    expect(lines[4_501]).toBe('');
  });
});
