import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestSmtp, type TestSmtp } from '../test-support/smtp.js';
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

it('writes a system log, mails the super admin over real SMTP and calls Message Pusher', async () => {
  const pushed: string[] = [];
  const pusher = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      pushed.push(body);
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => pusher.listen(0, '127.0.0.1', resolve));
  try {
    await t.ctx.storage.db.updateTable('users').set({ email: 'root@example.com' }).where('username', '=', 'root').execute();
    await t.ctx.options.set('SMTPServer', '127.0.0.1');
    await t.ctx.options.set('SMTPPort', String(smtpPort));
    await t.ctx.options.set('SMTPFrom', 'gateway@example.com');
    await t.ctx.options.set('MessagePusherAddress', `http://127.0.0.1:${(pusher.address() as AddressInfo).port}/push`);
    await t.ctx.options.set('MessagePusherToken', 'push-secret');
    const errors: unknown[] = [];
    const notifier = new Notifier(t.ctx.storage.db, t.ctx.options, (e) => errors.push(e));
    await notifier.notifyRoot('渠道已禁用', '渠道「a」已被自动禁用');
    expect(errors).toEqual([]);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain('root@example.com');
    const logs = await t.ctx.storage.db.selectFrom('logs').selectAll().where('type', '=', 4).execute();
    expect(logs.at(-1)?.content).toBe('渠道「a」已被自动禁用');
    expect(JSON.parse(pushed[0])).toMatchObject({ title: '渠道已禁用', token: 'push-secret' });
  } finally {
    pusher.close();
  }
});

it('a failing delivery is reported, never thrown', async () => {
  await t.ctx.options.set('SMTPServer', '127.0.0.1');
  await t.ctx.options.set('SMTPPort', '1');
  await t.ctx.options.set('MessagePusherAddress', '');
  const errors: unknown[] = [];
  await new Notifier(t.ctx.storage.db, t.ctx.options, (e) => errors.push(e)).notifyRoot('x', 'y');
  expect(errors).toHaveLength(1);
});
