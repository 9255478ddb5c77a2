import type { Page } from '@playwright/test';
import { readMail, startTestSmtp, type TestSmtp } from '../../packages/server/src/test-support/smtp.js';
import { expect, test as base } from '../support/fixtures.js';
import { expectToast } from '../support/toasts.js';

/** Each test gets its own real SMTP server; the gateway is configured to send through it. */
const test = base.extend<{ smtp: TestSmtp }>({
  // eslint-disable-next-line no-empty-pattern
  smtp: async ({}, use) => {
    const smtp = await startTestSmtp();
    await use(smtp);
    await smtp.close();
  },
});

async function configureMail(gateway: { apiAs(u: string, p: string): Promise<import('@playwright/test').APIRequestContext>; url: string }, smtp: TestSmtp) {
  const root = await gateway.apiAs('root', '123456');
  for (const [key, value] of [
    ['SMTPServer', '127.0.0.1'],
    ['SMTPPort', String(smtp.port)],
    ['SMTPFrom', 'gateway@example.com'],
    ['ServerAddress', gateway.url],
  ]) {
    expect((await (await root.put('/api/option/', { data: { key, value } })).json()).success, key).toBe(true);
  }
  return root;
}

/** The last mail to `to`, decoded, once it has arrived. */
async function mailTo(smtp: TestSmtp, to: string) {
  await expect.poll(() => smtp.mails.map(readMail).some((m) => m.to.includes(to))).toBe(true);
  return smtp.mails.map(readMail).filter((m) => m.to.includes(to)).at(-1)!;
}

async function login(page: Page, url: string, username: string, password: string) {
  await page.goto(`${url}/login`);
  await page.getByPlaceholder('用户名或邮箱').fill(username);
  await page.getByPlaceholder('密码').fill(password);
  await page.locator('form').getByRole('button', { name: '登录' }).click();
}

// covers S2-REGISTER-04, S2-REGISTER-05, S2-REGISTER-06, S2-REGISTER-11, S7-API-07, S8-ERRORS-15, S5-VALID-07
test('registration with e-mail verification: the code arrives through SMTP, a wrong one is refused, the right one registers', async ({ page, gateway, smtp }) => {
  const root = await configureMail(gateway, smtp);
  await root.put('/api/option/', { data: { key: 'EmailVerificationEnabled', value: 'true' } });

  await page.goto(`${gateway.url}/register`);
  await page.getByPlaceholder('输入用户名，最长 12 位').fill('mailer');
  await page.getByPlaceholder('输入密码，最短 8 位，最长 20 位').fill('password123');
  await page.getByPlaceholder('再次输入密码').fill('password123');
  // an empty address sends nothing
  await page.getByRole('button', { name: '获取验证码' }).click();
  await page.getByPlaceholder('输入邮箱地址').fill('mailer@example.com');
  await page.getByRole('button', { name: '获取验证码' }).click();
  await expectToast(page, '验证码发送成功，请检查你的邮箱！');
  await expect(page.getByRole('button', { name: /重新发送 \(\d+\)/ })).toBeDisabled();
  const mail = await mailTo(smtp, 'mailer@example.com');
  expect(smtp.mails).toHaveLength(1);
  expect(mail.subject).toContain('邮箱验证邮件');
  const code = /验证码为：([A-Z0-9]{6})/.exec(mail.text)![1];

  await page.getByPlaceholder('输入验证码').fill('WRONG1');
  await page.getByRole('button', { name: '注册' }).last().click();
  await expectToast(page, '验证码错误或已过期');
  await page.getByPlaceholder('输入验证码').fill(code);
  await page.getByRole('button', { name: '注册' }).last().click();
  await expectToast(page, '注册成功！');
  await expect(page).toHaveURL(/\/login$/);

  await login(page, gateway.url, 'mailer@example.com', 'password123');
  await expect(page).toHaveURL(/\/dashboard$/);
});

// covers S2-LOGIN-04, S2-RESET-01, S2-RESET-03, S2-RESET-04, S2-RESET-05, S2-RESET-06, S2-RESET-07, S2-ROUTES-04, S2-ROUTES-05, S7-API-22, S7-API-23, S8-ERRORS-24, S5-VALID-59
test('password reset: request from the login page, follow the mailed link, get and use the new password', async ({ page, gateway, smtp, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const root = await configureMail(gateway, smtp);
  await root.post('/api/user/', { data: { username: 'forgetful', password: 'password123' } });
  const user = (await (await root.get('/api/user/search?keyword=forgetful')).json()).data[0];
  await root.put('/api/user/', { data: { id: user.id, email: 'forgetful@example.com' } });

  await page.goto(`${gateway.url}/login`);
  await page.getByRole('link', { name: '点击重置' }).click();
  await expect(page).toHaveURL(/\/reset$/);
  // no address: nothing is sent
  await page.getByRole('button', { name: '提交' }).click();
  await expect(page.getByText('请输入邮箱地址')).toBeVisible();
  await page.getByPlaceholder('邮箱地址').fill('forgetful@example.com');
  await page.getByRole('button', { name: '提交' }).click();
  await expectToast(page, '重置邮件发送成功，请检查邮箱！');
  await expect(page.getByRole('button', { name: /重试 \(\d+\)/ })).toBeDisabled();

  const mail = await mailTo(smtp, 'forgetful@example.com');
  expect(smtp.mails).toHaveLength(1);
  const link = /(http\S+\/user\/reset\?\S+)/.exec(mail.text)![1];
  expect(link.startsWith(`${gateway.url}/user/reset?email=forgetful%40example.com&token=`)).toBe(true);

  await page.goto(link);
  const email = page.getByRole('textbox', { name: '邮箱地址' });
  await expect(email).toHaveValue('forgetful@example.com');
  await expect(email).toHaveAttribute('readonly', '');
  await page.getByRole('button', { name: '提交' }).click();
  const shown = page.getByRole('textbox', { name: '新密码' });
  await expect(shown).toHaveValue(/^[A-Za-z0-9]{12}$/);
  const password = await shown.inputValue();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(password);
  await expectToast(page, `密码已重置，新密码已复制到剪贴板：${password}`);

  await login(page, gateway.url, 'forgetful', 'password123');
  await expectToast(page, '用户名或密码错误，或用户已被封禁');
  await login(page, gateway.url, 'forgetful', password);
  await expect(page).toHaveURL(/\/dashboard$/);

  // the link works once
  await page.goto(link);
  await page.getByRole('button', { name: '提交' }).click();
  await expectToast(page, '重置链接非法或已过期');
});

// covers S2-SETTINGS-PERSONAL-14, S2-SETTINGS-PERSONAL-15, S2-SETTINGS-PERSONAL-16, S5-VALID-08, S7-API-31, S8-ERRORS-19
test('binding an e-mail in personal settings: code by mail, resend counting down from 30', async ({ page, gateway, smtp }) => {
  const root = await configureMail(gateway, smtp);
  await root.post('/api/user/', { data: { username: 'binder', password: 'password123' } });
  await login(page, gateway.url, 'binder', 'password123');
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto(`${gateway.url}/setting`);
  await page.getByRole('button', { name: '绑定邮箱地址' }).click();
  const dialog = page.getByRole('dialog', { name: '绑定邮箱地址' });
  await dialog.getByPlaceholder('输入邮箱地址').fill('binder@example.com');
  // The page's clock stands still from here on and moves only by runFor: on a slow machine, real seconds passing
  // between two checks would otherwise move the countdown on by itself. The fake clock starts at a time of the
  // test's choosing and is paused a few seconds later, so the pause is always ahead of it however long the two calls take.
  const start = Date.now();
  await page.clock.install({ time: start });
  await page.clock.pauseAt(start + 5_000);
  await dialog.getByRole('button', { name: '获取验证码' }).click();
  await expectToast(page, '验证码发送成功，请检查你的邮箱！');
  await expect(dialog.getByRole('button', { name: '重新发送 (30)' })).toBeDisabled();
  // one second at a time: each tick re-renders before the next timer is set
  for (let s = 29; s >= 1; s--) {
    await page.clock.runFor(1_000);
    await expect(dialog.getByRole('button', { name: `重新发送 (${s})` })).toBeDisabled();
  }
  await page.clock.runFor(1_000);
  await expect(dialog.getByRole('button', { name: '获取验证码' })).toBeEnabled();

  const code = /验证码为：([A-Z0-9]{6})/.exec((await mailTo(smtp, 'binder@example.com')).text)![1];
  // an empty code sends nothing
  await dialog.getByRole('button', { name: '确认绑定' }).click();
  await expect(dialog).toBeVisible();
  await dialog.getByPlaceholder('验证码').fill(code);
  await dialog.getByRole('button', { name: '确认绑定' }).click();
  await expectToast(page, '邮箱账户绑定成功！');
  await expect(page.getByText('binder@example.com')).toBeVisible();
  const self = await (await gateway.apiAs('binder@example.com', 'password123')).get('/api/user/self');
  expect((await self.json()).data.email).toBe('binder@example.com');
});
