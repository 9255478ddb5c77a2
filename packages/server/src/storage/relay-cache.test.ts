import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { RelayCache } from './relay-cache.js';
import type { ChannelRow } from './schema.js';

describe('RelayCache', () => {
  it('serves a copy within the TTL and loads again after it', async () => {
    const cache = new RelayCache(50);
    let loads = 0;
    const load = async () => {
      loads++;
      return [];
    };
    await cache.channels('default', 'm', load);
    await cache.channels('default', 'm', load);
    expect(loads).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    await cache.channels('default', 'm', load);
    expect(loads).toBe(2);
    cache.invalidateChannels();
    await cache.channels('default', 'm', load);
    expect(loads).toBe(3);
  });

  it('requests missing the same row at once share one load', async () => {
    const cache = new RelayCache(1000);
    let loads = 0;
    let finish!: (value: undefined) => void;
    const load = () => (loads++, new Promise<undefined>((resolve) => (finish = resolve)));
    const reads = [cache.token('k', load), cache.token('k', load), cache.token('k', load)];
    expect(loads).toBe(1);
    finish(undefined);
    await Promise.all(reads);
    await cache.token('k', load);
    expect(loads).toBe(1);
  });

  it('a load that began before an invalidation is neither joined nor kept', async () => {
    const cache = new RelayCache(60_000);
    const finishes: Array<(value: ChannelRow[]) => void> = [];
    let loads = 0;
    const load = () => (loads++, new Promise<ChannelRow[]>((resolve) => finishes.push(resolve)));
    const stale = cache.channels('default', 'm', load);
    cache.invalidateChannels();
    const fresh = cache.channels('default', 'm', load);
    expect(loads).toBe(2);
    finishes[0]([{ id: 1 } as ChannelRow]);
    finishes[1]([]);
    expect(await stale).toHaveLength(1);
    expect(await fresh).toHaveLength(0);
    // What the older load read was not remembered: the copy is the newer one.
    expect(await cache.channels('default', 'm', load)).toHaveLength(0);
    expect(loads).toBe(2);
  });

  it('a TTL of 0 turns caching off', async () => {
    const cache = new RelayCache(0);
    let loads = 0;
    for (let i = 0; i < 3; i++) await cache.user(1, async () => (loads++, undefined));
    expect(loads).toBe(3);
  });
});

describe('writes through the API take effect on the relay at once, with caching on', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('disabling a key or a channel in the console is seen by the next request', async () => {
    t = await createTestApp({ RELAY_CACHE_MS: '60000' });
    const root = await t.login('root', '123456');
    await t.call({ method: 'POST', url: '/api/channel/', cookie: root, payload: { name: 'c', type: 1, key: 'k', models: 'gpt-4o-mini', base_url: 'http://127.0.0.1:9' } });
    const key = (await t.call({ method: 'POST', url: '/api/token/', cookie: root, payload: { name: 'k', unlimited_quota: true } })).body.data;
    const store = t.ctx.relay.store;
    expect((await store.findTokenByKey(key.key))?.status).toBe(1);
    expect(await store.candidates('default', 'gpt-4o-mini')).toHaveLength(1);
    await t.call({ method: 'PUT', url: '/api/token/?status_only=true', cookie: root, payload: { id: key.id, status: 2 } });
    expect((await store.findTokenByKey(key.key))?.status).toBe(2);
    const channelId = (await t.call({ method: 'GET', url: '/api/channel/?p=0', cookie: root })).body.data[0].id;
    await t.call({ method: 'PUT', url: '/api/channel/', cookie: root, payload: { id: channelId, status: 2 } });
    expect(await store.candidates('default', 'gpt-4o-mini')).toHaveLength(0);
    await t.call({ method: 'POST', url: '/api/user/', cookie: root, payload: { username: 'buyer', password: 'password123' } });
    const buyer = (await t.ctx.repositories.users.findByUsername('buyer'))!;
    expect((await store.findUser(buyer.id))?.status).toBe(1);
    await t.call({ method: 'POST', url: '/api/user/manage', cookie: root, payload: { username: 'buyer', action: 'disable' } });
    expect((await store.findUser(buyer.id))?.status).toBe(2);
  });
});
