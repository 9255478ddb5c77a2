import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { MOCK_REPLY, startMockUpstream, type MockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { settledToken } from '../test-support/settled-token.js';

/**
 * A channel's own rules through the official openai SDK (the rest of the relay's path: relay.test.ts): Azure's
 * deployment URL, api-key header and API version, model mapping, a key pinned to a channel, and the keys refused
 * before any channel is tried.
 */
let t: TestApp;
let mock: MockUpstream;
let gatewayUrl: string;
let userId: number;

/** Settlement is committed in batches just after the answer is sent: wait for it. */
const settled = (tokenId: number, logs: number) => settledToken(t.ctx.storage, tokenId, logs);

beforeAll(async () => {
  mock = await startMockUpstream();
  t = await createTestApp({ RELAY_TIMEOUT_SECONDS: '1' });
  gatewayUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const root = await t.ctx.repositories.users.findByUsername('root');
  userId = root!.id;
  await t.ctx.options.set('PreConsumedQuota', '100');
});
afterAll(async () => {
  await t.close();
  await mock.close();
});
beforeEach(async () => {
  await t.ctx.storage.db.deleteFrom('abilities').execute();
  await t.ctx.storage.db.deleteFrom('channels').execute();
  await t.ctx.options.set('RetryTimes', '0');
  mock.requests.length = 0;
});

function client(key: string) {
  return new OpenAI({ apiKey: `sk-${key}`, baseURL: `${gatewayUrl}/v1`, maxRetries: 0 });
}
describe('channel rules', () => {
  it('Azure: deployment URL with the default API version and the api-key header', async () => {
    await seedChannel(t.ctx.storage, { type: 3, key: 'ok', baseUrl: mock.url, models: 'gpt-3.5-turbo' });
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    await client(token.key).chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect(mock.requests[0].path).toBe('/openai/deployments/gpt-35-turbo/chat/completions');
    expect(mock.requests[0].headers['api-key']).toBe('ok');
    expect(mock.requests[0].headers.authorization).toBeUndefined();
  });

  it('Azure streams: usage asked for only from API versions that know stream_options, counted by the gateway before them', async () => {
    await seedChannel(t.ctx.storage, { type: 3, key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    // The default 2024-03-01-preview refuses stream_options (the client's too): none is sent, and the stream is counted.
    const old = await client(token.key).chat.completions.create({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    for await (const chunk of old) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    expect(mock.requests.at(-1)!.path).toBe('/openai/deployments/gpt-4o-mini/chat/completions');
    expect(mock.requests.at(-1)!.body).not.toHaveProperty('stream_options');
    const first = (await settled(token.id, 1)).logs[0];
    expect(first.content ?? '').not.toContain('用量异常');
    expect(first.completion_tokens).toBeGreaterThan(0);
  });

  it('Azure streams on API version 2024-10-21: usage asked for and billed as Azure reports it', async () => {
    await seedChannel(t.ctx.storage, { type: 3, key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini', other: '2024-10-21' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 1_000_000 });
    const stream = await client(token.key).chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    for await (const chunk of stream) void chunk;
    expect(mock.requests.at(-1)!.body).toMatchObject({ stream_options: { include_usage: true } });
    const log = (await settled(token.id, 1)).logs[0];
    expect([log.prompt_tokens, log.completion_tokens]).toEqual([12, MOCK_REPLY.split(' ').length]);
  });

  it('model mapping rewrites the upstream model; the log keeps the requested one', async () => {
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini', modelMapping: '{"gpt-4o-mini":"gpt-4o-mini-2024-07-18"}' });
    const token = await seedToken(t.ctx.storage, userId, { remain_quota: 100_000 });
    await client(token.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect((mock.requests[0].body as { model: string }).model).toBe('gpt-4o-mini-2024-07-18');
    expect((await settled(token.id, 1)).logs[0].model_name).toBe('gpt-4o-mini');
  });

  it('sk-<key>-<channelId> pins a channel for admins only', async () => {
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini', priority: 10 });
    const pinned = await seedChannel(t.ctx.storage, { name: 'pinned', key: 'ok:pinned', baseUrl: mock.url, models: 'gpt-4o-mini', priority: 0 });
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true });
    await client(`${token.key}-${pinned}`).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(mock.requests.at(-1)?.key).toBe('ok:pinned');
    const plainUser = await seedUser(t.ctx.storage, 'plainpin', 1000, 'PIN1');
    const plainToken = await seedToken(t.ctx.storage, plainUser, { unlimited: true });
    await expect(client(`${plainToken.key}-${pinned}`).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 403 });
  });

  it('a key that contains "-" (imported from new-api) works as it is, and pinned with -<channelId>', async () => {
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini', priority: 10 });
    const pinned = await seedChannel(t.ctx.storage, { name: 'pinned', key: 'ok:pinned', baseUrl: mock.url, models: 'gpt-4o-mini', priority: 0 });
    const token = await seedToken(t.ctx.storage, userId, { unlimited: true, key: 'imported-key-12' });
    await client('imported-key-12').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(mock.requests.at(-1)?.key).toBe('ok');
    await client(`imported-key-12-${pinned}`).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(mock.requests.at(-1)?.key).toBe('ok:pinned');
    expect((await settled(token.id, 2)).logs).toHaveLength(2);
    await expect(client('imported-key-13').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 401 });
    await expect(client(`imported-key-12-x`).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 400 });
  });

  it('IP restriction, disabled and expired keys are refused before anything is reserved', async () => {
    await seedChannel(t.ctx.storage, { key: 'ok', baseUrl: mock.url, models: 'gpt-4o-mini' });
    const fenced = await seedToken(t.ctx.storage, userId, { unlimited: true, subnet: '10.0.0.0/8' });
    await expect(client(fenced.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 403 });
    const local = await seedToken(t.ctx.storage, userId, { unlimited: true, subnet: '127.0.0.0/8,::1' });
    await client(local.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const expired = await seedToken(t.ctx.storage, userId, { unlimited: true, expired_time: 1000 });
    await expect(client(expired.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 401 });
    expect((await t.ctx.storage.db.selectFrom('tokens').selectAll().where('id', '=', expired.id).executeTakeFirstOrThrow()).status).toBe(3);
    const scoped = await seedToken(t.ctx.storage, userId, { unlimited: true, models: 'gpt-4o' });
    await expect(client(scoped.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 403 });
  });
});
