import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDsns } from '../../test-support/databases.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

for (const database of testDsns()) {
  describe(`accounts under hostile use on ${database.name}`, () => {
    let t: TestApp;
    let root: string;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      const created = await database.create();
      drop = created.drop;
      t = await createTestApp(created.env);
      root = await t.login('root', '123456');
    });
    afterAll(async () => {
      await t.close();
      await drop();
    });

    // covers issue 10 defect 9: 10 parallel registrations of one name gave nine 500s
    it('ten parallel registrations of one name: one account, nine "用户名已存在", no 500', async () => {
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => t.call({ method: 'POST', url: '/api/user/register', payload: { username: 'racer', password: 'password123' } })),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      expect(answers.filter((a) => a.body.success)).toHaveLength(1);
      for (const answer of answers.filter((a) => !a.body.success)) expect(answer.body.message).toBe('用户名已存在');
      const rows = await t.ctx.storage.db.selectFrom('users').select('id').where('username', '=', 'racer').execute();
      expect(rows).toHaveLength(1);
      // and the same race through admin create and rename
      const creates = await Promise.all(
        Array.from({ length: 5 }, () => t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'twin', password: 'password123' } })),
      );
      expect(creates.every((a) => a.status === 200)).toBe(true);
      expect(creates.filter((a) => a.body.success)).toHaveLength(1);
    });

    // PostgreSQL refuses NUL in any text it is sent: such input must be refused before it reaches SQL.
    it('control characters in login, manage and search are refused before SQL, not answered 500', async () => {
      const login = await t.call({ method: 'POST', url: '/api/user/login', payload: { username: 'ro\u0000ot', password: 'x' } });
      expect(login).toEqual({ status: 200, body: { success: false, message: '无效的参数' } });
      const manage = await t.call({ method: 'POST', url: '/api/user/manage', cookie: root, payload: { username: 'a\u0000', action: 'disable' } });
      expect(manage.body).toEqual({ success: false, message: '参数 username 含有不允许的控制字符' });
      const search = await t.call({ method: 'GET', url: '/api/user/search?keyword=a%00', cookie: root });
      expect(search.body).toEqual({ success: false, message: '参数 keyword 含有不允许的控制字符' });
    });

    // covers issue 10 defect 10: look-alike and zero-width usernames
    it('registration, admin create and rename normalise names and refuse look-alikes', async () => {
      const register = (username: string) => t.call({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123' } });
      expect((await register('root\u200b')).body).toMatchObject({ success: false, message: '用户名不能包含不可见字符或控制字符' });
      expect((await register('r\u043e\u043et')).body).toMatchObject({ success: false, message: '用户名不能混用多种文字（例如拉丁字母与西里尔字母）' });
      expect((await register('ｒｏｏｔ')).body).toMatchObject({ success: false, message: '用户名已存在' });
      expect((await register('ｂｅｎ')).body.success).toBe(true);
      expect(await t.ctx.repositories.users.findByUsername('ben')).toBeDefined();
      const login = await t.call({ method: 'POST', url: '/api/user/login', payload: { username: 'ｂｅｎ', password: 'password123' } });
      expect(login.body.data.username).toBe('ben');

      const create = await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'adm\u200bin', password: 'password123' } });
      expect(create.body.success).toBe(false);
      const ben = await t.login('ben', 'password123');
      const rename = await t.call({ method: 'PUT', url: '/api/user/self', cookie: ben, payload: { username: '\u0440\u043e\u0441' } });
      expect(rename.body).toMatchObject({ success: false, message: '用户名与拉丁字母写法难以区分，请换一个' });
      const benId = (await t.ctx.repositories.users.findByUsername('ben'))!.id;
      const adminRename = await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id: benId, username: 'ro\u200dot' } });
      expect(adminRename.body.success).toBe(false);
      expect((await t.ctx.repositories.users.findById(benId))?.username).toBe('ben');
    });

    // An account imported from new-api may have a name of up to 20 characters: its forms send that name back unchanged.
    it('a longer imported name is kept when the account is edited; a new name still follows the rules', async () => {
      const register = await t.call({ method: 'POST', url: '/api/user/register', payload: { username: 'imported', password: 'password123' } });
      expect(register.body.success).toBe(true);
      const id = (await t.ctx.repositories.users.findByUsername('imported'))!.id;
      const longName = 'newapi_user_name_20c';
      await t.ctx.storage.db.updateTable('users').set({ username: longName }).where('id', '=', id).execute();

      const admin = await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id, username: longName, display_name: 'Imported', password: '', quota: 4321 } });
      expect(admin.body).toMatchObject({ success: true });
      const self = await t.login(longName, 'password123');
      const own = await t.call({ method: 'PUT', url: '/api/user/self', cookie: self, payload: { username: longName, display_name: 'Mine', password: '' } });
      expect(own.body).toMatchObject({ success: true });
      expect(await t.ctx.repositories.users.findById(id)).toMatchObject({ username: longName, display_name: 'Mine', quota: 4321 });

      const renamed = await t.call({ method: 'PUT', url: '/api/user/self', cookie: self, payload: { username: 'another_name_of_20ch' } });
      expect(renamed.body).toEqual({ success: false, message: '用户名长度不得超过 12 个字符' });
      const adminRenamed = await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id, username: '' } });
      expect(adminRenamed.body).toEqual({ success: false, message: '用户名不能为空' });
      expect((await t.ctx.repositories.users.findById(id))?.username).toBe(longName);
    });
  });
}

// covers issue 10 defect 10: login timing revealed which usernames exist (23 ms vs 4 ms)
describe('login timing', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('an unknown name takes as long as a wrong password, with the same answer', async () => {
    const attempt = async (username: string) => {
      const started = performance.now();
      const res = await t.call({ method: 'POST', url: '/api/user/login', payload: { username, password: 'wrong-password' } });
      return { ms: performance.now() - started, body: res.body };
    };
    await attempt('root');
    await attempt('nobody-here');
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 9; i++) {
      const a = await attempt('root');
      const b = await attempt(`ghost${i}`);
      expect(a.body).toEqual({ success: false, message: '用户名或密码错误，或用户已被封禁' });
      expect(b.body).toEqual(a.body);
      known.push(a.ms);
      unknown.push(b.ms);
    }
    const [k, u] = [median(known), median(unknown)];
    // Both verify one hash: the medians are within half of each other (before: an unknown name skipped it).
    expect(u / k, `known ${k.toFixed(1)} ms, unknown ${u.toFixed(1)} ms`).toBeGreaterThan(0.5);
    expect(u / k).toBeLessThan(2);
  });
});
