import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDsns } from '../test-support/databases.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { MAX_PAGE, idParam, pageOf, queryInteger } from './validate.js';

const refused = (fn: () => unknown) => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

// covers issue 10 defects 8 and 9: loose coercion; 500s on p=1e308 and 2^63
describe('query and path helpers', () => {
  it('pages: empty is 0, huge is capped, junk is refused in Chinese', () => {
    expect(pageOf({})).toBe(0);
    expect(pageOf({ p: '' })).toBe(0);
    expect(pageOf({ p: '3' })).toBe(3);
    expect(pageOf({ p: '9223372036854775808' })).toBe(MAX_PAGE);
    for (const p of ['1e308', '-1', '1.5', '0x1', ' 1', 'abc', ['1', '2']]) expect(refused(() => pageOf({ p })), String(p)).toMatch(/页码|参数 p/);
  });

  it('integers and ids in query strings and paths', () => {
    expect(queryInteger({ t: '42' }, 't')).toBe(42);
    expect(queryInteger({}, 't')).toBeUndefined();
    expect(refused(() => queryInteger({ t: '1e308' }, 't'))).toBe('参数 t 必须是 0 到 9007199254740991 之间的整数');
    expect(refused(() => queryInteger({ t: '-5' }, 't'))).toBeDefined();
    expect(idParam({ id: '15' }, '渠道')).toBe(15);
    for (const id of ['0x1', ' 15 ', '15.0', '0', '-1', '2147483648', 'abc']) expect(refused(() => idParam({ id }, '渠道')), id).toBe('无效的渠道 ID');
  });
});

for (const database of testDsns()) {
  describe(`strict input through the API on ${database.name}`, () => {
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

    it('PUT /api/user/ {"id":true} edits nobody; [15], "0xf", " 15 " are refused', async () => {
      await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'amy', password: 'password123' } });
      for (const id of [true, [1], '0x1', ' 1 ', 1.5, null]) {
        const res = await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id, display_name: 'hacked' } });
        expect(res.body, JSON.stringify(id)).toMatchObject({ success: false, message: '无效的用户 ID' });
      }
      const rootRow = await t.ctx.repositories.users.findById(1);
      expect(rootRow?.display_name).toBe('Root User');
    });

    it('quota null / "" / [] is refused rather than set to 0; unlimited_quota "false" is refused', async () => {
      const amy = await t.ctx.repositories.users.findByUsername('amy');
      await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id: amy!.id, quota: 700 } });
      for (const quota of [null, '', [], true, 1e308]) {
        const res = await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id: amy!.id, quota } });
        expect(res.body.success, JSON.stringify(quota)).toBe(false);
      }
      expect(Number((await t.ctx.repositories.users.findById(amy!.id))?.quota)).toBe(700);
      const key = await t.call({ method: 'POST', url: '/api/token/', cookie: root, payload: { name: 'k', unlimited_quota: 'false' } });
      expect(key.body).toMatchObject({ success: false, message: '参数 unlimited_quota 必须是 true 或 false' });
      expect(await t.ctx.storage.db.selectFrom('tokens').selectAll().execute()).toEqual([]);
    });

    it('GET /api/channel/0x1 and other non-canonical ids are refused', async () => {
      await t.call({ method: 'POST', url: '/api/channel/', cookie: root, payload: { name: 'c', key: 'k', models: 'gpt-4o' } });
      const id = (await t.call({ method: 'GET', url: '/api/channel/', cookie: root })).body.data[0].id;
      expect((await t.call({ method: 'GET', url: `/api/channel/${id}`, cookie: root })).body.success).toBe(true);
      for (const bad of [`0x${id.toString(16)}`, `%20${id}%20`, `${id}.0`, '99999999999', '-1']) {
        const res = await t.call({ method: 'GET', url: `/api/channel/${bad}`, cookie: root });
        expect(res.body, bad).toMatchObject({ success: false, message: '无效的渠道 ID' });
      }
      const toggled = await t.call({ method: 'PUT', url: '/api/channel/', cookie: root, payload: { id: true, status: 2 } });
      expect(toggled.body).toMatchObject({ success: false, message: '无效的渠道 ID' });
    });

    it('paged lists, filters and searches never answer 500 for absurd numbers', async () => {
      const lists = ['/api/user/', '/api/token/', '/api/channel/', '/api/log/', '/api/log/self/'];
      for (const list of lists) {
        for (const p of ['1e308', String(2n ** 63n), '-1', 'abc', '999999999999999999999']) {
          const res = await t.call({ method: 'GET', url: `${list}?p=${encodeURIComponent(p)}`, cookie: root });
          expect(res.status, `${list} p=${p}`).toBeLessThan(500);
          if (res.body.success) expect(res.body.data).toEqual([]);
          else expect(res.body.message).toBe('页码 p 必须是非负整数');
        }
      }
      for (const query of ['type=99999999999', 'channel=1e308', 'start_timestamp=1e308', 'end_timestamp=9223372036854775808', 'token_name=' + 'x'.repeat(300)]) {
        const res = await t.call({ method: 'GET', url: `/api/log/?${query}`, cookie: root });
        expect(res.status, query).toBeLessThan(500);
        expect(res.body.success, query).toBe(false);
      }
      for (const keyword of ['99999999999', '2147483648']) {
        for (const url of ['/api/user/search', '/api/channel/search']) {
          const res = await t.call({ method: 'GET', url: `${url}?keyword=${keyword}`, cookie: root });
          expect(res.body, url).toMatchObject({ success: true, data: [] });
        }
      }
      const cleanup = await t.call({ method: 'DELETE', url: '/api/log/?target_timestamp=1e308', cookie: root });
      expect(cleanup.body).toMatchObject({ success: false, message: '参数 target_timestamp 必须是 1 到 9007199254740991 之间的整数' });
    });

    it('English validation internals become Chinese messages', async () => {
      const res = await t.call({ method: 'POST', url: '/api/token/', cookie: root, payload: { name: 'k', remain_quota: 1e308 } });
      expect(res.body).toMatchObject({ success: false, message: '额度必须是非负整数' });
      const nested = await t.call({ method: 'POST', url: '/api/token/', cookie: root, payload: { name: { a: 1 } } });
      expect(nested.body).toMatchObject({ success: false, message: '参数 name 必须是字符串' });
    });
  });
}
