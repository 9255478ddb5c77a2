import { writeFileSync } from 'node:fs';
import { ImportError } from './import-error.js';
import { formatSummary } from './report/print-summary.js';
import { terminalProgress } from './report/progress-bar.js';
import { runImport, type ImportOptions } from './run-import.js';

export const USAGE = `用法：npm run import -- <来源> [选项]
      node packages/server/dist/import.js <来源> [选项]

把 one-api 或 new-api 的数据库导入本网关的数据库（目标与服务相同：SQLITE_PATH，或 SQL_DSN=postgres://… / mysql://…）。

<来源>：one-api / new-api 的数据库
  ./one-api.db                         SQLite 文件
  mysql://user:pass@host:3306/oneapi   MySQL / MariaDB
  postgres://user:pass@host:5432/db    PostgreSQL
  'user:pass@tcp(host:3306)/oneapi'    one-api 自己的 SQL_DSN 写法

选项：
  --dry-run               只检查并列出将要导入的内容和发现的问题，不写入任何数据
  --merge=skip|overwrite  目标已有数据时必须指定：skip 保留目标已有的（同名用户、相同密钥跳过），overwrite 用源数据覆盖
  --with-logs             同时导入使用日志（分批，带进度），并据此重建用量汇总；重复运行只导入新的日志
  --batch-size=N          每批日志条数（默认 2000）
  --report-file=路径      把完整报告写成 JSON 文件
  -h, --help              显示本说明

退出码：0 完成，1 失败（目标数据库保持原样），2 用法错误`;

export interface CliArguments {
  source: string;
  dryRun: boolean;
  merge?: 'skip' | 'overwrite';
  withLogs: boolean;
  batchSize?: number;
  reportFile?: string;
  help: boolean;
}

export function parseArguments(argv: readonly string[]): CliArguments {
  const args: CliArguments = { source: '', dryRun: false, withLogs: false, help: false };
  const sources: string[] = [];
  for (const arg of argv) {
    const [name, value] = arg.startsWith('--') ? [arg.split('=')[0], arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : undefined] : [arg, undefined];
    if (name === '-h' || name === '--help') args.help = true;
    else if (name === '--dry-run' && value === undefined) args.dryRun = true;
    else if (name === '--with-logs' && value === undefined) args.withLogs = true;
    else if (name === '--merge') {
      if (value !== 'skip' && value !== 'overwrite') throw new ImportError('--merge 只能是 --merge=skip 或 --merge=overwrite', 2);
      args.merge = value;
    } else if (name === '--batch-size') {
      const n = Number(value);
      if (!value || !Number.isInteger(n) || n < 1 || n > 100_000) throw new ImportError('--batch-size 必须是 1 到 100000 之间的整数，例如 --batch-size=2000', 2);
      args.batchSize = n;
    } else if (name === '--report-file') {
      if (!value) throw new ImportError('--report-file 需要一个文件路径，例如 --report-file=import-report.json', 2);
      args.reportFile = value;
    } else if (arg.startsWith('-')) throw new ImportError(`未知选项：${arg}`, 2);
    else sources.push(arg);
  }
  if (args.help) return args;
  if (sources.length === 0) throw new ImportError('缺少来源：请给出 one-api / new-api 的数据库（SQLite 文件路径、mysql://、postgres:// 或 user:pass@tcp(host:port)/db）', 2);
  if (sources.length > 1) throw new ImportError(`只能有一个来源，收到了 ${sources.length} 个：${sources.join(' ')}`, 2);
  args.source = sources[0];
  return args;
}

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  progress?: ImportOptions['progress'];
}

/** The command: parses, imports, prints the summary. Returns the exit code; never throws. */
export async function runImportCli(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo = { out: (t) => console.log(t), err: (t) => console.error(t), progress: terminalProgress() }): Promise<number> {
  let args: CliArguments;
  try {
    args = parseArguments(argv);
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    io.out(USAGE);
    return 0;
  }
  try {
    const report = await runImport({
      source: args.source,
      env,
      dryRun: args.dryRun,
      merge: args.merge,
      withLogs: args.withLogs,
      batchSize: args.batchSize,
      progress: io.progress,
      say: io.out,
    });
    io.out(formatSummary(report));
    if (args.reportFile) writeFileSync(args.reportFile, JSON.stringify(report, null, 2));
    return 0;
  } catch (error) {
    if (error instanceof ImportError) {
      io.err(`导入失败：${error.message}`);
      return error.exitCode;
    }
    // Anything unexpected: the message, never the stack; the transaction was rolled back.
    io.err(`导入失败：${error instanceof Error ? error.message : String(error)}\n目标数据库没有任何改动（导入在一个事务中进行，已回滚）。`);
    return 1;
  }
}
