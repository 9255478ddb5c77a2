import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemorySharedStore } from '../cluster/shared-store.js';
import { Notifier } from '../notify/notifier.js';
import { seedToken, seedUser } from '../test-support/seed.js';
import { startTestSmtp, type TestSmtp } from '../test-support/smtp.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { QuotaLedger } from './ledger.js';
import { QuotaReminder } from './quota-reminder.js';

let t: TestApp;
let smtp: TestSmtp;
let mails: string[];

beforeAll(async () => {
  smtp = await startTestSmtp();
  mails = smtp.mails;
  t = await createTestApp();
  await t.ctx.options.set('SMTPServer', '127.0.0.1');
  await t.ctx.options.set('SMTPPort', String(smtp.port));
  await t.ctx.options.set('SMTPFrom', 'gateway@example.com');
  await t.ctx.options.set('TopUpLink', 'https://shop.example.com/topup');
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const user = (username: string, email: string, quota: number) =>
  seedUser(t.ctx.storage, username, quota, `A${username}`, { email });

it('mails a user over real SMTP when a request takes their quota below QuotaRemindThreshold, once, with the amount and the top-up link', async () => {
  await t.ctx.options.set('QuotaRemindThreshold', '500000');
  const errors: unknown[] = [];
  const reminder = new QuotaReminder(t.ctx.storage.db, t.ctx.options, new Notifier(t.ctx.storage.db, t.ctx.repositories.logs, t.ctx.options), new MemorySharedStore(), (e) => errors.push(e));
  const ledger = new QuotaLedger(t.ctx.storage, { lowQuota: reminder });
  const id = await user('spender', 'spender@example.com', 600_000);
  const silent = await user('nomail', '', 600_000);
  let n = 0;
  const spend = async (userId: number, cost: number) => {
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    const r = await ledger.reserve({ requestId: `remind-${++n}`, userId, tokenId: token.id, unlimited: true, amount: 1000 });
    await ledger.settle(r, { cost, channelId: 0 });
    await Promise.all(reminder.pending);
  };

  await spend(id, 50_000); // 600,000 -> 550,000: above the threshold
  expect(mails).toHaveLength(0);
  await spend(id, 100_000); // -> 450,000: below
  expect(errors).toEqual([]);
  expect(mails).toHaveLength(1);
  expect(mails[0]).toContain('spender@example.com');
  const body = Buffer.from(mails[0].split('\r\n\r\n').slice(1).join('\r\n\r\n').replace(/\s/g, ''), 'base64').toString('utf8');
  expect(mails[0].includes('$0.90') || body.includes('$0.90')).toBe(true);
  expect(mails[0].includes('shop.example.com/topup') || body.includes('shop.example.com/topup')).toBe(true);
  await spend(id, 10_000); // still below: no second mail
  expect(mails).toHaveLength(1);
  await spend(silent, 200_000); // crossed, but no address to send to
  expect(mails).toHaveLength(1);
  expect(errors).toEqual([]);

  // Threshold 0 turns reminders off.
  await t.ctx.options.set('QuotaRemindThreshold', '0');
  const other = await user('offuser', 'off@example.com', 600_000);
  await spend(other, 300_000);
  expect(mails).toHaveLength(1);
});
