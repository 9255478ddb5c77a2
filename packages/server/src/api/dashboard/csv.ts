/** Excel reads a CSV file as the system's ANSI code page unless it starts with a UTF-8 byte order mark. */
export const UTF8_BOM = '\uFEFF';

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote or line break. Text starting with = + - @ (or a
 * tab / carriage return) is prefixed with an apostrophe so a spreadsheet shows it instead of running it as a
 * formula: user, key and model names are typed by users (OWASP "CSV injection").
 */
export function csvCell(value: string | number): string {
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows turned into text between two turns of the event loop (see toCsv). */
const ROWS_PER_TURN = 2_000;

/**
 * A whole CSV document: BOM, header, rows, CRLF line ends (what Excel writes itself). An export holds up to 100,000
 * rows; they are written ROWS_PER_TURN at a time with a turn of the event loop between, so a large export does not
 * hold up the relay's requests while it is built.
 */
export async function toCsv(header: string[], rows: Array<Array<string | number>>): Promise<string> {
  const parts = [UTF8_BOM, header.map(csvCell).join(','), '\r\n'];
  for (let start = 0; start < rows.length; start += ROWS_PER_TURN) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const cells of rows.slice(start, start + ROWS_PER_TURN)) parts.push(cells.map(csvCell).join(','), '\r\n');
  }
  return parts.join('');
}
