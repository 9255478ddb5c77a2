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

/** A whole CSV document: BOM, header, rows, CRLF line ends (what Excel writes itself). */
export function toCsv(header: string[], rows: Array<Array<string | number>>): string {
  const lines = [header, ...rows].map((cells) => cells.map(csvCell).join(','));
  return `${UTF8_BOM}${lines.join('\r\n')}\r\n`;
}
