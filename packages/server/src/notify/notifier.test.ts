import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readMail, startTestSmtp, type TestSmtp } from '../test-support/smtp.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { Notifier } from './notifier.js';

let t: TestApp;
let smtp: TestSmtp;
let smtpPort: number;
let mails: string[];

beforeAll(async () => {
  smtp = await startTestSmtp();
  mails = smtp.mails;
  smtpPort = smtp.port;
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

/** A Message Pusher answering {success, message} as configured; records every push. */
async function startPusher(answer: { success: boolean; message: string }) {
  const pushed: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      pushed.push(body);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { pushed, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/push/root`, close: () => server.close() };
}

async function configureSmtp() {
  await t.ctx.storage.db.updateTable('users').set({ email: 'root@example.com' }).where('username', '=', 'root').execute();
  await t.ctx.options.set('SMTPServer', '127.0.0.1');
  await t.ctx.options.set('SMTPPort', String(smtpPort));
  await t.ctx.options.set('SMTPFrom', 'gateway@example.com');
}

it('writes a system log and delivers through Message Pusher first, without an e-mail', async () => {
  const pusher = await startPusher({ success: true, message: '' });
  try {
    await configureSmtp();
    await t.ctx.options.set('MessagePusherAddress', pusher.url);
    await t.ctx.options.set('MessagePusherToken', 'push-secret');
    const before = mails.length;
    const errors: unknown[] = [];
    const notifier = new Notifier(t.ctx.storage.db, t.ctx.repositories.logs, t.ctx.options, (e) => errors.push(e));
    await notifier.notifyRoot('渠道已禁用', '渠道「a」已被自动禁用');
    expect(errors).toEqual([]);
    const logs = await t.ctx.storage.db.selectFrom('logs').selectAll().where('type', '=', 4).execute();
    expect(logs.at(-1)?.content).toBe('渠道「a」已被自动禁用');
    expect(JSON.parse(pusher.pushed[0])).toEqual({ title: '渠道已禁用', description: '渠道「a」已被自动禁用', content: '渠道「a」已被自动禁用', url: '', channel: '', token: 'push-secret' });
    expect(mails.length).toBe(before);
  } finally {
    pusher.close();
  }
});

it('falls back to e-mail over real SMTP when Message Pusher refuses or is not set up', async () => {
  const pusher = await startPusher({ success: false, message: '无效的 token' });
  try {
    await configureSmtp();
    await t.ctx.options.set('MessagePusherAddress', pusher.url);
    const before = mails.length;
    const errors: unknown[] = [];
    await new Notifier(t.ctx.storage.db, t.ctx.repositories.logs, t.ctx.options, (e) => errors.push(e)).notifyRoot('渠道已禁用', '渠道「b」已被自动禁用');
    expect(pusher.pushed).toHaveLength(1);
    expect(String(errors[0])).toContain('无效的 token');
    expect(mails.length).toBe(before + 1);
    expect(readMail(mails.at(-1)!)).toMatchObject({ to: expect.stringContaining('root@example.com'), subject: expect.stringContaining('渠道已禁用') });
    expect(readMail(mails.at(-1)!).text).toContain('渠道「b」已被自动禁用');

    await t.ctx.options.set('MessagePusherAddress', '');
    await new Notifier(t.ctx.storage.db, t.ctx.repositories.logs, t.ctx.options).notifyRoot('渠道已启用', '渠道「b」已被自动启用');
    expect(mails.length).toBe(before + 2);
    expect(pusher.pushed).toHaveLength(1);
  } finally {
    pusher.close();
  }
});
it('a failing delivery is reported, never thrown', async () => {
  await t.ctx.options.set('SMTPServer', '127.0.0.1');
  await t.ctx.options.set('SMTPPort', '1');
  await t.ctx.options.set('MessagePusherAddress', '');
  const errors: unknown[] = [];
  await new Notifier(t.ctx.storage.db, t.ctx.repositories.logs, t.ctx.options, (e) => errors.push(e)).notifyRoot('x', 'y');
  expect(errors).toHaveLength(1);
});
