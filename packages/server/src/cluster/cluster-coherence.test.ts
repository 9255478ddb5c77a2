import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { createServerDatabase } from '../test-support/databases.js';
import { seedChannel, seedToken } from '../test-support/seed.js';
import { createTestApp, type TestApp } from '../test-support/test-app.js';

/**
 * Two instances on one PostgreSQL database and one Redis behave as one gateway: a change made through either
 * reaches the other's memory within a second, through Redis pub/sub (the relay caches are given a one-minute
 * lifetime here, so only the notice can explain it).
 */
const pgDsn = process.env.TEST_PG_DSN;
const redisUrl = process.env.TEST_REDIS_URL;

describe.skipIf(!pgDsn || !redisUrl)('two instances, one database, one Redis', () => {
  let database: Awaited<ReturnType<typeof createServerDatabase>>;
  let a: TestApp;
  let b: TestApp;
  let mock: MockUpstream;
  let urlB: string;
  let userId: number;

  beforeAll(async () => {
    database = await createServerDatabase('postgres', pgDsn!);
    const env = { SQL_DSN: database.dsn, REDIS_CONN_STRING: redisUrl!, RELAY_CACHE_MS: '60000' };
    a = await createTestApp(env);
    b = await createTestApp(env);
    urlB = await b.app.listen({ port: 0, host: '127.0.0.1' });
    mock = await startMockUpstream();
    userId = (await a.ctx.repositories.users.findByUsername('root'))!.id;
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await mock?.close();
    await database?.drop();
  });

  const within = async (ms: number, check: () => Promise<boolean>) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      if (await check()) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  };

  it('a price saved through one instance is what the other charges, within a second', async () => {
    await seedChannel(a.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    await a.ctx.options.set('ModelRatio', JSON.stringify({ 'gpt-4o-mini': 0.075 }));
    expect(await within(1000, async () => b.ctx.options.ratios('ModelRatio')['gpt-4o-mini'] === 0.075)).toBe(true);
    await a.ctx.options.set('ModelRatio', JSON.stringify({ 'gpt-4o-mini': 5 }));
    expect(await within(1000, async () => b.ctx.options.ratios('ModelRatio')['gpt-4o-mini'] === 5)).toBe(true);

    const token = await seedToken(a.ctx.storage, userId, { unlimited: true });
    const { response } = await new OpenAI({ apiKey: `sk-${token.key}`, baseURL: `${urlB}/v1`, maxRetries: 0 })
      .chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const requestId = response.headers.get('x-request-id')!;
    let quota = -1;
    await within(2000, async () => {
      const log = await a.ctx.storage.db.selectFrom('logs').select('quota').where('request_id', '=', requestId).executeTakeFirst();
      quota = Number(log?.quota ?? -1);
      return quota >= 0;
    });
    // (12 + 10 x 4) x 5: the new ratio, on the instance that did not make the change
    expect(quota).toBe(260);
  });

  it('a key disabled through one instance is refused by the other at once', async () => {
    const token = await seedToken(a.ctx.storage, userId, { unlimited: true });
    const client = new OpenAI({ apiKey: `sk-${token.key}`, baseURL: `${urlB}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const cookie = await a.login('root', '123456');
    const toggled = await a.call({ method: 'PUT', url: '/api/token/?status_only=true', cookie, payload: { id: token.id, status: 2 } });
    expect(toggled.body.success).toBe(true);
    expect(
      await within(1000, async () => {
        const refused = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).then(
          () => false,
          (error: { status?: number }) => error.status === 401,
        );
        return refused;
      }),
    ).toBe(true);
  });
});
