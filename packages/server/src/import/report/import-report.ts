/** The tables an import reports on, with their names in the summary. */
export const TABLE_NAMES = {
  users: '用户',
  tokens: '令牌',
  channels: '渠道',
  abilities: '渠道能力',
  options: '设置项',
  redemptions: '兑换码',
  logs: '日志',
  usage_rollups: '用量汇总',
} as const;
export type ReportTable = keyof typeof TABLE_NAMES;

export interface TableCounts {
  read: number;
  inserted: number;
  updated: number;
  skipped: number;
}

/** One row the import did not bring over as it was: skipped, changed, or brought over disabled. */
export interface RowNote {
  table: ReportTable;
  /** The row in the source's words: "#12 alice". */
  row: string;
  reason: string;
}

/** A source field or option without an equivalent here: named with how many rows carried a value. */
export interface Unmapped {
  table: ReportTable;
  field: string;
  rows: number;
  examples: string[];
}

/**
 * Everything an import (or a dry run) finds out, in one place: the summary printed at the end and the JSON file of
 * --report-file are both made from it. Nothing a source row carried is lost without a line here.
 */
export class ImportReport {
  source = '';
  target = '';
  product = '';
  version = '';
  dryRun = false;
  mergeMode = '';
  readonly counts = new Map<ReportTable, TableCounts>();
  readonly skipped: RowNote[] = [];
  readonly changed: RowNote[] = [];
  readonly disabled: RowNote[] = [];
  readonly unmapped = new Map<string, Unmapped>();
  readonly notices: string[] = [];
  quota = { sourceUsers: 0, sourceImported: 0, sourceSkipped: 0, targetBefore: 0, targetAfter: 0, importedAfter: 0 };
  durationMs = 0;
  logRate = 0;

  count(table: ReportTable, field: keyof TableCounts, by = 1): void {
    const counts = this.counts.get(table) ?? { read: 0, inserted: 0, updated: 0, skipped: 0 };
    counts[field] += by;
    this.counts.set(table, counts);
  }

  skip(table: ReportTable, row: string, reason: string): void {
    this.skipped.push({ table, row, reason });
    this.count(table, 'skipped');
  }

  change(table: ReportTable, row: string, reason: string): void {
    this.changed.push({ table, row, reason });
  }

  disable(table: ReportTable, row: string, reason: string): void {
    this.disabled.push({ table, row, reason });
  }

  /** A field with a value and no equivalent here (its value is never printed: it may be a secret). */
  noEquivalent(table: ReportTable, field: string, row: string): void {
    const key = `${table}\u0000${field}`;
    const entry = this.unmapped.get(key) ?? { table, field, rows: 0, examples: [] };
    entry.rows++;
    if (entry.examples.length < 3) entry.examples.push(row);
    this.unmapped.set(key, entry);
  }

  notice(text: string): void {
    this.notices.push(text);
  }

  /** The quota sums agree: what the imported users held in the source is what they hold here. */
  get quotaAgrees(): boolean {
    return this.quota.sourceImported === this.quota.importedAfter;
  }

  toJSON() {
    return {
      source: this.source,
      target: this.target,
      product: this.product,
      version: this.version,
      dryRun: this.dryRun,
      merge: this.mergeMode,
      counts: Object.fromEntries(this.counts),
      skipped: this.skipped,
      changed: this.changed,
      disabled: this.disabled,
      noEquivalent: [...this.unmapped.values()],
      notices: this.notices,
      quota: { ...this.quota, agrees: this.quotaAgrees },
      durationMs: this.durationMs,
      logsPerSecond: this.logRate,
    };
  }
}
