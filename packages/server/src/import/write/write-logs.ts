import { LogType } from '@model-relay/contract';
import type { Transaction } from 'kysely';
import { hourOf, writeRollups, type Rollup } from '../../billing/rollup-writer.js';
import type { Dialect } from '../../storage/database.js';
import { RawSql } from '../../storage/raw-sql.js';
import { LogsRepository } from '../../storage/repositories/logs.js';
import type { Database } from '../../storage/schema.js';
import { mapLog, type LogIdMaps } from '../map/map-logs.js';
import { int } from '../map/values.js';
import type { ProgressBar } from '../report/progress-bar.js';
import type { ImportReport } from '../report/import-report.js';
import type { Product } from '../source/detect-product.js';
import type { SourceDatabase } from '../source/open-source.js';

/** Rollup rows the import writes carry this instance id (rollups are summed over instances). */
export const IMPORT_INSTANCE = 'import';

/**
 * Copies the source's logs with ids after `afterId`, `batchSize` at a time, and adds the consume and error logs
 * to the hourly usage rollups the dashboard reads. Returns the last source log id copied. With `write` off (a dry
 * run) it only counts.
 */
export async function copyLogs(options: {
  source: SourceDatabase;
  product: Product;
  trx?: Transaction<Database>;
  dialect: Dialect;
  ids: LogIdMaps;
  afterId: number;
  batchSize: number;
  report: ImportReport;
  progress: ProgressBar;
  checkpoint?: (table: string) => void;
}): Promise<number> {
  const { source, product, trx, ids, report, progress } = options;
  const raw = new RawSql(options.dialect);
  /** The logs table's one writer (storage/repositories/logs.ts). */
  const writer = trx ? new LogsRepository(trx, options.dialect) : undefined;
  const total = int((await source.query(`select count(*) as n from ${source.id('logs')} where id > ?`, [options.afterId]))[0]?.n);
  report.count('logs', 'read', total);
  progress.start('日志', total);
  let last = options.afterId;
  let done = 0;
  for (;;) {
    const rows = await source.query(`select * from ${source.id('logs')} where id > ? order by id limit ${Math.max(1, Math.trunc(options.batchSize))}`, [last]);
    if (rows.length === 0) break;
    const logs = rows.map((row) => mapLog(product, row, ids));
    last = int(rows[rows.length - 1].id);
    if (trx) {
      await writer?.insertMany(logs, trx);
      const rollups = new Map<string, Rollup>();
      for (const log of logs) {
        if (log.type !== LogType.Consume && log.type !== LogType.Error) continue;
        const hour = hourOf(log.created_at);
        const model = String(log.model_name ?? '');
        const key = `${hour}\u0000${log.user_id}\u0000${log.token_id}\u0000${model}\u0000${log.channel_id}`;
        let rollup = rollups.get(key);
        if (!rollup) {
          rollup = { hour, userId: log.user_id, tokenId: log.token_id, model, channelId: log.channel_id, requests: 0, failures: 0, prompt: 0, completion: 0, cached: 0, reasoning: 0, quota: 0, latency: 0 };
          rollups.set(key, rollup);
        }
        if (log.type === LogType.Error) rollup.failures++;
        else rollup.requests++;
        rollup.prompt += Number(log.prompt_tokens ?? 0);
        rollup.completion += Number(log.completion_tokens ?? 0);
        rollup.cached += Number(log.cached_tokens ?? 0);
        rollup.quota += log.quota;
        rollup.latency += Number(log.elapsed_time ?? 0);
      }
      await writeRollups(raw, trx, options.dialect, IMPORT_INSTANCE, rollups);
      report.count('usage_rollups', 'inserted', rollups.size);
      report.count('logs', 'inserted', logs.length);
    }
    done += rows.length;
    progress.update(done);
    options.checkpoint?.('logs');
  }
  progress.finish();
  return last;
}
