import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../storage/database.js';
import { addLogs, buildSource, FIXTURE, insertRow, type BuiltSource } from '../test-support/import/build-source.js';
import { createTarget, snapshot, targetKinds } from '../test-support/import/targets.js';
import { createTestApp } from '../test-support/test-app.js';
import { runImportCli } from './import-cli.js';
import { parseSource } from './source/open-source.js';
import { runImport } from './run-import.js';

const UPSTREAM = 'http://127.0.0.1:9';
let oneApi: BuiltSource;
let newApi: BuiltSource;
beforeAll(async () => {
  [oneApi, newApi] = await Promise.all([buildSource('one-api', 'sqlite', UPSTREAM), buildSource('new-api', 'sqlite', UPSTREAM)]);
});
afterAll(async () => {
  await oneApi?.drop();
  await newApi?.drop();
});

/** A target that a server has started on once (root / 123456, its settings secret and cluster id). */
async function freshTarget(kind: Parameters<typeof createTarget>[0] = 'sqlite') {
  const target = await createTarget(kind);
  const app = await createTestApp(target.env);
  await app.close();
  return target;
}

const quotaOf = async (env: Record<string, string>, username: string) => {
  const storage = await openStorage({ dsn: env.SQL_DSN, sqlitePath: env.SQLITE_PATH });
  try {
    return Number((await storage.db.selectFrom('users').select('quota').where('username', '=', username).executeTakeFirst())?.quota);
  } finally {
    await storage.close();
  }
};

describe('safe by default', () => {
  it('a dry run reports everything it would do and every problem, and writes nothing (not even a new file)', async () => {
    const target = await freshTarget();
    try {
      const before = await snapshot(target.env);
      const report = await runImport({ source: newApi.location, env: target.env, dryRun: true, withLogs: true });
      expect(await snapshot(target.env)).toBe(before);
      expect(report.counts.get('users')).toMatchObject({ read: 5, inserted: 5 });
      expect(report.counts.get('logs')).toMatchObject({ read: FIXTURE.consumeLogs + 2, inserted: 0 });
      expect(report.disabled.some((n) => n.table === 'channels' && n.row.includes('midjourney'))).toBe(true);
      expect(report.quota.targetAfter).toBe(newApi.quotaSum);

      const missing = join(target.env.SQLITE_PATH, '..', 'never.db');
      await runImport({ source: oneApi.location, env: { SQLITE_PATH: missing }, dryRun: true });
      expect(existsSync(missing)).toBe(false);
    } finally {
      await target.drop();
    }
  });

  it.each(targetKinds())('a failure half-way leaves the %s target exactly as it was', async (kind) => {
    const target = await freshTarget(kind);
    try {
      const before = await snapshot(target.env);
      for (const at of ['channels', 'logs']) {
        const failing = (table: string) => {
          if (table === at) throw new Error(`injected failure after ${table}`);
        };
        await expect(runImport({ source: oneApi.location, env: target.env, withLogs: true, batchSize: 10, checkpoint: failing })).rejects.toThrow(/injected failure/);
        expect(await snapshot(target.env)).toBe(before);
      }
      // And the same import then succeeds on it.
      const report = await runImport({ source: oneApi.location, env: target.env, withLogs: true });
      expect(report.quotaAgrees).toBe(true);
    } finally {
      await target.drop();
    }
  });

  it('re-runs: --merge=skip keeps what is there and copies only the new logs; --merge=overwrite takes the source rows', async () => {
    const source = await buildSource('one-api', 'sqlite', UPSTREAM);
    const target = await freshTarget();
    try {
      const first = await runImport({ source: source.location, env: target.env, withLogs: true });
      expect(first.counts.get('logs')?.inserted).toBe(FIXTURE.consumeLogs + 1);

      await addLogs(source.db, 'one-api', 2000, 5, Math.floor(Date.now() / 1000) - 600);
      await insertRow(source.db, 'one-api', 'users', { id: 9, username: 'dave', password: 'x', display_name: '', role: 1, status: 1, email: '', github_id: '', wechat_id: '', lark_id: '', quota: 777, used_quota: 0, request_count: 0, group: 'default', aff_code: 'DAVE', inviter_id: 2 });
      await source.db.exec(`update users set quota = 42 where username = 'alice'`);

      await expect(runImport({ source: source.location, env: target.env })).rejects.toThrow(/--merge/);
      const skip = await runImport({ source: source.location, env: target.env, merge: 'skip', withLogs: true });
      expect(skip.counts.get('logs')?.inserted).toBe(5);
      expect(skip.counts.get('users')).toMatchObject({ inserted: 1, skipped: 5 });
      expect(skip.quotaAgrees).toBe(true);
      expect(skip.quota.importedAfter).toBe(777);
      expect(await quotaOf(target.env, 'alice')).toBe(FIXTURE.aliceQuota);
      expect(await quotaOf(target.env, 'dave')).toBe(777);

      const again = await runImport({ source: source.location, env: target.env, merge: 'skip', withLogs: true });
      expect(again.counts.get('logs')?.read ?? 0).toBe(0);

      const overwrite = await runImport({ source: source.location, env: target.env, merge: 'overwrite' });
      expect(overwrite.counts.get('users')?.updated).toBe(6);
      expect(overwrite.quotaAgrees).toBe(true);
      expect(await quotaOf(target.env, 'alice')).toBe(42);
      const storage = await openStorage({ sqlitePath: target.env.SQLITE_PATH });
      try {
        const dave = await storage.db.selectFrom('users').selectAll().where('username', '=', 'dave').executeTakeFirstOrThrow();
        expect(dave.inviter_id).toBe(2);
        expect(await storage.db.selectFrom('tokens').select('id').where('key', '=', FIXTURE.keys.main).execute()).toHaveLength(1);
      } finally {
        await storage.close();
      }
    } finally {
      await target.drop();
      await source.drop();
    }
  });

  it('running instances are told over Redis to reload', async () => {
    const redisUrl = process.env.TEST_REDIS_URL;
    if (!redisUrl) return;
    const target = await freshTarget();
    const storage = await openStorage({ sqlitePath: target.env.SQLITE_PATH });
    const clusterId = (await storage.db.selectFrom('options').select('value').where('key', '=', 'internal.ClusterId').executeTakeFirstOrThrow()).value;
    await storage.close();
    const listener = new Redis(redisUrl);
    try {
      const heard = new Promise<string>((resolve) => listener.on('message', (_channel, message: string) => resolve(message)));
      await listener.subscribe(`mr:${clusterId}:cluster-events`);
      const report = await runImport({ source: newApi.location, env: { ...target.env, REDIS_CONN_STRING: redisUrl } });
      expect(JSON.parse(await heard)).toEqual({ from: 'import', event: { kind: 'all' } });
      expect(report.notices.join()).toContain('Redis');
    } finally {
      listener.disconnect();
      await target.drop();
    }
  });
});

describe('the command', () => {
  const capture = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) } };
  };

  it('prints a Chinese summary, writes the report file, and answers 0 / 1 / 2 without a stack trace', async () => {
    const target = await freshTarget();
    try {
      const done = capture();
      const reportFile = join(target.env.SQLITE_PATH, '..', 'report.json');
      expect(await runImportCli([oneApi.location, '--with-logs', `--report-file=${reportFile}`], target.env, done.io)).toBe(0);
      const text = done.out.join('\n');
      expect(text).toContain('检测到 one-api（表结构相当于 v0.6.11 预览版或更新）');
      expect(text).toMatch(/用户\s*读取 5，新增 5/);
      expect(text).toContain('与源数据库一致 ✓');
      expect(text).toContain('本网关没有对应功能、未导入的字段和设置');
      expect(text).toContain('OidcEnabled');
      expect(text).not.toContain('smtp-secret');
      const json = JSON.parse(readFileSync(reportFile, 'utf8')) as { quota: { agrees: boolean }; counts: Record<string, unknown> };
      expect(json.quota.agrees).toBe(true);

      const refused = capture();
      expect(await runImportCli([oneApi.location], target.env, refused.io)).toBe(1);
      expect(refused.err.join()).toContain('目标数据库不是空的');

      for (const argv of [[], ['--merge=maybe', oneApi.location], [oneApi.location, '--batch-size=0'], [oneApi.location, '--bogus'], ['a.db', 'b.db']]) {
        const bad = capture();
        expect(await runImportCli(argv, target.env, bad.io)).toBe(2);
        expect(bad.err.join()).toContain('用法');
      }
      const missing = capture();
      expect(await runImportCli(['/nonexistent/one-api.db'], target.env, missing.io)).toBe(1);
      expect(missing.err.join()).toBe('导入失败：找不到源数据库文件：/nonexistent/one-api.db');
      const notOneApi = capture();
      expect(await runImportCli([target.env.SQLITE_PATH, '--dry-run'], { SQLITE_PATH: join(target.env.SQLITE_PATH, '..', 'x.db') }, notOneApi.io)).toBe(1);
      expect(notOneApi.err.join()).toContain('Model Relay 自己的数据库');
      expect(notOneApi.err.join()).not.toMatch(/\n\s+at /);
    } finally {
      await target.drop();
    }
  });

  it('reads older one-api schemas and one-api’s own DSN form', async () => {
    const old = await buildSource('one-api-0.5', 'sqlite', UPSTREAM);
    const target = await createTarget('sqlite');
    try {
      const report = await runImport({ source: old.location, env: target.env });
      expect(report.version).toContain('v0.5.x');
      expect(report.quotaAgrees).toBe(true);
      expect(report.counts.get('tokens')?.inserted).toBe(8);
    } finally {
      await target.drop();
      await old.drop();
    }
    expect(parseSource('root:p@ss@tcp(db.local:3306)/oneapi?charset=utf8mb4&parseTime=True')).toEqual({ dialect: 'mysql', location: 'mysql://root:p%40ss@db.local:3306/oneapi' });
    expect(parseSource('postgres://u:p@h/db').dialect).toBe('postgres');
    expect(() => parseSource('redis://x')).toThrow(/不支持/);
  });
});
