import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
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

async function configureMail(app: TestApp) {
  await app.ctx.options.set('SMTPServer', '127.0.0.1');
  await app.ctx.options.set('SMTPPort', String(smtp.port));
  await app.ctx.options.set('SMTPFrom', 'gateway@example.com');
}
function sendCode(app: TestApp, email: string) {
  return app.call({ method: 'GET', url: `/api/verification?email=${encodeURIComponent(email)}&turnstile=` });
}
/** The code in the last mail to `email`, as the user reads it. */
function codeMailedTo(email: string): string {
  const mail = smtp.mails.map(readMail).filter((m) => m.to.includes(email)).at(-1);
  expect(mail, `a mail to ${email}`).toBeDefined();
  expect(mail!.subject).toContain('邮箱验证邮件');
  return /验证码为：([A-Z0-9]{6})/.exec(mail!.text)![1];
}
function register(app: TestApp, username: string, extra: Record<string, unknown>) {
  return app.call({ method: 'POST', url: '/api/user/register', payload: { username, password: 'password123', password2: 'password123', ...extra } });
}
const unique = () => randomBytes(4).toString('hex');

describe('e-mail verification on registration', () => {
  beforeEach(async () => {
    t = await createTestApp();
    await configureMail(t);
    await t.ctx.options.set('EmailVerificationEnabled', 'true');
  });
  afterEach(async () => {
    await t.close();
  });

  // covers S7-API-07, S2-REGISTER-04, S2-REGISTER-05, S3-ENTITY-12
  it('mails a code through the configured SMTP server; registering with it keeps the proven address', async () => {
    const res = await sendCode(t, 'Alice@Example.com');
    expect(res.body).toEqual({ success: true, message: '' });
    const code = codeMailedTo('alice@example.com');
    const reg = await register(t, 'alice', { email: 'alice@example.com', verification_code: code.toLowerCase() });
    expect(reg.body).toMatchObject({ success: true });
    const login = await t.call({ method: 'POST', url: '/api/user/login', payload: { username: 'alice@example.com', password: 'password123' } });
    expect(login.body.data).toMatchObject({ username: 'alice', email: 'alice@example.com' });
  });

  it('refuses registration without an e-mail and code, with a wrong code, and a used code', async () => {
    expect((await register(t, 'bob', {})).body).toMatchObject({ success: false, message: '管理员开启了邮箱验证，请输入邮箱地址和验证码' });
    await sendCode(t, 'bob@example.com');
    const code = codeMailedTo('bob@example.com');
    expect((await register(t, 'bob', { email: 'bob@example.com', verification_code: 'ZZZZZZ' })).body).toMatchObject({ success: false, message: '验证码错误或已过期' });
    // a code proves only the address it was sent to
    expect((await register(t, 'bob', { email: 'carol@example.com', verification_code: code })).body).toMatchObject({ success: false, message: '验证码错误或已过期' });
    expect((await register(t, 'bob', { email: 'bob@example.com', verification_code: code })).body.success).toBe(true);
    // single use: the same code cannot register a second account
    expect((await register(t, 'bob2', { email: 'bob@example.com', verification_code: code })).body).toMatchObject({ success: false, message: '邮箱地址已被占用' });
    await t.ctx.storage.db.updateTable('users').set({ email: '' }).where('username', '=', 'bob').execute();
    expect((await register(t, 'bob2', { email: 'bob@example.com', verification_code: code })).body).toMatchObject({ success: false, message: '验证码错误或已过期' });
  });

  it('a failing registration does not use up the code; five wrong guesses void it', async () => {
    await sendCode(t, 'dave@example.com');
    const code = codeMailedTo('dave@example.com');
    expect((await register(t, 'root', { email: 'dave@example.com', verification_code: code })).body).toMatchObject({ success: false, message: '用户名已存在' });
    expect((await register(t, 'dave', { email: 'dave@example.com', verification_code: code })).body.success).toBe(true);

    await sendCode(t, 'erin@example.com');
    const erinCode = codeMailedTo('erin@example.com');
    for (let i = 0; i < 5; i++) await register(t, 'erin', { email: 'erin@example.com', verification_code: 'WRONG1' });
    expect((await register(t, 'erin', { email: 'erin@example.com', verification_code: erinCode })).body).toMatchObject({ success: false, message: '验证码错误或已过期' });
  });

  it('refuses to send to a taken address, a malformed one, or again within 30 seconds', async () => {
    await sendCode(t, 'frank@example.com');
    await register(t, 'frank', { email: 'frank@example.com', verification_code: codeMailedTo('frank@example.com') });
    expect((await sendCode(t, 'frank@example.com')).body).toMatchObject({ success: false, message: '邮箱地址已被占用' });
    expect((await sendCode(t, 'not-an-address')).body).toMatchObject({ success: false, message: '邮箱地址格式不正确' });
    expect((await sendCode(t, '')).body).toMatchObject({ success: false, message: '请输入邮箱地址' });
    const before = smtp.mails.length;
    expect((await sendCode(t, 'gina@example.com')).body.success).toBe(true);
    expect((await sendCode(t, 'gina@example.com')).body).toMatchObject({ success: false, message: '发送过于频繁，请 30 秒后再试' });
    expect(smtp.mails.length).toBe(before + 1);
  });

  it('enforces EmailDomainRestrictionEnabled with EmailDomainWhitelist on sending and on registering', async () => {
    await t.ctx.options.set('EmailDomainWhitelist', 'example.com,corp.cn');
    await sendCode(t, 'hank@other.org');
    const code = codeMailedTo('hank@other.org');
    await t.ctx.options.set('EmailDomainRestrictionEnabled', 'true');
    expect((await sendCode(t, 'ivy@other.org')).body).toMatchObject({ success: false, message: '管理员启用了邮箱域名白名单，您的邮箱地址的域名不在白名单中' });
    expect((await sendCode(t, 'ivy@sub.example.com')).body.success).toBe(false);
    expect((await sendCode(t, 'ivy@CORP.cn')).body.success).toBe(true);
    // a code obtained before the restriction does not get around it
    expect((await register(t, 'hank', { email: 'hank@other.org', verification_code: code })).body).toMatchObject({
      success: false,
      message: '管理员启用了邮箱域名白名单，您的邮箱地址的域名不在白名单中',
    });
  });

  it('says so when mail cannot be sent, and lets the user try again at once', async () => {
    await t.ctx.options.set('SMTPPort', '1');
    expect((await sendCode(t, 'jack@example.com')).body).toMatchObject({ success: false, message: '邮件发送失败，请联系管理员检查 SMTP 设置' });
    await t.ctx.options.set('SMTPPort', String(smtp.port));
    expect((await sendCode(t, 'jack@example.com')).body.success).toBe(true);
    await t.ctx.options.set('SMTPServer', '');
    expect((await sendCode(t, 'kate@example.com')).body).toMatchObject({ success: false, message: '管理员未配置 SMTP 服务器，无法发送邮件' });
  });

  it('without e-mail verification an unproven address is not kept', async () => {
    await t.ctx.options.set('EmailVerificationEnabled', 'false');
    expect((await register(t, 'lena', { email: 'lena@example.com' })).body.success).toBe(true);
    const row = await t.ctx.repositories.users.findByUsername('lena');
    expect(row?.email).toBe('');
  });
});

describe('code expiry', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a code is refused once its 10 minutes are over', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const app = await createTestApp();
    try {
      await configureMail(app);
      await app.ctx.options.set('EmailVerificationEnabled', 'true');
      await sendCode(app, 'mia@example.com');
      const code = codeMailedTo('mia@example.com');
      vi.setSystemTime(Date.now() + 10 * 60 * 1000 + 1000);
      expect((await register(app, 'mia', { email: 'mia@example.com', verification_code: code })).body).toMatchObject({ success: false, message: '验证码错误或已过期' });
    } finally {
      await app.close();
    }
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('several instances sharing Redis and one database', () => {
  it('a code sent by one instance registers on another, exactly once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mr-codes-'));
    const env = { SQLITE_PATH: join(dir, 'gateway.db'), REDIS_CONN_STRING: process.env.TEST_REDIS_URL! };
    const a = await createTestApp(env);
    const b = await createTestApp(env);
    try {
      const email = `nina-${unique()}@example.com`;
      for (const app of [a, b]) {
        await configureMail(app);
        await app.ctx.options.set('EmailVerificationEnabled', 'true');
      }
      expect((await sendCode(a, email)).body.success).toBe(true);
      // the resend pause is cluster-wide too
      expect((await sendCode(b, email)).body).toMatchObject({ success: false, message: '发送过于频繁，请 30 秒后再试' });
      const code = codeMailedTo(email);
      const [first, second] = await Promise.all([
        register(b, 'nina1', { email, verification_code: code }),
        register(a, 'nina2', { email, verification_code: code }),
      ]);
      expect([first.body.success, second.body.success].sort()).toEqual([false, true]);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
