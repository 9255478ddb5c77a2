import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { optional } from '../lib/optional-modules.js';
import { sql } from 'kysely';
import { loadConfig } from '../config.js';
import { dialectOf, openStorage, type Storage } from '../storage/database.js';
import { ImportError } from './import-error.js';
import { mapChannel, type MappedChannel } from './map/map-channels.js';
import { mapOptions, type MergeMode } from './map/map-options.js';
import { mapRedemption, type MappedRedemption } from './map/map-redemptions.js';
import { mapToken, type MappedToken } from './map/map-tokens.js';
import { mapUser } from './map/map-users.js';
import { int, str } from './map/values.js';
import { planImport } from './plan/plan-import.js';
import { ImportReport } from './report/import-report.js';
import { silentProgress, type ProgressBar } from './report/progress-bar.js';
import { detectProduct, type SourceSchema } from './source/detect-product.js';
import { hidePassword, openSource, type SourceDatabase, type SourceRow } from './source/open-source.js';
import { emptyTarget, readTarget, type TargetState } from './write/read-target.js';
import { copyLogs } from './write/write-logs.js';
import { resetSequences, setOption, writePlan } from './write/write-plan.js';

export interface ImportOptions {
  /** SQLite path, mysql:// or postgres:// URL, or one-api's user:pass@tcp(host:port)/db. */
  source: string;
  /** The environment the server reads its database from (SQLITE_PATH / SQL_DSN, REDIS_CONN_STRING). */
  env: NodeJS.ProcessEnv;
  dryRun?: boolean;
  merge?: 'skip' | 'overwrite';
  withLogs?: boolean;
  /** Logs per batch (read and written). */
  batchSize?: number;
  progress?: ProgressBar;
  /** Lines of progress for a person ("检测到 ..."). */
  say?: (line: string) => void;
  /** Called between tables inside the transaction; the tests make it throw to prove a failure leaves nothing. */
  checkpoint?: (table: string) => void;
}

const INSTANCE_LEASES = 'instance:%';
const CLUSTER_ID_KEY = 'internal.ClusterId';

/** Imports a one-api or new-api database into this gateway's database (or, with dryRun, says what it would do). */
export async function runImport(options: ImportOptions): Promise<ImportReport> {
  const started = Date.now();
  const say = options.say ?? (() => undefined);
  const report = new ImportReport();
  report.dryRun = Boolean(options.dryRun);
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(options.env);
  } catch (error) {
    throw new ImportError(`目标数据库配置有误：${error instanceof Error ? error.message : String(error)}`, 2);
  }
  const dialect = (() => {
    try {
      return dialectOf(config.SQL_DSN);
    } catch {
      throw new ImportError('SQL_DSN 必须以 postgres:// 或 mysql:// 开头（不设置则使用 SQLite，路径见 SQLITE_PATH）', 2);
    }
  })();
  report.target = dialect === 'sqlite' ? `SQLite ${config.SQLITE_PATH}` : hidePassword(config.SQL_DSN ?? '');

  const source = await openSource(options.source);
  let storage: Storage | undefined;
  try {
    report.source = source.label;
    const schema = await detectProduct(source);
    report.product = schema.product;
    report.version = schema.version;
    say(`检测到 ${schema.version}，来源：${source.label}（${source.dialect}）`);

    // The target: a dry run never creates or migrates it.
    let target: TargetState;
    if (options.dryRun && dialect === 'sqlite' && (config.SQLITE_PATH === ':memory:' || !existsSync(config.SQLITE_PATH))) {
      target = emptyTarget();
    } else {
      storage = await openStorage({ dsn: config.SQL_DSN, sqlitePath: config.SQLITE_PATH, migrate: !options.dryRun }).catch((error: unknown) => {
        throw new ImportError(`无法打开目标数据库 ${report.target}：${error instanceof Error ? error.message : String(error)}`);
      });
      target = await readTarget(storage.db).catch(() => emptyTarget());
      const live = await liveInstances(storage);
      if (live > 0 && dialect === 'sqlite') {
        const text = '检测到 Model Relay 正在使用这个 SQLite 数据库（有存活的实例），请先停止服务再导入';
        if (!options.dryRun) throw new ImportError(text);
        report.notice(`${text}（试运行不受影响）`);
      } else if (live > 0 && !config.REDIS_CONN_STRING) {
        report.notice(`目标数据库上有 ${live} 个正在运行的实例且未配置 REDIS_CONN_STRING：令牌、用户和渠道在 ${config.RELAY_CACHE_MS} 毫秒内生效，设置项需要重启这些实例才会生效`);
      }
    }
    say(`目标：${report.target}${target.empty ? '（空库）' : `（已有用户 ${target.counts.users}、令牌 ${target.counts.tokens}、渠道 ${target.counts.channels}、兑换码 ${target.counts.redemptions}）`}`);
    let mode: MergeMode = options.merge ?? 'none';
    if (!target.empty && !options.merge) {
      const text = `目标数据库不是空的（用户 ${target.counts.users}、令牌 ${target.counts.tokens}、渠道 ${target.counts.channels}、兑换码 ${target.counts.redemptions}、使用日志 ${target.counts.logs}）；请用 --merge=skip（保留目标已有的，跳过冲突）或 --merge=overwrite（用源数据覆盖冲突）说明如何处理同名用户和相同密钥`;
      if (!options.dryRun) throw new ImportError(text);
      report.notice(`${text}。本次试运行按 --merge=skip 计算`);
      mode = 'skip';
    }
    if (!target.empty) report.mergeMode = mode;
    if (target.freshRootId !== undefined) report.notice('目标中只有首次启动创建的 root / 123456 账户：它将被源数据库的用户取代');

    const input = await readAndMap(source, schema, target, mode, report);
    const plan = planImport(input, target, mode, report);
    for (const key of plan.options.keys()) report.count('options', target.options.has(key) ? 'updated' : 'inserted');
    report.quota.sourceImported = plan.importedQuota;
    report.quota.targetBefore = target.quotaTotal;
    const replaced = [...plan.users.update.map((u) => u.id), ...(plan.deleteUserId !== undefined ? [plan.deleteUserId] : [])];
    report.quota.targetAfter = target.quotaTotal - target.users.filter((u) => replaced.includes(u.id)).reduce((s, u) => s + u.quota, 0) + plan.importedQuota;

    const fingerprint = await sourceFingerprint(source, schema);
    const positionKey = `internal.Import.${fingerprint}.LastLogId`;
    const afterId = Number(target.options.get(positionKey) ?? 0) || 0;
    if (options.withLogs && afterId > 0) report.notice(`此前已从同一来源导入过日志（到源日志 #${afterId}），本次只导入之后的日志`);
    const ids = {
      user: (id: number) => plan.ids.users.get(id) ?? 0,
      token: (id: number) => plan.ids.tokens.get(id) ?? 0,
      channel: (id: number) => plan.ids.channels.get(id) ?? 0,
      channelName: (id: number) => plan.ids.channelNames.get(id) ?? '',
    };
    const progress = options.progress ?? silentProgress;
    const batchSize = options.batchSize ?? 2000;

    if (options.dryRun || !storage) {
      if (options.withLogs && schema.tables.has('logs')) {
        await copyLogs({ source, product: schema.product, dialect, ids, afterId, batchSize, report, progress: silentProgress });
      }
      report.durationMs = Date.now() - started;
      return report;
    }

    const checkpoint = options.checkpoint ?? (() => undefined);
    let logMillis = 0;
    await storage.db.transaction().execute(async (trx) => {
      await writePlan(trx, plan, report, checkpoint);
      if (options.withLogs && schema.tables.has('logs')) {
        const logStart = Date.now();
        const last = await copyLogs({ source, product: schema.product, trx, dialect, ids, afterId, batchSize, report, progress, checkpoint });
        logMillis = Date.now() - logStart;
        if (last > afterId) await setOption(trx, positionKey, String(last));
      }
      await resetSequences(trx, dialect);
      const written = [...plan.users.insert, ...plan.users.update].map((u) => u.id);
      let sum = 0;
      for (let i = 0; i < written.length; i += 500) {
        const row = await trx.selectFrom('users').select(sql<string | number>`coalesce(sum(quota), 0)`.as('q')).where('id', 'in', written.slice(i, i + 500)).executeTakeFirst();
        sum += Number(row?.q ?? 0);
      }
      report.quota.importedAfter = sum;
      if (!report.quotaAgrees) throw new ImportError(`额度核对失败：源数据库中这些用户的额度合计 ${plan.importedQuota}，写入后为 ${sum}；已回滚，目标数据库没有任何改动`);
    });
    const after = await storage.db.selectFrom('users').select(sql<string | number>`coalesce(sum(quota), 0)`.as('q')).executeTakeFirst();
    report.quota.targetAfter = Number(after?.q ?? 0);
    const logs = report.counts.get('logs')?.inserted ?? 0;
    if (logs > 0 && logMillis > 0) report.logRate = Math.round((logs * 1000) / logMillis);
    await tellRunningInstances(storage, config.REDIS_CONN_STRING, report);
    report.durationMs = Date.now() - started;
    return report;
  } finally {
    await source.close().catch(() => undefined);
    await storage?.close().catch(() => undefined);
  }
}

async function readAndMap(source: SourceDatabase, schema: SourceSchema, target: TargetState, mode: MergeMode, report: ImportReport) {
  const all = (table: string): Promise<SourceRow[]> => (schema.tables.has(table) ? source.query(`select * from ${source.id(table)} order by ${table === 'options' ? source.id('key') : 'id'}`) : Promise.resolve([]));
  const product = schema.product;
  const userRows = await all('users');
  report.count('users', 'read', userRows.length);
  const users = userRows.map((row) => mapUser(product, row, report));
  report.quota.sourceUsers = users.reduce((sum, u) => sum + u.values.quota, 0);
  const groups = new Map(users.map((u) => [u.sourceId, u.values.group]));

  const tokenRows = await all('tokens');
  report.count('tokens', 'read', tokenRows.length);
  const tokens = tokenRows.map((row) => mapToken(product, row, groups.get(int(row.user_id)), report)).filter((t): t is MappedToken => t !== undefined);

  const channelRows = await all('channels');
  report.count('channels', 'read', channelRows.length);
  const channels: MappedChannel[] = channelRows.flatMap((row) => mapChannel(product, row, report));

  const codeRows = await all('redemptions');
  report.count('redemptions', 'read', codeRows.length);
  const redemptions = codeRows.map((row) => mapRedemption(product, row, report)).filter((r): r is MappedRedemption => r !== undefined);

  const optionRows = await all('options');
  report.count('options', 'read', optionRows.length);
  const sourceOptions = new Map(optionRows.map((row) => [str(row.key), str(row.value)]));
  const options = await mapOptions(sourceOptions, target.options, mode, report);
  for (const table of ['midjourneys', 'tasks', 'top_ups', 'quota_data', 'two_fas', 'passkey_credentials', 'subscriptions']) {
    if (!schema.tables.has(table)) continue;
    const count = int((await source.query(`select count(*) as n from ${source.id(table)}`))[0]?.n);
    if (count > 0) report.noEquivalent('options', `表 ${table}（${count} 行）`, '整表');
  }
  return { users, tokens, channels, redemptions, options };
}

/** Instances whose liveness lease has not expired (SQL leases: instances without Redis). */
async function liveInstances(storage: Storage): Promise<number> {
  try {
    const row = await storage.db
      .selectFrom('cluster_leases')
      .select(sql<number>`count(*)`.as('n'))
      .where('name', 'like', INSTANCE_LEASES)
      .where('expires_at', '>', Date.now())
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  } catch {
    return 0;
  }
}

/** Names the source across runs (wherever its file moved): the product and its first account. */
async function sourceFingerprint(source: SourceDatabase, schema: SourceSchema): Promise<string> {
  const first = (await source.query(`select id, username, password from ${source.id('users')} order by id limit 1`))[0] ?? {};
  return createHash('sha256').update(`${schema.product}\u0000${str(first.id)}\u0000${str(first.username)}\u0000${str(first.password)}`).digest('hex').slice(0, 16);
}

/**
 * Running instances keep options in memory and cache keys, users and channels for a second: through Redis they are
 * told to drop everything (the cluster's own invalidation message, cluster/event-bus.ts).
 */
async function tellRunningInstances(storage: Storage, redisUrl: string | undefined, report: ImportReport): Promise<void> {
  if (!redisUrl) return;
  const clusterId = (await storage.db.selectFrom('options').select('value').where('key', '=', CLUSTER_ID_KEY).executeTakeFirst())?.value;
  if (!clusterId) return;
  const redis = new (optional.ioredis().Redis)(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.publish(`mr:${clusterId}:cluster-events`, JSON.stringify({ from: 'import', event: { kind: 'all' } }));
    report.notice('已通过 Redis 通知正在运行的实例重新加载设置和缓存');
  } catch (error) {
    report.notice(`无法通过 Redis 通知正在运行的实例（${error instanceof Error ? error.message : String(error)}）：请重启它们以加载导入的设置`);
  } finally {
    redis.disconnect();
  }
}
