import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

let t: TestApp;
let root: string;

beforeEach(async () => {
  t = await createTestApp();
  root = await t.login('root', '123456');
});
afterEach(async () => {
  await t.close();
});

async function register(username: string, password = 'password123', extra: Record<string, unknown> = {}) {
  return t.call({ method: 'POST', url: '/api/user/register', payload: { username, password, password2: password, ...extra } });
}
async function setOption(key: string, value: string) {
  const res = await t.call({ method: 'PUT', url: '/api/option/', cookie: root, payload: { key, value } });
  expect(res.body.success).toBe(true);
}
async function userByName(username: string) {
  const res = await t.call({ method: 'GET', url: `/api/user/search?keyword=${username}`, cookie: root });
  return res.body.data.find((u: { username: string }) => u.username === username);
}

describe('first start', () => {
  it('creates the super admin root/123456 once', async () => {
    const self = await t.call({ method: 'GET', url: '/api/user/self', cookie: root });
    expect(self.body.data).toMatchObject({ username: 'root', role: 100, status: 1, group: 'default' });
    expect(await t.ctx.services.users.ensureRootUser()).toBe(false);
  });
});

describe('registration', () => {
  // covers S7-API-06, S3-ENTITY-12
  it('registers with the registration payload and logs in with username or email', async () => {
    const res = await register('alice', 'password123', { email: 'alice@example.com' });
    expect(res.body).toMatchObject({ success: true });
    // without e-mail verification the address is not kept (see api/verification); an admin may set it
    expect((await userByName('alice')).email).toBe('');
    await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id: (await userByName('alice')).id, email: 'alice@example.com' } });
    const login = await t.call({ method: 'POST', url: '/api/user/login', payload: { username: 'alice@example.com', password: 'password123' } });
    expect(login.body.success).toBe(true);
    expect(login.body.data).toMatchObject({ username: 'alice', role: 1, status: 1, display_name: 'alice' });
    expect(login.body.data.password).toBeUndefined();
    expect(login.body.data.access_token).toBeUndefined();
  });

  it('enforces the docs/console.md §5 rules on the server too', async () => {
    expect((await register('bob', 'short')).body).toMatchObject({ success: false, message: '密码长度不得小于 8 位！' });
    expect((await register('averyveryverylongname')).body.success).toBe(false);
    const mismatch = await t.call({ method: 'POST', url: '/api/user/register', payload: { username: 'bob', password: 'password123', password2: 'password124' } });
    expect(mismatch.body).toMatchObject({ success: false, message: '两次输入的密码不一致' });
    expect((await register('bob')).body.success).toBe(true);
    expect((await register('bob')).body).toMatchObject({ success: false, message: '用户名已存在' });
  });

  it('is refused when RegisterEnabled or PasswordRegisterEnabled is off', async () => {
    await setOption('RegisterEnabled', 'false');
    expect((await register('carol')).body).toMatchObject({ success: false, message: '管理员关闭了新用户注册' });
    await setOption('RegisterEnabled', 'true');
    await setOption('PasswordRegisterEnabled', 'false');
    expect((await register('carol')).body.success).toBe(false);
    await setOption('PasswordRegisterEnabled', 'true');
    expect((await register('carol')).body.success).toBe(true);
  });

  it('grants QuotaForNewUser, QuotaForInvitee and QuotaForInviter with a log row for each', async () => {
    await setOption('QuotaForNewUser', '100');
    await setOption('QuotaForInviter', '30');
    await setOption('QuotaForInvitee', '20');
    await register('inviter');
    const inviterCookie = await t.login('inviter', 'password123');
    const aff = await t.call({ method: 'GET', url: '/api/user/aff', cookie: inviterCookie });
    expect(aff.body.data).toMatch(/^[A-Za-z0-9]{4}$/);
    await register('invitee', 'password123', { aff_code: aff.body.data });
    expect((await userByName('inviter')).quota).toBe(130);
    const invitee = await userByName('invitee');
    expect(invitee.quota).toBe(120);
    expect(invitee.inviter_id).toBe((await userByName('inviter')).id);
    const logs = await t.ctx.storage.db.selectFrom('logs').selectAll().orderBy('id').execute();
    expect(logs.map((l) => [l.username, l.type, Number(l.quota)])).toEqual([
      ['inviter', 4, 100],
      ['invitee', 4, 100],
      ['invitee', 4, 20],
      ['inviter', 4, 30],
    ]);
  });
});

describe('login, session and system access token', () => {
  // covers S7-API-08, S7-API-09
  it('sets an HttpOnly SameSite=Lax cookie and logout clears it', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/user/login', payload: { username: 'root', password: '123456' } });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const out = await t.app.inject({ method: 'GET', url: '/api/user/logout' });
    expect(String(out.headers['set-cookie'])).toMatch(/session=;/);
  });

  it('rejects a wrong password, a banned user and a forged cookie', async () => {
    expect((await t.call({ method: 'POST', url: '/api/user/login', payload: { username: 'root', password: 'nope' } })).body.success).toBe(false);
    await register('dave');
    const dave = await t.login('dave', 'password123');
    await t.call({ method: 'POST', url: '/api/user/manage', cookie: root, payload: { username: 'dave', action: 'disable' } });
    expect((await t.call({ method: 'POST', url: '/api/user/login', payload: { username: 'dave', password: 'password123' } })).body.success).toBe(false);
    // an existing session stops working at once
    expect((await t.call({ method: 'GET', url: '/api/user/self', cookie: dave })).body).toMatchObject({ success: false, message: '用户已被封禁' });
    const forged = root.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await t.call({ method: 'GET', url: '/api/user/self', cookie: forged })).status).toBe(401);
  });

  it('refuses login when PasswordLoginEnabled is off', async () => {
    await setOption('PasswordLoginEnabled', 'false');
    const res = await t.call({ method: 'POST', url: '/api/user/login', payload: { username: 'root', password: '123456' } });
    expect(res.body).toMatchObject({ success: false, message: '管理员关闭了密码登录' });
  });

  // covers S7-API-16
  it('GET /api/user/token rotates a token usable as the Authorization header', async () => {
    const first = (await t.call({ method: 'GET', url: '/api/user/token', cookie: root })).body.data;
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    const viaToken = await t.call({ method: 'GET', url: '/api/user/self', headers: { authorization: first } });
    expect(viaToken.body.data.username).toBe('root');
    const viaBearer = await t.call({ method: 'GET', url: '/api/user/self', headers: { authorization: `Bearer ${first}` } });
    expect(viaBearer.body.data.username).toBe('root');
    const second = (await t.call({ method: 'GET', url: '/api/user/token', cookie: root })).body.data;
    expect(second).not.toBe(first);
    expect((await t.call({ method: 'GET', url: '/api/user/self', headers: { authorization: first } })).body.success).toBe(false);
  });

  it('answers 401 without a session', async () => {
    const res = await t.call({ method: 'GET', url: '/api/user/self' });
    expect(res.status).toBe(401);
    expect(res.body.success).toBe(false);
  });
});

describe('self service', () => {
  // covers S7-API-11, S7-API-13, S7-API-15, S7-API-17, S7-API-19
  it('reads, updates and deletes the own account', async () => {
    await register('erin');
    const erin = await t.login('erin', 'password123');
    const update = await t.app.inject({ method: 'PUT', url: '/api/user/self', headers: { cookie: erin }, payload: { username: 'erin', display_name: 'Erin E', password: 'newpassword1' } });
    expect(update.json().success).toBe(true);
    // The password change ended the old session; this client got a new one (covers issue 10, defect 7).
    expect((await t.call({ method: 'GET', url: '/api/user/self', cookie: erin })).status).toBe(401);
    const renewed = String(update.headers['set-cookie']).split(';')[0];
    expect((await t.call({ method: 'GET', url: '/api/user/self', cookie: renewed })).body.data.display_name).toBe('Erin E');
    expect((await t.call({ method: 'POST', url: '/api/user/login', payload: { username: 'erin', password: 'newpassword1' } })).body.success).toBe(true);
    expect((await t.call({ method: 'GET', url: '/api/user/available_models', cookie: renewed })).body.data).toEqual([]);
    const del = await t.call({ method: 'DELETE', url: '/api/user/self', cookie: renewed });
    expect(del.body.success).toBe(true);
    expect((await t.call({ method: 'GET', url: '/api/user/self', cookie: renewed })).status).toBe(401);
  });

  it('the super admin cannot delete itself', async () => {
    expect((await t.call({ method: 'DELETE', url: '/api/user/self', cookie: root })).body.success).toBe(false);
  });

  it('an ordinary user cannot change another user through the self route', async () => {
    await register('frank');
    const frank = await t.login('frank', 'password123');
    const res = await t.call({ method: 'PUT', url: '/api/user/self', cookie: frank, payload: { id: 1, username: 'root', display_name: 'x' } });
    expect(res.body).toMatchObject({ success: false, message: '用户名已存在' });
    expect((await userByName('root')).display_name).toBe('Root User');
  });
});

describe('admin user API', () => {
  // covers S7-API-03, S7-API-04, S7-API-10, S7-API-12, S7-API-14
  it('lists ten per page with order, searches, gets, creates and updates with quota and group', async () => {
    for (let i = 0; i < 11; i++) expect((await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: `u${i}`, password: 'password123', display_name: `U ${i}` } })).body.success).toBe(true);
    const page0 = await t.call({ method: 'GET', url: '/api/user/?p=0', cookie: root });
    expect(page0.body.data).toHaveLength(10);
    expect(page0.body.data[0].username).toBe('u10');
    const page1 = await t.call({ method: 'GET', url: '/api/user/?p=1', cookie: root });
    expect(page1.body.data.map((u: { username: string }) => u.username)).toEqual(['u0', 'root']);
    const byQuota = await t.call({ method: 'GET', url: '/api/user/?p=0&order=quota', cookie: root });
    expect(byQuota.body.data[0].username).toBe('root');

    const u3 = await userByName('u3');
    const update = await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id: u3.id, username: 'u3', display_name: 'Three', quota: 0, group: 'vip' } });
    expect(update.body.success).toBe(true);
    await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id: u3.id, quota: 4200 } });
    const got = await t.call({ method: 'GET', url: `/api/user/${u3.id}`, cookie: root });
    expect(got.body.data).toMatchObject({ display_name: 'Three', quota: 4200, group: 'vip' });
    const manageLog = await t.ctx.storage.db.selectFrom('logs').selectAll().where('type', '=', 3).execute();
    expect(manageLog).toHaveLength(1);
    expect(manageLog[0].content).toContain('4200');

    const search = await t.call({ method: 'GET', url: '/api/user/search?keyword=u1', cookie: root });
    expect(search.body.data.map((u: { username: string }) => u.username).sort()).toEqual(['u1', 'u10']);
  });

  it('rejects bad input with a Chinese message and writes nothing', async () => {
    const res = await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: '', password: 'password123' } });
    expect(res.body.success).toBe(false);
    const bad = await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id: 1, quota: 'lots' } });
    expect(bad.body.success).toBe(false);
    const malformed = await t.app.inject({ method: 'POST', url: '/api/user/', headers: { cookie: root, 'content-type': 'application/json' }, payload: '{oops' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ success: false, message: '请求体不是合法的 JSON' });
  });

  // covers S7-API-05, S4-STATES-01, S4-STATES-02, S4-STATES-03, S4-STATES-04
  it('manage: promote, demote, disable, enable and delete return the new role and status', async () => {
    await register('gina');
    const manage = (action: string, cookie = root, username = 'gina') =>
      t.call({ method: 'POST', url: '/api/user/manage', cookie, payload: { username, action } });
    expect((await manage('promote')).body.data).toEqual({ role: 10, status: 1 });
    expect((await manage('promote')).body).toMatchObject({ success: false, message: '该用户已经是管理员' });
    expect((await manage('demote')).body.data).toEqual({ role: 1, status: 1 });
    expect((await manage('disable')).body.data).toEqual({ role: 1, status: 2 });
    expect((await manage('enable')).body.data).toEqual({ role: 1, status: 1 });
    expect((await manage('delete')).body.success).toBe(true);
    expect(await userByName('gina')).toBeUndefined();
    expect((await manage('fly')).body.success).toBe(false);
  });

  it('role rules: only root promotes; admins act only on lower roles; role 100 cannot be disabled, demoted or deleted', async () => {
    await register('admin1');
    await register('admin2');
    await register('plain');
    for (const name of ['admin1', 'admin2']) await t.call({ method: 'POST', url: '/api/user/manage', cookie: root, payload: { username: name, action: 'promote' } });
    const admin1 = await t.login('admin1', 'password123');
    const manage = (username: string, action: string, cookie = admin1) =>
      t.call({ method: 'POST', url: '/api/user/manage', cookie, payload: { username, action } });
    expect((await manage('plain', 'promote')).body).toMatchObject({ success: false, message: '普通管理员用户无法提升其他用户为管理员' });
    expect((await manage('admin2', 'disable')).body.success).toBe(false);
    expect((await manage('admin2', 'demote')).body.success).toBe(false);
    expect((await manage('root', 'disable')).body.success).toBe(false);
    expect((await manage('plain', 'disable')).body.data).toEqual({ role: 1, status: 2 });
    for (const action of ['disable', 'demote', 'delete']) {
      expect((await manage('root', action, root)).body.success).toBe(false);
    }
    const rootRow = await userByName('root');
    expect(rootRow).toMatchObject({ role: 100, status: 1 });
    // admins cannot read or edit an equal or higher role
    const admin2 = await userByName('admin2');
    expect((await t.call({ method: 'GET', url: `/api/user/${admin2.id}`, cookie: admin1 })).body.success).toBe(false);
    expect((await t.call({ method: 'PUT', url: '/api/user/', cookie: admin1, payload: { id: rootRow.id, quota: 1 } })).body.success).toBe(false);
    expect((await userByName('root')).quota).toBe(rootRow.quota);
    // ...but can edit a lower one
    const plain = await userByName('plain');
    expect((await t.call({ method: 'PUT', url: '/api/user/', cookie: admin1, payload: { id: plain.id, quota: 77 } })).body.success).toBe(true);
  });

  // covers S7-API-21
  it('GET /api/group/ lists the GroupRatio groups', async () => {
    const res = await t.call({ method: 'GET', url: '/api/group/', cookie: root });
    expect(res.body.data).toEqual(['default', 'vip', 'svip']);
  });
});

describe('permissions are enforced on the server', () => {
  it('an ordinary user is refused by every admin route', async () => {
    await register('mallory');
    const mallory = await t.login('mallory', 'password123');
    const adminRoutes: Array<{ method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; payload?: object }> = [
      { method: 'GET', url: '/api/user/?p=0' },
      { method: 'GET', url: '/api/user/search?keyword=root' },
      { method: 'GET', url: '/api/user/1' },
      { method: 'POST', url: '/api/user/', payload: { username: 'x1', password: 'password123' } },
      { method: 'PUT', url: '/api/user/', payload: { id: 1, quota: 1 } },
      { method: 'POST', url: '/api/user/manage', payload: { username: 'root', action: 'disable' } },
      { method: 'DELETE', url: '/api/user/1' },
      { method: 'GET', url: '/api/option/' },
      { method: 'PUT', url: '/api/option/', payload: { key: 'SystemName', value: 'pwned' } },
      { method: 'GET', url: '/api/group/' },
      { method: 'DELETE', url: '/api/log/?target_timestamp=9999999999' },
    ];
    for (const route of adminRoutes) {
      const res = await t.call({ ...route, cookie: mallory });
      expect(res.body, `${route.method} ${route.url}`).toMatchObject({ success: false, message: '无权进行此操作，权限不足' });
      const anonymous = await t.call(route);
      expect(anonymous.status, `${route.method} ${route.url} anonymous`).toBe(401);
    }
    expect(t.ctx.options.get('SystemName')).toBe('Model Relay');
    expect(await userByName('x1')).toBeUndefined();
  });
});

describe('rate limits', () => {
  it('answers 429 past the login limit and past the global /api limit', async () => {
    const limited = await createTestApp({ CRITICAL_RATE_LIMIT: '3', GLOBAL_API_RATE_LIMIT: '10' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        statuses.push((await limited.call({ method: 'POST', url: '/api/user/login', payload: { username: 'root', password: 'x' } })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      for (let i = 0; i < 6; i++) await limited.call({ method: 'GET', url: '/api/status' });
      const res = await limited.call({ method: 'GET', url: '/api/status' });
      expect(res.status).toBe(429);
      expect(res.body.success).toBe(false);
    } finally {
      await limited.close();
    }
  });
});
