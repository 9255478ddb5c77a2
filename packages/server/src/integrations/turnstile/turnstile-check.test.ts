import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockTurnstile, type MockTurnstile } from '../../test-support/mock-turnstile.js';
import { readMail, startTestSmtp, type TestSmtp } from '../../test-support/smtp.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';

const site = { siteKey: '0x4AAAAAAAsite', secretKey: '0x4AAAAAAAsecret' };
let turnstile: MockTurnstile;
let smtp: TestSmtp;
let t: TestApp;

beforeAll(async () => {
  turnstile = await startMockTurnstile(site);
  smtp = await startTestSmtp();
});
afterAll(async () => {
  await turnstile.close();
  await smtp.close();
});
beforeEach(async () => {
  t = await createTestApp({ TURNSTILE_VERIFY_URL: turnstile.verifyUrl });
  await t.ctx.options.set('SMTPServer', '127.0.0.1');
  await t.ctx.options.set('SMTPPort', String(smtp.port));
  await t.ctx.options.set('SMTPFrom', 'gateway@example.com');
  await t.ctx.options.set('ServerAddress', 'https://gw.example.com');
});
afterEach(async () => {
  await t.close();
});

async function turnOn() {
  await t.ctx.options.set('TurnstileSiteKey', site.siteKey);
  await t.ctx.options.set('TurnstileSecretKey', site.secretKey);
  await t.ctx.options.set('TurnstileCheckEnabled', 'true');
}
const register = (username: string, token: string, extra: Record<string, unknown> = {}) =>
  t.call({ method: 'POST', url: `/api/user/register?turnstile=${encodeURIComponent(token)}`, payload: { username, password: 'password123', password2: 'password123', ...extra } });

describe('Turnstile on registration, code sending and reset', () => {
  it('when off, nothing is asked of Cloudflare', async () => {
    const before = turnstile.requests.length;
    expect((await register('paul', '')).body.success).toBe(true);
    expect(turnstile.requests.length).toBe(before);
  });

  // covers S2-SETTINGS-SYSTEM-08, S2-SETTINGS-SYSTEM-25, S2-SETTINGS-SYSTEM-26
  it('when on, each guarded route refuses without a token and with a refused one, and accepts a solved one', async () => {
    await turnOn();
    for (const url of ['/api/verification?email=q%40example.com', '/api/reset_password?email=root%40example.com']) {
      expect((await t.call({ method: 'GET', url })).body, url).toMatchObject({ success: false, message: 'Turnstile token 为空' });
      expect((await t.call({ method: 'GET', url: `${url}&turnstile=forged` })).body, url).toMatchObject({ success: false, message: 'Turnstile 校验失败，请刷新重试！' });
    }
    expect((await register('quinn', '')).body).toMatchObject({ success: false, message: 'Turnstile token 为空' });
    expect((await register('quinn', 'forged')).body).toMatchObject({ success: false, message: 'Turnstile 校验失败，请刷新重试！' });
    expect(await t.ctx.repositories.users.findByUsername('quinn')).toBeUndefined();

    const token = turnstile.solve(site.siteKey);
    expect((await register('quinn', token)).body.success).toBe(true);
    // what the server sent: the secret, the token and the client's address
    const verify = turnstile.requests.filter((r) => r.path.endsWith('/siteverify')).at(-1)!;
    expect(verify.body).toMatchObject({ secret: site.secretKey, response: token, remoteip: '127.0.0.1' });
  });

  it('one solved token serves "send code" and "register" on the same screen (Cloudflare accepts it once)', async () => {
    await turnOn();
    await t.ctx.options.set('EmailVerificationEnabled', 'true');
    const token = turnstile.solve(site.siteKey);
    const sent = await t.call({ method: 'GET', url: `/api/verification?email=rita%40example.com&turnstile=${token}` });
    expect(sent.body.success).toBe(true);
    const code = /验证码为：([A-Z0-9]{6})/.exec(smtp.mails.map(readMail).filter((m) => m.to.includes('rita@example.com')).at(-1)!.text)![1];
    expect((await register('rita', token, { email: 'rita@example.com', verification_code: code })).body.success).toBe(true);
    // only one siteverify call was made for the token, and Cloudflare itself would refuse it now
    expect(turnstile.requests.filter((r) => r.body.response === token)).toHaveLength(1);
  });

  it('refuses a token solved for another site key, or checked with a wrong secret', async () => {
    await turnOn();
    expect((await register('sam', turnstile.solve('0x4AAAAAAAother'))).body.success).toBe(false);
    await t.ctx.options.set('TurnstileSecretKey', 'wrong-secret');
    expect((await register('sam', turnstile.solve(site.siteKey))).body).toMatchObject({ success: false, message: 'Turnstile 校验失败，请刷新重试！' });
  });

  it('fails closed when the verification service cannot be reached', async () => {
    const offline = await createTestApp({ TURNSTILE_VERIFY_URL: 'http://127.0.0.1:1/turnstile/v0/siteverify' });
    try {
      await offline.ctx.options.set('TurnstileSiteKey', site.siteKey);
      await offline.ctx.options.set('TurnstileCheckEnabled', 'true');
      const res = await offline.call({ method: 'POST', url: '/api/user/register?turnstile=anything', payload: { username: 'tom', password: 'password123' } });
      expect(res.body).toMatchObject({ success: false, message: 'Turnstile 校验失败，请刷新重试！' });
    } finally {
      await offline.close();
    }
  });
});
