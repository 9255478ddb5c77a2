import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { costOf, pricesFor } from './billing/pricing.js';
import { testDsns } from './test-support/databases.js';
import { startMockUpstream, type MockUpstream } from './test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from './test-support/seed.js';
import { readMail, startTestSmtp, type TestSmtp } from './test-support/smtp.js';
import { createTestApp, type TestApp } from './test-support/test-app.js';

/**
 * The hostile-input suite's money cases (issue 19): what a hostile user or a broken upstream did to take usage
 * without paying or to take a user's money, on each database. Each was found on the landed code and failed
 * before its fix. The huge Gemini body that stalled the gateway is relay/large-body.test.ts; usernames that
 * differ only in case are api/user/username-case.test.ts (both on every database they touch).
 */
let mock: MockUpstream;
let smtp: TestSmtp;
beforeAll(async () => {
  mock = await startMockUpstream();
  smtp = await startTestSmtp();
});
afterAll(async () => {
  await mock.close();
  await smtp.close();
});

describe.each(testDsns())('hostile money on $name', (database) => {
  let t: TestApp;
  let gateway: string;
  let drop: () => Promise<void>;
  let serial = 0;
  beforeAll(async () => {
    const created = await database.create();
    drop = created.drop;
    t = await createTestApp({ ...created.env, RELAY_TIMEOUT_SECONDS: '10', METRICS_TOKEN: 'scrape-me' });
    gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
    await t.ctx.options.set('RetryTimes', '0');
  });
  afterAll(async () => {
    await t.close();
    await drop();
  });
  beforeEach(async () => {
    await t.ctx.storage.db.deleteFrom('abilities').execute();
    await t.ctx.storage.db.deleteFrom('channels').execute();
  });

  async function account(quota: number, key: Parameters<typeof seedToken>[2] = { unlimited: true }) {
    serial++;
    const userId = await seedUser(t.ctx.storage, `hostile${serial}`, quota, `HOSTILE${serial}`);
    const token = await seedToken(t.ctx.storage, userId, key);
    return { userId, token, client: new OpenAI({ apiKey: `sk-${token.key}`, baseURL: `${gateway}/v1`, maxRetries: 0 }) };
  }
  async function settledLog(tokenId: number) {
    for (let i = 0; i < 250; i++) {
      const log = await t.ctx.storage.db.selectFrom('logs').selectAll().where('token_id', '=', tokenId).where('type', '=', 2).executeTakeFirst();
      const open = await t.ctx.storage.db.selectFrom('quota_reservations').select('request_id').where('token_id', '=', tokenId).execute();
      if (log && open.length === 0) return log;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('no settled log');
  }
  const balances = async (userId: number, tokenId: number) => ({
    user: Number((await t.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow()).quota),
    key: Number((await t.ctx.storage.db.selectFrom('tokens').select('remain_quota').where('id', '=', tokenId).executeTakeFirstOrThrow()).remain_quota),
  });
  const price = (usage: { prompt_tokens: number; completion_tokens: number }) => costOf(usage, pricesFor(t.ctx.options, 'gpt-4o-mini', 'default'));

  it('a 300 KB text prompt that starts with "data:" is reserved as text: refused on a 5,000-quota key and over a 3,000 daily limit', async () => {
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const prompt = `data:${'lorem ipsum dolor sit amet '.repeat(11_500)}`;
    const capped = await account(10_000_000, { remain_quota: 5_000 });
    const before = mock.requests.length;
    await expect(capped.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] })).rejects.toMatchObject({ status: 429 });
    const limited = await account(10_000_000);
    await t.ctx.storage.db.updateTable('tokens').set({ daily_quota_limit: 3_000 }).where('id', '=', limited.token.id).execute();
    await expect(limited.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] })).rejects.toMatchObject({ status: 429 });
    expect(mock.requests.length).toBe(before);
    expect(await balances(capped.userId, capped.token.id)).toEqual({ user: 10_000_000, key: 5_000 });
  });

  it('max_completion_tokens 1 beside max_tokens 4,000 on a 1,000-quota key: both fields carry the cap, the answer costs its price', async () => {
    await seedChannel(t.ctx.storage, { key: 'long-legacy', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const { userId, token, client } = await account(10_000_000, { remain_quota: 1_000 });
    await client.chat.completions.create({ model: 'gpt-4o-mini', max_completion_tokens: 1, max_tokens: 4_000, messages: [{ role: 'user', content: 'write a long story' }] });
    const sent = mock.requests.at(-1)!.body as { max_tokens: number; max_completion_tokens: number };
    expect(sent.max_tokens).toBeLessThan(4_000);
    expect(sent.max_completion_tokens).toBeLessThanOrEqual(sent.max_tokens);
    const log = await settledLog(token.id);
    expect(log.completion_tokens).toBe(sent.max_tokens);
    expect(log.quota).toBe(price(log));
    expect(log.quota).toBeLessThanOrEqual(1_000);
    expect(await balances(userId, token.id)).toEqual({ user: 10_000_000 - log.quota, key: 1_000 - log.quota });
  });

  it.each(['usage-negative', 'usage-strings'])('usage reported as %s cannot make the answer free: the gateway counts it', async (mode) => {
    await seedChannel(t.ctx.storage, { key: mode, baseUrl: mock.url, models: 'gpt-4o-mini' });
    const { userId, token, client } = await account(1_000_000);
    const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say something.' }] });
    expect(answer.choices[0].message.content).toBeTruthy();
    const log = await settledLog(token.id);
    expect(log.prompt_tokens).toBeGreaterThan(0);
    expect(log.completion_tokens).toBeGreaterThan(0);
    expect(log.quota).toBe(price(log));
    expect(log.quota).toBeGreaterThan(0);
    expect(log.content).toContain('用量异常');
    expect((await balances(userId, token.id)).user).toBe(1_000_000 - log.quota);
  });

  it('1e15 output tokens reported for an answer allowed 50: billed at 50, flagged, the balance kept', async () => {
    const channelId = await seedChannel(t.ctx.storage, { key: 'usage-huge', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const { userId, token, client } = await account(1_000_000);
    await client.chat.completions.create({ model: 'gpt-4o-mini', max_tokens: 50, messages: [{ role: 'user', content: 'Say something.' }] });
    const log = await settledLog(token.id);
    expect(log.completion_tokens).toBe(50);
    expect(log.quota).toBe(price(log));
    expect(log.content).toContain('用量异常');
    expect((await balances(userId, token.id)).user).toBe(1_000_000 - log.quota);
    const channel = await t.ctx.storage.db.selectFrom('channels').select('usage_anomalies').where('id', '=', channelId).executeTakeFirstOrThrow();
    expect(Number(channel.usage_anomalies)).toBe(1);
    const metrics = await t.ctx.relay.metrics.registry.getSingleMetricAsString('relay_usage_anomalies_total');
    expect(metrics).toMatch(/relay_usage_anomalies_total\{model="gpt-4o-mini",channel="\d+:ch-usage-huge"\} [1-9]/);
  });

  it('a password reset by e-mail ends the sessions a thief may hold', async () => {
    for (const [key, value] of [['SMTPServer', '127.0.0.1'], ['SMTPPort', String(smtp.port)], ['SMTPFrom', 'gateway@example.com'], ['ServerAddress', 'https://gw.example.com']]) await t.ctx.options.set(key, value);
    const root = await t.login('root', '123456');
    const name = `victim${++serial}`;
    const email = `${name}-${database.name}@example.com`;
    const created = await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: name, password: 'password123' } });
    expect(created.body).toEqual({ success: true, message: '' });
    const victim = await t.ctx.repositories.users.findByUsername(name);
    await t.call({ method: 'PUT', url: '/api/user/', cookie: root, payload: { id: victim!.id, email } });
    const stolen = await t.login(name, 'password123');
    expect((await t.call({ method: 'GET', url: '/api/user/self', cookie: stolen })).status).toBe(200);
    await t.call({ method: 'GET', url: `/api/reset_password?email=${encodeURIComponent(email)}&turnstile=` });
    const mail = smtp.mails.map(readMail).filter((m) => m.to.includes(email)).at(-1)!;
    const token = new URL(/(https?:\/\/\S+\/user\/reset\?\S+)/.exec(mail.text)![1]).searchParams.get('token')!;
    expect((await t.call({ method: 'POST', url: '/api/user/reset', payload: { email, token } })).body.success).toBe(true);
    expect((await t.call({ method: 'GET', url: '/api/user/self', cookie: stolen })).status).toBe(401);
  });
});
