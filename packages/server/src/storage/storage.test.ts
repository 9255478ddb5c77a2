import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../test-support/databases.js';
import type { Storage } from './database.js';
import { DELETE_BATCH, LogsRepository } from './repositories/logs.js';
import { OptionsRepository } from './repositories/options.js';
import { UsersRepository } from './repositories/users.js';

const baseUser = {
  password: 'x',
  display_name: '',
  role: 1,
  status: 1,
  email: '',
  github_id: '',
  wechat_id: '',
  lark_id: '',
  access_token: null,
  quota: 0,
  used_quota: 0,
  request_count: 0,
  group: 'default',
  inviter_id: 0,
  created_at: 0,
};

describe.each(testDatabases())('storage on $name', (database) => {
  let storage: Storage & { drop(): Promise<void> };
  let users: UsersRepository;
  beforeAll(async () => {
    storage = await database.open();
    users = new UsersRepository(storage.db);
  });
  afterAll(async () => {
    await storage?.drop();
  });

  it('creates every table of the schema', async () => {
    for (const table of ['users', 'tokens', 'channels', 'abilities', 'redemptions', 'logs', 'options', 'quota_reservations'] as const) {
      const rows = await storage.db.selectFrom(table).selectAll().execute();
      expect(rows).toEqual([]);
    }
  });

  it('inserts users, keeps usernames unique and stores 64-bit quotas as numbers', async () => {
    const id = await users.insert({ ...baseUser, username: 'alice', aff_code: 'AAAA', email: 'alice@example.com', quota: 500_000_000_000_000 });
    expect(id).toBeGreaterThan(0);
    const row = await users.findById(id);
    expect(row?.quota).toBe(500_000_000_000_000);
    expect(typeof row?.quota).toBe('number');
    await expect(users.insert({ ...baseUser, username: 'alice', aff_code: 'BBBB' })).rejects.toThrow();
    expect((await users.findByEmail('alice@example.com'))?.id).toBe(id);
    expect((await users.findByAffCode('AAAA'))?.id).toBe(id);
  });

  it('adds quota atomically under concurrency', async () => {
    const id = await users.insert({ ...baseUser, username: 'counter', aff_code: 'CCCC' });
    await Promise.all(Array.from({ length: 50 }, () => users.addQuota(id, 7)));
    expect((await users.findById(id))?.quota).toBe(350);
  });

  it('pages ten per page, orders by the requested column and searches by prefix or id', async () => {
    for (let i = 0; i < 12; i++) {
      await users.insert({ ...baseUser, username: `page_${i}`, aff_code: `P${i}`, quota: i * 10, used_quota: 100 - i });
    }
    const first = await users.list(0, '');
    expect(first).toHaveLength(10);
    expect(first[0].id).toBeGreaterThan(first[1].id);
    const byQuota = await users.list(0, 'quota');
    expect(byQuota[0].username).toBe('alice');
    const byUsed = await users.list(0, 'used_quota');
    expect(byUsed[0].username).toBe('page_0');
    const found = await users.search('page_1');
    expect(found.map((u) => u.username).sort()).toEqual(['page_1', 'page_10', 'page_11']);
    // "_" is literal, not a wildcard
    expect(await users.search('page%')).toEqual([]);
    const alice = await users.findByUsername('alice');
    expect((await users.search(String(alice!.id))).some((u) => u.id === alice!.id)).toBe(true);
  });

  it('deletes a user together with their tokens', async () => {
    const id = await users.insert({ ...baseUser, username: 'gone', aff_code: 'GONE' });
    await storage.db
      .insertInto('tokens')
      .values({ user_id: id, key: 'k'.repeat(48), status: 1, name: 't', created_time: 0, accessed_time: 0, expired_time: -1, remain_quota: 0, unlimited_quota: 0, used_quota: 0, request_count: 0, models: '', subnet: '' })
      .execute();
    await users.delete(id);
    expect(await users.findById(id)).toBeUndefined();
    expect(await storage.db.selectFrom('tokens').selectAll().where('user_id', '=', id).execute()).toEqual([]);
  });

  it('upserts options', async () => {
    const options = new OptionsRepository(storage.db);
    await options.set('SystemName', 'A');
    await options.set('SystemName', 'B');
    expect((await options.all()).get('SystemName')).toBe('B');
    expect(await options.get('missing')).toBeUndefined();
  });

  it('filters logs, sums consumed quota and deletes history before a time', async () => {
    const logs = new LogsRepository(storage.db, storage.dialect);
    await logs.insert({ user_id: 1, username: 'alice', type: 2, created_at: 100, quota: 10, model_name: 'gpt-4o', token_name: 't1' });
    await logs.insert({ user_id: 1, username: 'alice', type: 2, created_at: 200, quota: 20, model_name: 'gpt-4o-mini', token_name: 't1' });
    await logs.insert({ user_id: 2, username: 'bob', type: 1, created_at: 300, quota: 1000 });
    expect(await logs.list({}, 0)).toHaveLength(3);
    expect(await logs.list({ type: 2, username: 'alice', modelName: 'gpt-4o' }, 0)).toHaveLength(1);
    expect(await logs.list({ startTimestamp: 150, endTimestamp: 250 }, 0)).toHaveLength(1);
    expect(await logs.sumQuota({ userId: 1 })).toBe(30);
    expect(await logs.sumQuota({ username: 'bob' })).toBe(0);
    expect(await logs.deleteBefore(250)).toBe(2);
    expect(await logs.list({}, 0)).toHaveLength(1);
  });

  it('a large cleanup deletes in batches, oldest first, and keeps every newer row', async () => {
    const logs = new LogsRepository(storage.db, storage.dialect);
    await storage.db.deleteFrom('logs').execute();
    const old = 2 * DELETE_BATCH + 7;
    const rows = Array.from({ length: old + 50 }, (_, i) => ({ user_id: 1, username: 'alice', type: 2, created_at: 1_000 + i, quota: 1 }));
    for (let i = 0; i < rows.length; i += 500) await storage.db.insertInto('logs').values(rows.slice(i, i + 500)).execute();
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    expect(await logs.deleteBefore(1_000 + old)).toBe(old);
    clearInterval(ticker);
    expect(turns).toBeGreaterThan(0); // the event loop turned while it ran
    const left = await storage.db.selectFrom('logs').select('created_at').orderBy('created_at').execute();
    expect(left).toHaveLength(50);
    expect(left[0].created_at).toBe(1_000 + old);
    expect(await logs.deleteBefore(1_000 + old)).toBe(0);
  });
});
