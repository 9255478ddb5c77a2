import { LogType } from '@model-relay/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { buildSource, FIXTURE } from '../test-support/import/build-source.js';
import type { SourceKind } from '../test-support/import/source-schemas.js';
import { createTarget, targetKinds, type TargetKind } from '../test-support/import/targets.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { runImport } from './run-import.js';

/**
 * Each product from each kind of source database into each of ours: one-api and new-api each come from a different
 * source dialect for every target, so every source dialect meets every target and both products reach each target.
 */
const available = targetKinds();
const pick = (wanted: TargetKind): TargetKind => (available.includes(wanted) ? wanted : 'sqlite');
const CASES: Array<{ target: TargetKind; product: SourceKind; from: TargetKind }> = available.flatMap((target) => {
  const rotation: Record<TargetKind, [TargetKind, TargetKind]> = { sqlite: ['sqlite', 'postgres'], postgres: ['mysql', 'sqlite'], mysql: ['postgres', 'mysql'] };
  const [oneApiFrom, newApiFrom] = rotation[target];
  return [
    { target, product: 'one-api' as const, from: pick(oneApiFrom) },
    { target, product: 'new-api' as const, from: pick(newApiFrom) },
  ];
});

let upstream: MockUpstream;
beforeAll(async () => {
  upstream = await startMockUpstream();
});
afterAll(async () => {
  await upstream.close();
});

async function settledBalances(t: TestApp, userId: number, tokenId: number) {
  const db = t.ctx.storage.db;
  for (let i = 0; i < 250; i++) {
    const open = await db.selectFrom('quota_reservations').select('id').where('status', '=', 'open').execute();
    const logs = await db.selectFrom('logs').select('id').where('token_id', '=', tokenId).where('type', '=', LogType.Consume).where('request_id', 'not like', 'req-%').execute();
    if (open.length === 0 && logs.length >= 2) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const user = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
  const token = await db.selectFrom('tokens').selectAll().where('id', '=', tokenId).executeTakeFirstOrThrow();
  return { quota: Number(user.quota), remain: Number(token.remain_quota) };
}

describe.each(CASES)('$product on $from into $target', ({ target, product, from }) => {
  it('brings users, keys, channels, options, codes and logs over; old passwords log in, old keys relay and are billed', async () => {
    const source = await buildSource(product, from, upstream.url);
    const db = await createTarget(target);
    let app: TestApp | undefined;
    try {
      // A fresh server start first: its root / 123456 account alone still counts as an empty target.
      const fresh = await createTestApp(db.env);
      await fresh.close();

      const report = await runImport({ source: source.location, env: db.env, withLogs: true, batchSize: 16 });
      expect(report.product).toBe(product);
      expect(report.quota.sourceUsers).toBe(source.quotaSum);
      expect(report.quotaAgrees).toBe(true);
      expect(report.quota.targetAfter).toBe(source.quotaSum);
      expect(report.counts.get('logs')?.inserted).toBe(FIXTURE.consumeLogs + (product === 'new-api' ? 2 : 1));

      app = await createTestApp(db.env);
      const rows = app.ctx.storage.db;
      // Users: fields, the deleted one banned with its balance, the case twin renamed.
      const alice = await rows.selectFrom('users').selectAll().where('id', '=', 2).executeTakeFirstOrThrow();
      expect(alice).toMatchObject({ username: 'alice', display_name: 'Alice', email: 'alice@example.com', github_id: 'gh-alice', wechat_id: 'wx-alice', group: 'vip', aff_code: 'ALIC', inviter_id: 1, role: 1, status: 1 });
      expect(Number(alice.quota)).toBe(FIXTURE.aliceQuota);
      expect(Number(alice.used_quota)).toBe(300);
      expect(alice.lark_id).toBe(product === 'one-api' ? 'lark-alice' : '');
      expect(alice.password.startsWith('$2a$10$')).toBe(true);
      const carol = await rows.selectFrom('users').selectAll().where('username', '=', 'carol').executeTakeFirstOrThrow();
      expect([carol.status, Number(carol.quota)]).toEqual([2, 5000]);
      if (from !== 'mysql') {
        const twin = await rows.selectFrom('users').selectAll().where('id', '=', 4).executeTakeFirstOrThrow();
        expect(twin.username).toBe('Alice#4');
        expect(report.changed.some((n) => n.table === 'users' && n.reason.includes('Alice#4'))).toBe(true);
      }
      expect(await rows.selectFrom('users').select('id').where('username', '=', 'root').where('role', '=', 100).executeTakeFirst()).toEqual({ id: 1 });

      // Keys: statuses, scope, restrictions we cannot carry disable the key.
      const tokens = new Map((await rows.selectFrom('tokens').selectAll().execute()).map((t) => [t.key, t]));
      const k = FIXTURE.keys;
      expect([k.main, k.disabled, k.expired, k.exhausted, k.unlimited].map((key) => tokens.get(key)?.status)).toEqual([1, 2, 3, 4, 1]);
      expect(tokens.get(k.unlimited)?.unlimited_quota).toBe(1);
      expect(Number(tokens.get(k.main)?.remain_quota)).toBe(FIXTURE.mainKeyQuota);
      expect(tokens.get(k.scoped)).toMatchObject({ models: 'gpt-4o-mini', subnet: product === 'one-api' ? '10.0.0.0/8' : '10.0.0.0/8,192.168.1.1', status: 1 });
      expect(tokens.get(k.badSubnet)?.status).toBe(2);
      if (product === 'new-api') {
        expect(tokens.get(k.groupKey)?.status).toBe(2);
        expect(tokens.has(k.deleted)).toBe(false);
      }

      // Channels: types mapped, unsupported ones disabled with the reason, abilities derived, multi-key split.
      const channels = await rows.selectFrom('channels').selectAll().orderBy('id').execute();
      const byName = new Map(channels.map((c) => [c.name, c]));
      expect(byName.get('openai-mock')).toMatchObject({ type: 1, status: 1, key: 'ok', model_mapping: '{"gpt-4o":"gpt-4o-mini"}', group: 'default,vip', models: 'gpt-4o-mini,gpt-4o' });
      expect(Number(byName.get('openai-mock')?.priority)).toBe(10);
      expect(Number(byName.get('openai-mock')?.balance)).toBe(12.5);
      expect(byName.get('azure')).toMatchObject({ type: 3, status: 3, other: '2024-02-01' });
      expect(JSON.parse(byName.get('aws')?.config ?? '{}')).toMatchObject({ region: 'us-east-1', ak: 'AKIAEXAMPLE', sk: 'secretkey' });
      const vertex = byName.get('vertex');
      expect(vertex?.type).toBe(42);
      expect(JSON.parse(vertex?.config ?? '{}')).toMatchObject({ region: 'us-central1', vertex_ai_project_id: 'my-project-123' });
      expect(vertex?.key.startsWith('us-central1|my-project-123|{')).toBe(true);
      const unsupported = byName.get(product === 'new-api' ? 'midjourney' : 'replicate');
      expect([unsupported?.type, unsupported?.status]).toEqual([8, 2]);
      expect(unsupported?.test_error).toContain('没有对应类型');
      // Zhipu relays here now (its own /api/paas/v4 path): imported enabled, as it was
      expect([byName.get('zhipu')?.type, byName.get('zhipu')?.status]).toEqual([16, 1]);
      expect(byName.get('deepseek')?.type).toBe(36);
      if (product === 'new-api') {
        expect(['multi #1', 'multi #2', 'multi #3'].map((n) => [byName.get(n)?.key, byName.get(n)?.status])).toEqual([['ok', 1], ['ok-two', 2], ['ok-three', 1]]);
        expect([...report.unmapped.values()].map((u) => u.field)).toEqual(expect.arrayContaining(['status_code_mapping', 'tag', 'telegram_id', 'ModelPrice']));
      }
      const abilities = await rows.selectFrom('abilities').selectAll().where('channel_id', '=', 1).execute();
      expect(abilities.map((a) => `${a.group}/${a.model}/${a.enabled}`).sort()).toEqual(['default/gpt-4o-mini/1', 'default/gpt-4o/1', 'vip/gpt-4o-mini/1', 'vip/gpt-4o/1']);

      // Options: validated, ratios merged into ours, secrets kept, the invalid one skipped.
      const options = app.ctx.options;
      expect(options.ratios('ModelRatio')).toMatchObject({ 'gpt-4o-mini': 0.3, 'custom-model': 2, 'gpt-4o': 1.25 });
      expect(options.ratios('GroupRatio')).toMatchObject({ default: 1, vip: 2 });
      expect([options.get('Notice'), options.get('SMTPToken'), options.get('GitHubClientSecret'), options.get('GitHubOAuthEnabled'), options.get('RegisterEnabled')]).toEqual(['系统公告：欢迎使用', 'smtp-secret', 'gh-secret', 'true', 'false']);
      expect(options.get('ChannelDisableThreshold')).toBe('5');
      expect(report.skipped.some((n) => n.table === 'options' && n.row === 'ChannelDisableThreshold')).toBe(true);
      if (product === 'new-api') expect(options.ratios('CacheReadRatio')['gpt-4o-mini']).toBe(0.5);

      // Codes.
      const codes = new Map((await rows.selectFrom('redemptions').selectAll().execute()).map((r) => [r.key, r]));
      expect([FIXTURE.codes.unused, FIXTURE.codes.used, FIXTURE.codes.disabled].map((c) => codes.get(c)?.status)).toEqual([1, 3, 2]);
      if (product === 'new-api') {
        expect(codes.get(FIXTURE.codes.used)?.used_user_id).toBe(2);
        expect(codes.get(FIXTURE.codes.expiring)?.status).toBe(2);
        expect(codes.has(FIXTURE.codes.deleted)).toBe(false);
      }

      // Logs and the rollups rebuilt from them.
      const rollup = await rows.selectFrom('usage_rollups').select((eb) => [eb.fn.sum<number>('requests').as('requests'), eb.fn.sum<number>('quota').as('quota')]).executeTakeFirstOrThrow();
      expect([Number(rollup.requests), Number(rollup.quota)]).toEqual([FIXTURE.consumeLogs, FIXTURE.consumeLogs * FIXTURE.logQuota]);

      // The old password logs in; the bcrypt hash becomes ours on that login, and the password still works.
      await app.login('alice', FIXTURE.passwords.alice);
      const upgraded = await rows.selectFrom('users').select('password').where('id', '=', 2).executeTakeFirstOrThrow();
      expect(upgraded.password.startsWith('$argon2id$')).toBe(true);
      await app.login('alice', FIXTURE.passwords.alice);
      await expect(app.login('alice', 'wrong-password')).rejects.toThrow();

      // The imported root logs in with its old password and the imported channel passes the channel test.
      const rootCookie = await app.login('root', FIXTURE.passwords.root);
      const tested = await app.call({ method: 'GET', url: '/api/channel/test/1', cookie: rootCookie });
      expect(tested.body).toMatchObject({ success: true });

      // The old key, with and without sk-, relays through the imported channel and is billed from the imported balance.
      for (const header of [`Bearer sk-${k.main}`, `Bearer ${k.main}`]) {
        const answer = await app.call({ method: 'POST', url: '/v1/chat/completions', headers: { authorization: header }, payload: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] } });
        expect(answer.status).toBe(200);
        expect(answer.body.choices[0].message.content).toBeTruthy();
      }
      const mainId = tokens.get(k.main)!.id;
      const after = await settledBalances(app, 2, mainId);
      const spent = FIXTURE.aliceQuota - after.quota;
      expect(spent).toBeGreaterThan(0);
      expect(FIXTURE.mainKeyQuota - after.remain).toBe(spent);

      // A server running on an SQLite target is detected and the import refused; once it stopped, a second run
      // finds a target with data and refuses without --merge.
      if (target === 'sqlite') await expect(runImport({ source: source.location, env: db.env, merge: 'skip' })).rejects.toThrow(/正在使用这个 SQLite 数据库/);
      await app.close();
      app = undefined;
      await expect(runImport({ source: source.location, env: db.env })).rejects.toThrow(/--merge=skip/);
    } finally {
      await app?.close();
      await db.drop();
      await source.drop();
    }
  });
});
