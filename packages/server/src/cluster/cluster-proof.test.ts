import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../storage/database.js';
import { createServerDatabase } from '../test-support/databases.js';
import { serverBuilt, startInstance, type Instance } from '../test-support/instances.js';
import { startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';

/**
 * The proof that several instances behave as one gateway (issue 10): three real server processes on one
 * PostgreSQL (then one MariaDB) database and one Redis, 1,200 concurrent requests spread over them on keys with
 * limited quota, upstream faults injected (errors, slow answers, broken streams). Money must add up exactly,
 * an option change must reach every instance within a second, and an instance killed mid-load must leave
 * nothing behind: within 30 s its reservations are settled by the survivors, nothing lost or charged twice.
 */
const servers = [
  { name: 'PostgreSQL', kind: 'postgres' as const, admin: process.env.TEST_PG_DSN },
  { name: 'MariaDB', kind: 'mysql' as const, admin: process.env.TEST_MYSQL_DSN },
].filter((s) => s.admin);
const redisUrl = process.env.TEST_REDIS_URL;

describe.skipIf(!redisUrl || !serverBuilt() || servers.length === 0).each(servers)('three instances on $name and Redis', ({ kind, admin }) => {
  let database: Awaited<ReturnType<typeof createServerDatabase>>;
  let storage: Storage;
  let mock: MockUpstream;
  let instances: Instance[] = [];
  const users: Array<{ id: number; quota: number }> = [];
  const keys: Array<{ id: number; key: string; userId: number; quota: number }> = [];

  beforeAll(async () => {
    database = await createServerDatabase(kind, admin!);
    mock = await startMockUpstream();
    const env = { SQL_DSN: database.dsn, REDIS_CONN_STRING: redisUrl!, SESSION_SECRET: 'cluster-proof', RELAY_TIMEOUT_SECONDS: '60' };
    // The first instance migrates the database and creates root; the others join it.
    instances.push(await startInstance(env));
    storage = await openStorage({ dsn: database.dsn });
    await setOption(instances[0], 'RetryTimes', '2');
    await setOption(instances[0], 'PreConsumedQuota', '50');
    await setOption(instances[0], 'ModelRatio', JSON.stringify({ 'gpt-4o-mini': 0.075, 'endless-model': 1 }));
    await setOption(instances[0], 'CompletionRatio', JSON.stringify({ 'gpt-4o-mini': 4, 'endless-model': 1 }));
    // Faults: the highest tier always fails (every request retries), one channel is slow, one breaks its streams.
    await seedChannel(storage, { name: 'failing', key: 'fail-500', baseUrl: mock.url, models: 'gpt-4o-mini', priority: 10 });
    await seedChannel(storage, { name: 'slow', key: 'lag', baseUrl: mock.url, models: 'gpt-4o-mini', weight: 1 });
    await seedChannel(storage, { name: 'good', key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini', weight: 1 });
    await seedChannel(storage, { name: 'breaking', key: 'break', baseUrl: mock.url, models: 'gpt-4o-mini', weight: 1 });
    await seedChannel(storage, { name: 'endless', key: 'endless', baseUrl: mock.url, models: 'endless-model' });
    for (let u = 0; u < 8; u++) {
      const quota = u < 6 ? 200_000 : 2_000;
      const id = await seedUser(storage, `load${u}`, quota, `LOAD${u}`);
      users.push({ id, quota });
      // Two of the keys hold little: many of their requests must be refused, none may overdraw.
      const keyQuota = u < 6 ? 60_000 : 600;
      const token = await seedToken(storage, id, { remain_quota: keyQuota });
      keys.push({ ...token, userId: id, quota: keyQuota });
    }
    instances.push(await startInstance(env), await startInstance(env));
  }, 180_000);

  afterAll(async () => {
    for (const instance of instances) await instance.stop();
    await mock?.close();
    await storage?.close();
    await database?.drop();
  }, 60_000);

  async function setOption(instance: Instance, key: string, value: string): Promise<void> {
    const login = await fetch(`${instance.url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'root', password: '123456' }) });
    const cookie = String(login.headers.get('set-cookie')).split(';')[0];
    const saved = await fetch(`${instance.url}/api/option/`, { method: 'PUT', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ key, value }) });
    expect(((await saved.json()) as { success: boolean }).success).toBe(true);
  }

  async function chat(instance: Instance, key: string, model: string, stream: boolean) {
    const response = await fetch(`${instance.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream, max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.text();
    return response.status;
  }

  async function openReservations(): Promise<number> {
    return Number((await storage.db.selectFrom('quota_reservations').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  }

  async function settledWithin(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if ((await openReservations()) === 0) return true;
      await new Promise((r) => setTimeout(r, 200));
    }
    return false;
  }

  /** Every unit taken from a key or a user is in exactly one consume log, and nothing is negative. */
  async function expectMoneyAddsUp(): Promise<void> {
    // The hourly rollups (written with the logs, per instance) say the same as the logs.
    const sum = async (table: 'logs' | 'usage_rollups') => Number((await storage.db.selectFrom(table).select((eb) => eb.fn.sum<number>('quota').as('q')).executeTakeFirstOrThrow()).q ?? 0);
    expect(await sum('usage_rollups')).toBe(await sum('logs'));
    for (const key of keys) {
      const token = await storage.db.selectFrom('tokens').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
      const logs = await storage.db.selectFrom('logs').select(['quota']).where('token_id', '=', key.id).where('type', '=', 2).execute();
      const sum = logs.reduce((total, log) => total + Number(log.quota), 0);
      expect(Number(token.remain_quota)).toBeGreaterThanOrEqual(0);
      expect(key.quota - Number(token.remain_quota)).toBe(sum);
      expect(Number(token.used_quota)).toBe(sum);
      expect(Number(token.request_count)).toBe(logs.length);
    }
    for (const user of users) {
      const row = await storage.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
      const logs = await storage.db.selectFrom('logs').select(['quota']).where('user_id', '=', user.id).where('type', '=', 2).execute();
      const sum = logs.reduce((total, log) => total + Number(log.quota), 0);
      expect(Number(row.quota)).toBeGreaterThanOrEqual(0);
      expect(user.quota - Number(row.quota)).toBe(sum);
      expect(Number(row.request_count)).toBe(logs.length);
    }
  }

  it('1,200 concurrent requests over three instances, with faults: quotas, logs and counts agree exactly', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 1_200 }, (_, i) => chat(instances[i % 3], keys[i % keys.length].key, 'gpt-4o-mini', i % 4 === 0)),
    );
    const counts = statuses.reduce<Record<number, number>>((all, s) => ({ ...all, [s]: (all[s] ?? 0) + 1 }), {});
    expect(Object.keys(counts).sort()).toEqual(Object.keys(counts).filter((s) => s === '200' || s === '429').sort());
    expect(counts[200]).toBeGreaterThan(900);
    expect(await settledWithin(20_000)).toBe(true);
    const logged = await storage.db.selectFrom('logs').select((eb) => eb.fn.countAll().as('n')).where('type', '=', 2).executeTakeFirstOrThrow();
    expect(Number(logged.n)).toBe(counts[200]);
    await expectMoneyAddsUp();
    // the failing tier was tried and left for another channel on every request
    expect(mock.requests.filter((r) => r.key === 'fail-500').length).toBeGreaterThanOrEqual(counts[200]);
  }, 180_000);

  it('a key with 10 requests per minute: a burst of 30 over the three instances lets exactly 10 through', async () => {
    const limited = await seedToken(storage, users[0].id, { remain_quota: 1_000_000 });
    await storage.db.updateTable('tokens').set({ rpm_limit: 10 }).where('id', '=', limited.id).execute();
    const statuses = await Promise.all(Array.from({ length: 30 }, (_, i) => chat(instances[i % 3], limited.key, 'gpt-4o-mini', false)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    // the eleventh request is refused on every instance
    for (const instance of instances) expect(await chat(instance, limited.key, 'gpt-4o-mini', false)).toBe(429);
    expect(await settledWithin(5_000)).toBe(true);
  }, 60_000);

  it('a price changed through one instance is what the others charge within a second', async () => {
    await setOption(instances[0], 'ModelRatio', JSON.stringify({ 'gpt-4o-mini': 1.5, 'endless-model': 1 }));
    await new Promise((r) => setTimeout(r, 1_000));
    const key = keys[0];
    const before = await storage.db.selectFrom('logs').select('id').where('token_id', '=', key.id).orderBy('id', 'desc').executeTakeFirst();
    for (const instance of instances.slice(1)) expect(await chat(instance, key.key, 'gpt-4o-mini', false)).toBe(200);
    expect(await settledWithin(5_000)).toBe(true);
    const fresh = await storage.db.selectFrom('logs').selectAll().where('token_id', '=', key.id).where('id', '>', before?.id ?? 0).execute();
    // ceil((12 + 10 x 4) x 1.5) = 78 on every instance (0.075 would have been 4)
    expect(fresh.map((log) => Number(log.quota))).toEqual([78, 78]);
  }, 60_000);

  it('an instance killed mid-stream: the survivors settle all it held within 30 s, nothing lost or charged twice', async () => {
    const victim = instances[1];
    const key = keys[1];
    const streams = Array.from({ length: 150 }, () =>
      fetch(`${victim.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'endless-model', stream: true, max_tokens: 200, messages: [{ role: 'user', content: 'tell me a long story' }] }),
      }).then(
        async (response) => {
          try {
            await response.text();
          } catch {
            /* the instance died under it */
          }
          return response.status;
        },
        () => 0,
      ),
    );
    // Streams report what they delivered every two seconds: kill once every one of them has.
    const reporting = async () =>
      Number((await storage.db.selectFrom('quota_reservations').select((eb) => eb.fn.countAll().as('n')).where('delivered_chars', '>', 0).executeTakeFirstOrThrow()).n);
    const deadline = Date.now() + 30_000;
    while ((await reporting()) < 150 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await reporting()).toBe(150);
    victim.process.kill('SIGKILL');
    await victim.exited;
    const killedAt = Date.now();
    await Promise.all(streams);
    expect(await settledWithin(30_000 - (Date.now() - killedAt))).toBe(true);
    const takeovers = await storage.db.selectFrom('logs').selectAll().where('token_id', '=', key.id).where('model_name', '=', 'endless-model').execute();
    expect(takeovers).toHaveLength(150);
    // every stream had delivered words when the instance died: each is charged something, never beyond its hold
    for (const log of takeovers) {
      expect(log.content).toContain('实例中断');
      expect(Number(log.quota)).toBeGreaterThan(0);
    }
    await expectMoneyAddsUp();
    instances = instances.filter((i) => i !== victim);
  }, 120_000);
});
