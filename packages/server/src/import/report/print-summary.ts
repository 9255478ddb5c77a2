import { TABLE_NAMES, type ImportReport, type ReportTable, type RowNote } from './import-report.js';

const LIST_LIMIT = 50;

function notes(title: string, rows: RowNote[], lines: string[]): void {
  if (rows.length === 0) return;
  lines.push('', `${title}（${rows.length}）：`);
  for (const note of rows.slice(0, LIST_LIMIT)) lines.push(`  - ${TABLE_NAMES[note.table]} ${note.row}：${note.reason}`);
  if (rows.length > LIST_LIMIT) lines.push(`  ……另有 ${rows.length - LIST_LIMIT} 条，完整列表见 --report-file`);
}

/** The summary a person reads at the end (Chinese): counts per table, what was skipped and why, quota sums, what has no equivalent. */
export function formatSummary(report: ImportReport): string {
  const lines: string[] = [];
  lines.push(report.dryRun ? '== 试运行（--dry-run）：以下是将会执行的操作，目标数据库未写入任何内容 ==' : '== 导入完成 ==');
  lines.push(`来源：${report.source}（${report.version}）`, `目标：${report.target}`);
  if (report.mergeMode) lines.push(`合并方式：${report.mergeMode === 'skip' ? '跳过冲突（--merge=skip）' : '覆盖冲突（--merge=overwrite）'}`);
  lines.push('', '各表数量（读取 / 新增 / 更新 / 跳过）：');
  const verb = report.dryRun ? '将' : '';
  for (const table of Object.keys(TABLE_NAMES) as ReportTable[]) {
    const c = report.counts.get(table);
    if (!c) continue;
    lines.push(`  ${TABLE_NAMES[table].padEnd(6, '　')} 读取 ${c.read}，${verb}新增 ${c.inserted}，${verb}更新 ${c.updated}，跳过 ${c.skipped}`);
  }
  const q = report.quota;
  lines.push('', '用户额度合计：');
  lines.push(`  源数据库全部用户：${q.sourceUsers}（${verb}导入 ${q.sourceImported}，跳过 ${q.sourceSkipped}）`);
  if (!report.dryRun) {
    lines.push(`  导入的用户在目标中的合计：${q.importedAfter}${report.quotaAgrees ? '，与源数据库一致 ✓' : '，与源数据库不一致 ✗'}`);
    lines.push(`  目标全部用户：导入前 ${q.targetBefore}，导入后 ${q.targetAfter}`);
  } else {
    lines.push(`  目标全部用户：导入前 ${q.targetBefore}，导入后将为 ${q.targetAfter}`);
  }
  notes('跳过的行', report.skipped, lines);
  notes('以禁用状态导入', report.disabled, lines);
  notes('导入时有改动', report.changed, lines);
  if (report.unmapped.size > 0) {
    lines.push('', `本网关没有对应功能、未导入的字段和设置（${report.unmapped.size}）：`);
    for (const entry of report.unmapped.values()) {
      lines.push(`  - ${TABLE_NAMES[entry.table]} · ${entry.field}：${entry.rows} 处有值（例如 ${entry.examples.join('、')}）`);
    }
  }
  if (report.notices.length > 0) lines.push('', '提示：', ...report.notices.map((n) => `  - ${n}`));
  lines.push('', `用时 ${(report.durationMs / 1000).toFixed(1)} 秒${report.logRate ? `，日志 ${report.logRate} 条/秒` : ''}`);
  return lines.join('\n');
}
