import { beforeAll, describe, expect, it } from 'vitest';
import { MOCK_REPLY, startMockUpstream } from '../test-support/mock-openai.js';
import { seedChannel, seedToken, seedUser } from '../test-support/seed.js';
import { vendorGateway } from '../test-support/vendor-gateway.js';

/**
 * A channel's own rules through the official openai SDK (the rest of the relay's path: relay.test.ts): Azure's
 * deployment URL, api-key header and API version, model mapping, a key pinned to a channel, and the keys refused
 * before any channel is tried.
 */
const gw = vendorGateway({ mock: startMockUpstream });
beforeAll(() => gw.t.ctx.options.set('PreConsumedQuota', '100'));
const client = (key: string) => gw.openai(key);

describe('channel rules', () => {
  it('Azure: deployment URL with the default API version and the api-key header', async () => {
    await seedChannel(gw.t.ctx.storage, { type: 3, key: 'ok', baseUrl: gw.mock.url, models: 'gpt-3.5-turbo' });
    const token = await seedToken(gw.t.ctx.storage, gw.userId, { unlimited: true });
    await client(token.key).chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect(gw.mock.requests[0].path).toBe('/openai/deployments/gpt-35-turbo/chat/completions');
    expect(gw.mock.requests[0].headers['api-key']).toBe('ok');
    expect(gw.mock.requests[0].headers.authorization).toBeUndefined();
  });

  it('Azure streams: usage asked for only from API versions that know stream_options, counted by the gateway before them', async () => {
    await seedChannel(gw.t.ctx.storage, { type: 3, key: 'ok', baseUrl: gw.mock.url, models: 'gpt-4o-mini' });
    const token = await seedToken(gw.t.ctx.storage, gw.userId, { remain_quota: 1_000_000 });
    // The default 2024-03-01-preview refuses stream_options (the client's too): none is sent, and the stream is counted.
    const old = await client(token.key).chat.completions.create({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    for await (const chunk of old) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    expect(gw.mock.requests.at(-1)!.path).toBe('/openai/deployments/gpt-4o-mini/chat/completions');
    expect(gw.mock.requests.at(-1)!.body).not.toHaveProperty('stream_options');
    const first = (await gw.settled(token.id, 1)).logs[0];
    expect(first.content ?? '').not.toContain('用量异常');
    expect(first.completion_tokens).toBeGreaterThan(0);
  });

  it('Azure streams on API version 2024-10-21: usage asked for and billed as Azure reports it', async () => {
    await seedChannel(gw.t.ctx.storage, { type: 3, key: 'ok', baseUrl: gw.mock.url, models: 'gpt-4o-mini', other: '2024-10-21' });
    const token = await seedToken(gw.t.ctx.storage, gw.userId, { remain_quota: 1_000_000 });
    const stream = await client(token.key).chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    for await (const chunk of stream) void chunk;
    expect(gw.mock.requests.at(-1)!.body).toMatchObject({ stream_options: { include_usage: true } });
    const log = (await gw.settled(token.id, 1)).logs[0];
    expect([log.prompt_tokens, log.completion_tokens]).toEqual([12, MOCK_REPLY.split(' ').length]);
  });

  it('model mapping rewrites the upstream model; the log keeps the requested one', async () => {
    await seedChannel(gw.t.ctx.storage, { key: 'ok', baseUrl: gw.mock.url, models: 'gpt-4o-mini', modelMapping: '{"gpt-4o-mini":"gpt-4o-mini-2024-07-18"}' });
    const token = await seedToken(gw.t.ctx.storage, gw.userId, { remain_quota: 100_000 });
    await client(token.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect((gw.mock.requests[0].body as { model: string }).model).toBe('gpt-4o-mini-2024-07-18');
    expect((await gw.settled(token.id, 1)).logs[0].model_name).toBe('gpt-4o-mini');
  });

  it('sk-<key>-<channelId> pins a channel for admins only', async () => {
    await seedChannel(gw.t.ctx.storage, { key: 'ok', baseUrl: gw.mock.url, models: 'gpt-4o-mini', priority: 10 });
    const pinned = await seedChannel(gw.t.ctx.storage, { name: 'pinned', key: 'ok:pinned', baseUrl: gw.mock.url, models: 'gpt-4o-mini', priority: 0 });
    const token = await seedToken(gw.t.ctx.storage, gw.userId, { unlimited: true });
    await client(`${token.key}-${pinned}`).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(gw.mock.requests.at(-1)?.key).toBe('ok:pinned');
    const plainUser = await seedUser(gw.t.ctx.storage, 'plainpin', 1000, 'PIN1');
    const plainToken = await seedToken(gw.t.ctx.storage, plainUser, { unlimited: true });
    await expect(client(`${plainToken.key}-${pinned}`).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 403 });
  });

  it('a key that contains "-" (imported from new-api) works as it is, and pinned with -<channelId>', async () => {
    await seedChannel(gw.t.ctx.storage, { key: 'ok', baseUrl: gw.mock.url, models: 'gpt-4o-mini', priority: 10 });
    const pinned = await seedChannel(gw.t.ctx.storage, { name: 'pinned', key: 'ok:pinned', baseUrl: gw.mock.url, models: 'gpt-4o-mini', priority: 0 });
    const token = await seedToken(gw.t.ctx.storage, gw.userId, { unlimited: true, key: 'imported-key-12' });
    await client('imported-key-12').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(gw.mock.requests.at(-1)?.key).toBe('ok');
    await client(`imported-key-12-${pinned}`).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(gw.mock.requests.at(-1)?.key).toBe('ok:pinned');
    expect((await gw.settled(token.id, 2)).logs).toHaveLength(2);
    await expect(client('imported-key-13').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 401 });
    await expect(client(`imported-key-12-x`).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 400 });
  });

  it('IP restriction, disabled and expired keys are refused before anything is reserved', async () => {
    await seedChannel(gw.t.ctx.storage, { key: 'ok', baseUrl: gw.mock.url, models: 'gpt-4o-mini' });
    const fenced = await seedToken(gw.t.ctx.storage, gw.userId, { unlimited: true, subnet: '10.0.0.0/8' });
    await expect(client(fenced.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 403 });
    const local = await seedToken(gw.t.ctx.storage, gw.userId, { unlimited: true, subnet: '127.0.0.0/8,::1' });
    await client(local.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    const expired = await seedToken(gw.t.ctx.storage, gw.userId, { unlimited: true, expired_time: 1000 });
    await expect(client(expired.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 401 });
    expect((await gw.t.ctx.storage.db.selectFrom('tokens').selectAll().where('id', '=', expired.id).executeTakeFirstOrThrow()).status).toBe(3);
    const scoped = await seedToken(gw.t.ctx.storage, gw.userId, { unlimited: true, models: 'gpt-4o' });
    await expect(client(scoped.key).chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 403 });
  });
});
