import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedChannel, seedToken } from '../../test-support/seed.js';
import { createTestApp, type TestApp } from '../../test-support/test-app.js';
import { startMockVertex, type MockVertex } from '../../test-support/upstreams/vertex.js';

/**
 * Vertex AI access tokens are cached until shortly before they expire; a token the issuer stops honouring
 * earlier (a rotated service-account key) must not fail requests until then.
 */
let t: TestApp;
let mock: MockVertex;
let gateway: string;

beforeAll(async () => {
  mock = await startMockVertex();
  t = await createTestApp();
  gateway = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await t.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
  await t.ctx.options.set('RetryTimes', '0');
});
afterAll(async () => {
  await t.close();
  await mock.close();
});

describe('Vertex AI credentials', () => {
  it('a token refused with 401 before its expiry is exchanged again and the request retried once on the same channel', async () => {
    const account = mock.serviceAccount();
    const key = `us-central1|${account.project_id}|${JSON.stringify(account)}`;
    const channelId = await seedChannel(t.ctx.storage, { name: 'vertex', type: 42, key, baseUrl: mock.url, models: 'gemini-2.5-pro' });
    const user = (await t.ctx.repositories.users.findByUsername('root'))!;
    const { key: tokenKey } = await seedToken(t.ctx.storage, user.id, { remain_quota: 10_000_000 });
    const client = new OpenAI({ apiKey: `sk-${tokenKey}`, baseURL: `${gateway}/v1`, maxRetries: 0 });
    const ask = () => client.chat.completions.create({ model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'Hello' }] });

    expect((await ask()).choices[0]?.message.content).toBeTruthy();
    expect((await ask()).choices[0]?.message.content).toBeTruthy();
    expect(mock.tokenExchanges).toHaveLength(1);

    mock.revokeTokens();
    expect((await ask()).choices[0]?.message.content).toBeTruthy();
    expect(mock.tokenExchanges).toHaveLength(2);

    // The channel stays enabled, and each of the three requests was logged and charged once.
    await t.ctx.relay.ledger.drain();
    const channel = await t.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', channelId).executeTakeFirstOrThrow();
    expect(channel.status).toBe(1);
    const logs = await t.ctx.storage.db.selectFrom('logs').select(['quota', 'type']).where('type', 'in', [2, 5]).execute();
    expect(logs.map((l) => l.type)).toEqual([2, 2, 2]);
    expect(logs.every((l) => l.quota > 0)).toBe(true);
  });
});
