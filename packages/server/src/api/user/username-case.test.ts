import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogType } from '@model-relay/contract';
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, schemaMigrations } from '../../storage/database.js';
import { UsersRepository } from '../../storage/repositories/users.js';
import { testDsns } from '../../test-support/databases.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

// covers issue 19 item 6: usernames are unique without regard to case, on every database
describe.each(testDsns())('usernames that differ only in case on $name', (database) => {
  let t: TestApp;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const created = await database.create();
    drop = created.drop;
    t = await createTestApp(created.env);
    await t.ctx.options.set('RegisterEnabled', 'true');
  });
  afterAll(async () => {
    await t.close();
    await drop();
  });
  const register = (username: string) => t.call({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123', password2: 'password123' } });
  const login = (username: string) => t.call({ method: 'POST', url: '/api/user/login', payload: { username, password: 'password123' } });

  it('a second account whose name differs only in case is refused, by registration and by an admin', async () => {
    expect((await register('Alice')).body.success).toBe(true);
    expect((await register('alice')).body).toMatchObject({ success: false, message: '用户名已存在' });
    expect((await register('ALICE')).body).toMatchObject({ success: false, message: '用户名已存在' });
    const root = await t.login('root', '123456');
    expect((await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'aLiCe', password: 'password123' } })).body).toMatchObject({ success: false, message: '用户名已存在' });
    expect((await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'Root', password: 'password123' } })).body).toMatchObject({ success: false, message: '用户名已存在' });
    const count = await t.ctx.storage.db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).where(sql`lower(username)`, '=', 'alice').executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('login matches the name whatever its case; a rename to another case of one\'s own name is allowed, to another\'s is not', async () => {
    expect((await login('aLICE')).body).toMatchObject({ success: true, data: { username: 'Alice' } });
    const cookie = await t.login('alice', 'password123');
    expect((await t.call({ method: 'PUT', url: '/api/user/self', cookie, payload: { username: 'ALICE' } })).body.success).toBe(true);
    expect((await login('ALICE')).body).toMatchObject({ success: true, data: { username: 'ALICE' } });
    expect((await register('bob')).body.success).toBe(true);
    const bob = await t.login('bob', 'password123');
    expect((await t.call({ method: 'PUT', url: '/api/user/self', cookie: bob, payload: { username: 'alice' } })).body).toMatchObject({ success: false, message: '用户名已存在' });
  });
});

// covers issue 19 item 6: the migration keeps existing twins and reports them to the admin
describe.each(testDsns())('the username migration on $name', (database) => {
  it('twins that already exist are kept, log in with their own names, and a system log names them', async () => {
    const created = await database.create();
    const dir = mkdtempSync(join(tmpdir(), 'mr-twins-'));
    const options = created.env.SQL_DSN ? { dsn: created.env.SQL_DSN } : { sqlitePath: join(dir, 'gateway.db') };
    try {
      // The schema as it was before the migration, with accounts an older version let in.
      const storage = await openStorage(options);
      const migrator = new Migrator({ db: storage.db, provider: { getMigrations: async () => schemaMigrations(storage.dialect) }, allowUnorderedMigrations: true });
      expect((await migrator.migrateTo('006-usage')).error).toBeUndefined();
      // MySQL's collation never let case twins in: there the migration only adds the key.
      const names = storage.dialect === 'mysql' ? ['Zoe'] : ['Zoe', 'zoe', 'ZOE'];
      for (const [i, username] of names.entries()) {
        await sql`insert into users (username, password, display_name, role, status, email, github_id, wechat_id, lark_id, quota, used_quota, request_count, ${sql.ref('group')}, aff_code, inviter_id, created_at)
          values (${username}, ${'$2a$10$abcdefghijklmnopqrstuuJ1nIw0J3wNM7hkZ1kIYM4bTPoz3w5gy'}, '', 1, 1, '', '', '', '', 0, 0, 0, 'default', ${`TWIN${i}`}, 0, 0)`.execute(storage.db);
      }
      await storage.close();

      const migrated = await openStorage(options);
      try {
        const rows = await migrated.db.selectFrom('users').select(['id', 'username', 'username_key']).where('username', 'in', names).orderBy('id').execute();
        expect(rows.map((r) => r.username)).toEqual(names);
        expect(rows[0].username_key).toBe('zoe');
        for (const twin of rows.slice(1)) expect(twin.username_key).toBe(`zoe#${twin.id}`);
        const users = new UsersRepository(migrated.db);
        for (const name of names) expect((await users.findForLogin(name))?.username).toBe(name);
        expect((await users.findForLogin('zOe'))?.username).toBe('Zoe');
        const notices = await migrated.db.selectFrom('logs').select('content').where('type', '=', LogType.System).execute();
        if (names.length > 1) expect(notices.some((n) => n.content?.includes('Zoe / zoe / ZOE'))).toBe(true);
        else expect(notices.some((n) => n.content?.includes('仅大小写不同'))).toBe(false);
      } finally {
        await migrated.close();
      }
    } finally {
      await created.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
