import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readMail, startTestSmtp, type TestSmtp } from '../../test-support/smtp.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

let smtp: TestSmtp;
let t: TestApp;

beforeAll(async () => {
  smtp = await startTestSmtp();
});
afterAll(async () => {
  await smtp.close();
});
beforeEach(async () => {
  t = await createTestApp();
  await t.ctx.options.set('SMTPServer', '127.0.0.1');
  await t.ctx.options.set('SMTPPort', String(smtp.port));
  await t.ctx.options.set('SMTPFrom', 'gateway@example.com');
  await t.ctx.options.set('ServerAddress', 'https://gw.example.com/');
  const root = await t.login('root', '123456');
  await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'olga', password: 'password123' } });
  const olga = await t.ctx.repositories.users.findByUsername('olga');
  await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id: olga!.id, email: 'olga@example.com' } });
});
afterEach(async () => {
  await t.close();
});

const requestReset = (email: string) => t.call({ method: 'GET', url: `/api/reset_password?email=${encodeURIComponent(email)}&turnstile=` });
const confirm = (email: string, token: string) => t.call({ method: 'POST', url: '/api/user/reset', payload: { email, token } });
/** The reset link in the last mail to `email`. */
function linkMailedTo(email: string): URL {
  const mail = smtp.mails.map(readMail).filter((m) => m.to.includes(email)).at(-1)!;
  expect(mail.subject).toContain('密码重置');
  return new URL(/(https?:\/\/\S+\/user\/reset\?\S+)/.exec(mail.text)![1]);
}
const login = (username: string, password: string) => t.call({ method: 'POST', url: '/api/user/login', payload: { username, password } });

describe('password reset by e-mail', () => {
  // covers S7-API-22, S7-API-23, S2-ROUTES-05
  it('mails a link to ServerAddress/user/reset; confirming returns a new password that works, the old one no longer', async () => {
    expect((await requestReset('OLGA@example.com')).body).toEqual({ success: true, message: '' });
    const link = linkMailedTo('olga@example.com');
    expect(link.origin + link.pathname).toBe('https://gw.example.com/user/reset');
    expect(link.searchParams.get('email')).toBe('olga@example.com');
    const token = link.searchParams.get('token')!;
    expect(token).toMatch(/^[0-9a-f]{32}$/);

    const res = await confirm('olga@example.com', token);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toMatch(/^[A-Za-z0-9]{12}$/);
    expect((await login('olga', res.body.data)).body.success).toBe(true);
    expect((await login('olga', 'password123')).body.success).toBe(false);

    // single use
    expect((await confirm('olga@example.com', token)).body).toMatchObject({ success: false, message: '重置链接非法或已过期' });
  });

  it('refuses a wrong token, a token for another address, and unknown or malformed addresses', async () => {
    await requestReset('olga@example.com');
    const token = linkMailedTo('olga@example.com').searchParams.get('token')!;
    expect((await confirm('olga@example.com', 'f'.repeat(32))).body).toMatchObject({ success: false, message: '重置链接非法或已过期' });
    expect((await confirm('root@example.com', token)).body).toMatchObject({ success: false, message: '重置链接非法或已过期' });
    expect((await confirm('olga@example.com', '')).body).toMatchObject({ success: false, message: '重置链接非法或已过期' });
    expect((await confirm('olga@example.com', token)).body.success).toBe(true);

    expect((await requestReset('nobody@example.com')).body).toMatchObject({ success: false, message: '该邮箱地址未注册' });
    expect((await requestReset('')).body).toMatchObject({ success: false, message: '请输入邮箱地址' });
    expect((await requestReset('nope')).body).toMatchObject({ success: false, message: '邮箱地址格式不正确' });
  });

  it('a new request replaces the old link; requests are paused 30 seconds per address', async () => {
    await requestReset('olga@example.com');
    const first = linkMailedTo('olga@example.com').searchParams.get('token')!;
    expect((await requestReset('olga@example.com')).body).toMatchObject({ success: false, message: '发送过于频繁，请 30 秒后再试' });
    await t.ctx.shared.delete('email-resend:reset:olga@example.com');
    await requestReset('olga@example.com');
    const second = linkMailedTo('olga@example.com').searchParams.get('token')!;
    expect(second).not.toBe(first);
    expect((await confirm('olga@example.com', first)).body.success).toBe(false);
    expect((await confirm('olga@example.com', second)).body.success).toBe(true);
  });

  it('without ServerAddress no link is sent (a link built from the Host header could point anywhere)', async () => {
    await t.ctx.options.set('ServerAddress', '');
    const before = smtp.mails.length;
    const res = await t.call({ method: 'GET', url: '/api/reset_password?email=olga%40example.com', headers: { host: 'evil.example.com' } });
    expect(res.body).toMatchObject({ success: false, message: '管理员未设置服务器地址，无法发送重置邮件' });
    expect(smtp.mails.length).toBe(before);
  });
});

// covers issue 19 item 4: a reset ends every session of the user, like a password change
describe('a password reset ends the sessions of the account', () => {
  it('a cookie from before the reset is refused; a login with the new password works', async () => {
    const before = await t.login('olga', 'password123');
    expect((await t.call({ method: 'GET', url: '/api/user/self', cookie: before })).body.data.username).toBe('olga');
    await requestReset('olga@example.com');
    const password = (await confirm('olga@example.com', linkMailedTo('olga@example.com').searchParams.get('token')!)).body.data as string;
    expect((await t.call({ method: 'GET', url: '/api/user/self', cookie: before })).status).toBe(401);
    const after = await t.login('olga', password);
    expect((await t.call({ method: 'GET', url: '/api/user/self', cookie: after })).body.data.username).toBe('olga');
  });

  it.runIf(process.env.TEST_REDIS_URL)('on every instance: reset through one, the stolen cookie is refused by the other', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mr-reset-'));
    const env = { SQLITE_PATH: join(dir, 'gateway.db'), REDIS_CONN_STRING: process.env.TEST_REDIS_URL!, SESSION_SECRET: 'shared-secret-for-reset' };
    const a = await createTestApp(env);
    const b = await createTestApp(env);
    try {
      for (const [key, value] of [['SMTPServer', '127.0.0.1'], ['SMTPPort', String(smtp.port)], ['SMTPFrom', 'gateway@example.com'], ['ServerAddress', 'https://gw.example.com/']]) await a.ctx.options.set(key, value);
      const root = await a.login('root', '123456');
      await a.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'petra', password: 'password123' } });
      const petra = await a.ctx.repositories.users.findByUsername('petra');
      await a.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id: petra!.id, email: 'petra@example.com' } });
      const stolen = await b.login('petra', 'password123');
      expect((await b.call({ method: 'GET', url: '/api/user/self', cookie: stolen })).body.data.username).toBe('petra');
      await a.call({ method: 'GET', url: '/api/reset_password?email=petra%40example.com&turnstile=' });
      const token = linkMailedTo('petra@example.com').searchParams.get('token')!;
      expect((await a.call({ method: 'POST', url: '/api/user/reset', payload: { email: 'petra@example.com', token } })).body.success).toBe(true);
      expect((await b.call({ method: 'GET', url: '/api/user/self', cookie: stolen })).status).toBe(401);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
